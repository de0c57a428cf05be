#!/bin/sh
# bench-provenance-repo.sh DIR N: a repository of N kernel-like commits, for
# the provenance figure of scripts/bench.sh.
#
# DIR becomes a new git repository: tag bench-base is a tree of 400 C files
# (about 100,000 lines), and main holds N linear commits on top of it.  Each
# commit changes 1 to 5 files with 1 to 4 hunks of added, removed and
# rewritten lines; about 1 in 25 adds a file, 1 in 50 renames one (with an
# edit, so rename detection matters) and 1 in 100 deletes one.  Messages
# look like kernel mails: a "subsystem: Subject" line, a body, and trailers
# drawn as in the kernel's history (Signed-off-by chains, Reviewed-by,
# Acked-by, Link in its lore, patch.msgid.link and lkml forms, Fixes,
# Cc: stable, Reported-by with Closes, Message-ID, Change-Id).  No merges:
# git's patch-id gives them none, and neither does the bench.
# The content is pseudo-random with a fixed seed, so every run makes the
# same repository.  The stream goes to `git fast-import`: seconds, not minutes.
set -eu

[ $# -eq 2 ] || { echo "usage: bench-provenance-repo.sh DIR N" >&2; exit 2; }
dir=$1
n=$2
case $n in
'' | *[!0-9]*) echo "bench-provenance-repo.sh: commit count '$n' is not a number" >&2; exit 2 ;;
esac
[ ! -e "$dir" ] || { echo "bench-provenance-repo.sh: '$dir' already exists" >&2; exit 2; }

git init -q -b main "$dir"
python3 - "$n" <<'PY' | git -C "$dir" fast-import --quiet
import random, sys

n = int(sys.argv[1])
rng = random.Random(8)
out = sys.stdout.buffer

SUBSYS = ["x86/fpu", "x86/mm", "sched/core", "mm/slub", "net/ipv4", "drm/i915", "ext4",
          "btrfs", "usb: xhci", "iio: adc", "ALSA: hda", "nvme", "KVM: x86", "perf/core",
          "tty: serial", "gpio", "i2c: designware", "arm64: dts", "bpf", "xfs"]
DIRS = ["arch/x86/kernel/fpu", "arch/x86/mm", "kernel/sched", "mm", "net/ipv4",
        "drivers/gpu/drm/i915", "fs/ext4", "fs/btrfs", "drivers/usb/host", "drivers/iio/adc",
        "sound/pci/hda", "drivers/nvme/host", "arch/x86/kvm", "kernel/events",
        "drivers/tty/serial", "drivers/gpio", "drivers/i2c/busses", "arch/arm64/boot/dts",
        "kernel/bpf", "fs/xfs"]
VERBS = ["Fix", "Use", "Drop", "Add", "Avoid", "Handle", "Remove", "Convert", "Move",
         "Simplify", "Check", "Clean up"]
NOUNS = ["the legacy save path", "a NULL dereference", "the error path", "an off-by-one",
         "stale comments", "the refcount leak", "locking in probe", "the DMA mask",
         "unused variables", "the timeout handling", "a race on teardown", "the fast path"]
WORDS = ("the a of to in is that for on with as this be by are not it from at or an "
         "kernel driver state save restore exception pending context switch task value "
         "lock buffer request device register interrupt memory page user return").split()
PEOPLE = [("Ada Lovelace", "ada@example.org"), ("Bob Reviewer", "bob@example.org"),
          ("Carol Maintainer", "carol@kernel.org"), ("Dan Tester", "dan@example.com"),
          ("Eve Hacker", "eve@example.net"), ("Frank Porter", "frank@example.org"),
          ("Grace Hopper", "grace@example.com"), ("Heidi Stable", "heidi@kernel.org"),
          ("Ivan Driver", "ivan@example.de"), ("Judy Network", "judy@example.fr")]
TYPES = ["int", "long", "unsigned int", "u32", "u64", "bool", "size_t"]


def ident():
    return "_".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))


def c_line(depth=1):
    t = rng.random()
    tab = "\t" * depth
    if t < 0.25:
        return f"{tab}{rng.choice(TYPES)} {ident()} = {rng.randint(0, 4096)};"
    if t < 0.45:
        return f"{tab}if ({ident()} && {ident()}->{ident()})"
    if t < 0.65:
        return f"{tab}{ident()}({ident()}, {rng.randint(0, 64)});"
    if t < 0.75:
        return f"{tab}return -E{rng.choice(['INVAL', 'NOMEM', 'BUSY', 'IO', 'AGAIN'])};"
    if t < 0.85:
        return f"{tab}/* {' '.join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))} */"
    return f"{tab}{ident()}->{ident()} = {ident()};"


def c_file():
    lines = ["// SPDX-License-Identifier: GPL-2.0", "#include <linux/kernel.h>", ""]
    for _ in range(rng.randint(8, 20)):
        lines.append(f"static int {ident()}_{rng.randint(0, 999)}(struct {ident()} *p)")
        lines.append("{")
        lines.extend(c_line() for _ in range(rng.randint(5, 25)))
        lines.append("\treturn 0;")
        lines.append("}")
        lines.append("")
    return lines


def data(text):
    b = text.encode()
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


def blob(lines):
    return "\n".join(lines) + "\n"


