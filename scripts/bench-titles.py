#!/usr/bin/env python3
"""bench-titles.py: how often `fpubench console` gives syzkaller's title.

Usage: scripts/bench-titles.py DIR...

Each DIR holds files in the format of syzkaller's Linux report test data
(google/syzkaller pkg/report/testdata/linux/report/N): header lines
(`TITLE: ...`, the title of the first report, none for a log without a
crash; `CORRUPTED: Y`; other keys), a blank line, the console log, and
maybe a `REPORT:` section of syzkaller's own, which is cut before scanning.
A title is exact when it is the file's TITLE or one of its ALT lines.
Per DIR, over every file in it, it prints: the logs whose crash or its
absence was detected, the exact titles of all files with a TITLE, of the
complete ones (not CORRUPTED) among the kinds of report an FPU bench meets
(KINDS, by the title's start), and of the x86 ones (by the absence of other
architectures' frame markers); the false alarms on the logs without a
crash; then every file whose title differs ("kind" marks those of KINDS).
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FPUBENCH = os.path.join(ROOT, 'build', 'fpubench')
HEADER_KEYS = ('TITLE', 'CORRUPTED', 'TYPE', 'ALT', 'START', 'END', 'FRAME', 'PANICKED',
               'EXECUTOR', 'SUPPRESSED', '#')
KINDS = ('WARNING', 'BUG: unable to handle kernel', 'general protection fault', 'kernel BUG',
         'invalid opcode', 'kernel panic', 'divide error', 'BUG: soft lockup', 'INFO: task hung',
         'INFO: rcu detected stall', 'stack segment fault', 'PANIC: double fault',
         'BUG: scheduling while atomic', 'BUG: sleeping function called from invalid context')
OTHER_ARCHES = ('ARM-', ') from [<', 'arm64', 'aarch64', 'powerpc', 's390', 'riscv', 'ppc64',
                'el1h_', 'el0_svc', 'pc : ')


def read_case(path):
    """(titles: TITLE first, then the ALTs, or () for no crash; corrupted; log text) of one test data file."""
    text = open(path, encoding='utf-8', errors='replace').read()
    head, _, log = text.partition('\n\n')
    lines = head.split('\n')
    if not all(l.startswith(HEADER_KEYS) for l in lines if l):
        head, log = '', text  # a log with no header
    title = next((l[len('TITLE: '):] or None for l in head.split('\n')
                  if l.startswith('TITLE: ')), None)
    titles = (title,) + tuple(l[len('ALT: '):] for l in head.split('\n')
                              if l.startswith('ALT: ')) if title else ()
    corrupted = 'CORRUPTED: Y' in head.split('\n')
    cut = log.find('\nREPORT:\n')
    return titles, corrupted, log[:cut + 1] if cut >= 0 else log


def measure(directory, work):
    cases = []
    try:
        names = sorted(os.listdir(directory))
    except OSError as e:
        sys.exit(f"bench-titles: cannot read '{directory}': {e.strerror}")
    for name in names:
        title, corrupted, log = read_case(os.path.join(directory, name))
        path = os.path.join(work, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(log)
        cases.append((name, title, corrupted, path, not any(m in log for m in OTHER_ARCHES)))
    if not cases:
        sys.exit(f"bench-titles: no files in '{directory}'")
    out = subprocess.run([FPUBENCH, 'console', '--json', '-'] + [c[3] for c in cases],
                         capture_output=True, text=True, check=False)
    if out.returncode >= 128:
        sys.exit(f"bench-titles: fpubench console failed on '{directory}': {out.stderr.strip()}")
    got = {os.path.basename(o['log']): o['crash'] for o in json.loads(out.stdout)}

    def exact(c):
        return got[c[0]] in c[1] if c[1] else got[c[0]] is None

    def figure(label, sel, test):
        n, k = len(sel), sum(1 for c in sel if test(c))
        print(f'{directory} {label}: {k}/{n} ({100 * k / max(n, 1):.1f} %)')

    titled = [c for c in cases if c[1]]
    kinds = [c for c in titled if c[1][0].startswith(KINDS) and not c[2]]
    x86 = [c for c in titled if c[4]]
    figure('detected', cases, lambda c: (got[c[0]] is None) == (not c[1]))
    figure('exact, all titled', titled, exact)
    figure('exact, complete reports of the FPU kinds', kinds, exact)
    figure('exact, x86 titled', x86, exact)
    quiet = [c for c in cases if not c[1]]
    alarms = sum(1 for c in quiet if got[c[0]] is not None)
    print(f'{directory} without a crash: {len(quiet)} logs, {alarms} false alarms')
    for c in sorted(cases, key=lambda c: int(c[0]) if c[0].isdigit() else c[0]):
        if not exact(c):
            tags = ('' if c[4] else ' (not x86)') + (' (kind)' if c in kinds else '')
            print(f'  {c[0]}{tags}: want {c[1][0] if c[1] else None!r}, got {got[c[0]]!r}')


def main(argv):
    if not argv:
        sys.exit('usage: scripts/bench-titles.py DIR...')
    if not os.access(FPUBENCH, os.X_OK):
        sys.exit('bench-titles: build first (make)')
    with tempfile.TemporaryDirectory(prefix='fpubench-titles.') as work:
        for directory in argv:
            sub = os.path.join(work, str(len(os.listdir(work))))
            os.mkdir(sub)
            measure(directory, sub)


if __name__ == '__main__':
    main(sys.argv[1:])
