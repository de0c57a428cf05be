#!/usr/bin/python3
"""gen-man.py: a man page from a docs page and the option table (`make man`).

Usage: gen-man.py DUMP PAGE.md OUT.1 VERSION DATE

DUMP is what `fpubench --dump-options` prints (the option table, the
only list of options).  PAGE.md is docs/fpubench.md or
docs/fpubench-<command>.md: a first line "# NAME(1)" and "## NAME",
"## SYNOPSIS", "## DESCRIPTION", "## OPTIONS", ... sections.  The page's
headings go up a level, links to the repository's files become their text,
tables become lists, go-md2man (Debian's) turns the Markdown into roff, and
for a command's page the command's rows of the table are written at the top
of OPTIONS, each with its help line, before what the page says of them.
"""
import re
import subprocess
import sys

LINK = re.compile(r"\[([^\]]+)\]\((?!https?:)[^)]+\)")
CELL = re.compile(r"(?<!\\)\|")


def cells(row):
    return [c.strip().replace("\\|", "|") for c in CELL.split(row.strip())[1:-1]]


def table_as_list(block):
    """A Markdown table as a definition list: a terminal's width holds no wide table."""
    head, body = cells(block[0]), [cells(r) for r in block[2:]]
    out = []
    for row in body:
        if len(head) == 2:
            text = row[1]
        else:
            text = "; ".join("%s: %s" % (h, c) for h, c in zip(head[1:], row[1:]) if c)
        out += [row[0], ":   " + (text or "-"), ""]
    return out


def roff_text(s):
    s = s.replace("\\", "\\e")
    return "\\&" + s if s[:1] in (".", "'") else s


def roff_option(short, long, arg):
    head = "\\fB%s\\fR" % long.replace("-", "\\-")
    if short:
        head = "\\fB%s\\fR, %s" % (short.replace("-", "\\-"), head)
    if arg:
        head += " \\fI%s\\fR" % roff_text(arg)
    return head


def read_dump(path, command):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            f = line.rstrip("\n").split("\t")
            if f[0] == "option" and f[1] == command:
                rows.append(f[2:6])
    return rows


def markdown(page):
    """The page's Markdown for go-md2man: its title line dropped, headings up a level."""
    out, fenced, table = [], False, []
    with open(page, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if not lines[0].startswith("# "):
        sys.exit("gen-man: '%s' does not start with its '# NAME(1)' title" % page)
    for line in lines[1:]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("##"):
            line = line[1:]
        elif not fenced:
            line = LINK.sub(r"\1", line)
        if not fenced and line.startswith("|"):
            table.append(line)
            continue
        if table:
            out += table_as_list(table)
            table = []
        out.append(line)
    return "\n".join(out + table_as_list(table) if table else out)


def main():
    dump, page, out, version, date = sys.argv[1:6]
    name = re.sub(r"\.md$", "", page.rsplit("/", 1)[-1])
    command = name[len("fpubench-"):] if name.startswith("fpubench-") else None
    title = '%% %s 1 "%s" "fpubench %s" "fpubench manual"\n' % (name.upper(), date, version)
    try:
        roff = subprocess.run(["go-md2man"], input=title + markdown(page), capture_output=True,
                              text=True, check=True).stdout
    except FileNotFoundError:
        sys.exit("gen-man: go-md2man is missing (scripts/install-deps.sh installs it)")
    # .TH turns hyphenation back on: no option should break at its dashes.
    roff = re.sub(r"^(\.TH .*)$", r"\1\n.nh\n.ad l", roff, count=1, flags=re.M)
    if command:
        rows = read_dump(dump, command)
        if not rows:
            sys.exit("gen-man: the option table has no command '%s'" % command)
        if "\n.SH OPTIONS\n" not in roff:
            sys.exit("gen-man: '%s' has no OPTIONS section" % page)
        entries = "".join(".TP\n%s\n%s\n" % (roff_option(s, l, a), roff_text(h))
                          for s, l, a, h in rows)
        roff = roff.replace("\n.SH OPTIONS\n", "\n.SH OPTIONS\n" + entries, 1)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(roff)


if __name__ == "__main__":
    main()