files = {}
for i in range(400):
    d = rng.choice(DIRS)
    files[f"{d}/{ident().replace('_', '-')}-{i}.c"] = c_file()


def edit(lines):
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(3, max(4, len(lines)))
        kind = rng.random()
        if kind < 0.4:	# rewrite a few lines
            for j in range(at, min(len(lines), at + rng.randint(1, 4))):
                lines[j] = c_line()
        elif kind < 0.75:	# add lines
            lines[at:at] = [c_line() for _ in range(rng.randint(1, 8))]
        else:		# remove lines
            del lines[at:at + rng.randint(1, 6)]


def msgid(when, who):
    return f"{when}.{rng.randint(1000, 99999)}-{rng.randint(1, 9)}-{who[1].split('@')[0]}@{who[1].split('@')[1]}"


def message(when, author, subsystem, subject, hexes):
    body = []
    for _ in range(rng.randint(1, 3)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(15, 60))]
        para, line = [], ""
        for w in words:
            if len(line) + len(w) > 72:
                para.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        para.append(line)
        body.append("\n".join(para))
    tr = []
    if hexes and rng.random() < 0.2:
        tr.append(f'Fixes: {rng.choice(hexes)[:12]} ("{subsystem}: {rng.choice(VERBS)} {rng.choice(NOUNS)}")')
    if rng.random() < 0.1:
        who = rng.choice(PEOPLE)
        tr.append(f"Reported-by: {who[0]} <{who[1]}>")
        tr.append(f"Closes: https://lore.kernel.org/r/{msgid(when - 86400, who)}")
    if rng.random() < 0.12:
        tr.append("Cc: stable@vger.kernel.org # 6.1+")
    tr.append(f"Signed-off-by: {author[0]} <{author[1]}>")
    for key, p in (("Reviewed-by", 0.35), ("Acked-by", 0.15), ("Tested-by", 0.1)):
        if rng.random() < p:
            who = rng.choice(PEOPLE)
            tr.append(f"{key}: {who[0]} <{who[1]}>")
    mid = msgid(when, author)
    t = rng.random()
    if t < 0.55:
        tr.append(f"Link: https://lore.kernel.org/r/{mid}")
    elif t < 0.7:
        tr.append(f"Link: https://patch.msgid.link/{mid}")
    elif t < 0.78:
        tr.append(f"Link: http://lkml.kernel.org/r/{mid}")
    elif t < 0.83:
        tr.append(f"Message-ID: <{mid}>")
    if rng.random() < 0.03:
        tr.append(f"Change-Id: I{rng.getrandbits(160):040x}")
    for _ in range(rng.randint(0, 2)):
        who = rng.choice(PEOPLE[2:4] + PEOPLE[7:8])
        tr.append(f"Signed-off-by: {who[0]} <{who[1]}>")
    return f"{subsystem}: {subject}\n\n" + "\n\n".join(body) + "\n\n" + "\n".join(tr) + "\n"


when = 1600000000
mark = 0


def commit(msg, who, changes, parent):
    global mark
    mark += 1
    out.write(b"commit refs/heads/main\n")
    out.write(b"mark :%d\n" % mark)
    out.write(f"author {who[0]} <{who[1]}> {when} +0000\n".encode())
    out.write(f"committer {PEOPLE[2][0]} <{PEOPLE[2][1]}> {when + 3600} +0000\n".encode())
    data(msg)
    if parent:
        out.write(b"from :%d\n" % parent)
    for c in changes:
        out.write(c.encode() if isinstance(c, str) else c)
    return mark


def modify(path):
    b = blob(files[path]).encode()
    return b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(b), b)


head = commit("Initial import\n", PEOPLE[2], [modify(p) for p in sorted(files)], 0)
out.write(b"tag bench-base\nfrom :%d\ntagger %s <%s> %d +0000\n" %
          (head, PEOPLE[2][0].encode(), PEOPLE[2][1].encode(), when))
data("the base of the generated history\n")
# Fixes: name earlier commits by made-up hashes; only their form matters here.
hexes = []
for i in range(n):
    when += rng.randint(600, 20000)
    k = rng.randrange(len(SUBSYS))
    author = rng.choice(PEOPLE)
    changes = []
    paths = sorted(files)
    t = rng.random()
    if t < 0.04:
        path = f"{DIRS[k]}/{ident().replace('_', '-')}-new{i}.c"
        files[path] = c_file()
        changes.append(modify(path))
    elif t < 0.06:
        old = rng.choice(paths)
        new = old.rsplit("/", 1)[0] + f"/{ident().replace('_', '-')}-moved{i}.c"
        files[new] = files.pop(old)
        edit(files[new])
        changes.append(f"D {old}\n")
        changes.append(modify(new))
    elif t < 0.07 and len(paths) > 100:
        old = rng.choice(paths)
        del files[old]
        changes.append(f"D {old}\n")
    else:
        for path in rng.sample(paths, rng.randint(1, 5)):
            edit(files[path])
            changes.append(modify(path))
    subject = f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"
    head = commit(message(when, author, SUBSYS[k], subject, hexes), author, changes, head)
    hexes.append(f"{rng.getrandbits(160):040x}")
PY
git -C "$dir" reset -q --hard main
