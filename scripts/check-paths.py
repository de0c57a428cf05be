#!/usr/bin/python3
"""check-paths.py: every repository path named in a comment or a document must exist.

Documents (*.md) are read whole; in code only the comments are, since a
test's string may name a file that must not exist.  A path is a word that starts with one of the repository's top-level folders
(bench/, tests/, docs/, ...) and whose parent folder exists here or is one
of those, so that a kernel
path such as scripts/kconfig/merge_config.sh is not taken for one of ours; or
a bare NAME.md, which some tracked file must be called.  A word followed by a
pattern character (test_*.c, <name>, $VAR) is a pattern, not a path; what follows "kernel's" up to the end of its sentence
or table cell names the kernel's files ("the kernel's lib/refcount.c").  Prints
FILE:LINE: for each path that does not exist and exits 1 when there is one.
Run from the repository's top folder (scripts/check-layout.sh does).
"""
import os
import re
import subprocess
import sys

TOP = ("bench", "guest-tests", "patches", "provenance", "scripts", "lib", "tests", "docs", ".ci")
TEXT = re.compile(r"(\.[ch]|\.sh|\.py|\.md|\.txt|Makefile|/run)$")
PATH = re.compile(r"(?<![\w./~-])((?:%s)/[\w.+/-]*)" % "|".join(re.escape(t) for t in TOP))
DOC = re.compile(r"(?<![\w./~-])([\w-]+\.md)\b")
PATTERN_NEXT = set("*<{$%[?@")
KERNEL = re.compile(r"kernel's [^|]*?(?:\. |\||$)")


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout
    return [f for f in out.decode().split("\0") if f]


C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
HASH_COMMENT = re.compile(r"(?:^|(?<=\s))#[^\n]*", re.M)


def prose(name, text):
    """The parts of text that are prose, each as (line number, text)."""
    if name.endswith(".md"):
        return enumerate(text.split("\n"), 1)
    comment = C_COMMENT if name.endswith((".c", ".h")) else HASH_COMMENT
    parts = []
    for m in comment.finditer(text):
        first = text.count("\n", 0, m.start()) + 1
        parts.extend(enumerate(m.group(0).split("\n"), first))
    return parts


def clean(word):
    return word.rstrip(".,:;/")


def main():
    files = tracked()
    basenames = {os.path.basename(f) for f in files}
    bad = 0
    for f in files:
        if not TEXT.search(f) or not os.path.isfile(f):
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            for n, line in prose(f, fh.read()):
                line = KERNEL.sub(" ", line)
                for m in PATH.finditer(line):
                    word = clean(m.group(1))
                    nxt = line[m.end():m.end() + 1]
                    parent = os.path.dirname(word)
                    if nxt in PATTERN_NEXT or not (parent in TOP or os.path.isdir(parent)):
                        continue
                    if not os.path.exists(word):
                        print(f"{f}:{n}: '{word}' does not exist")
                        bad = 1
                for m in DOC.finditer(line):
                    if m.group(1) not in basenames:
                        print(f"{f}:{n}: no file of the repository is called '{m.group(1)}'")
                        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
