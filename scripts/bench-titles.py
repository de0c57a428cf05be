#!/usr/bin/env python3
"""bench-titles.py: how often `fpubench console` gives syzkaller's title.

Usage: scripts/bench-titles.py DIR...

Each DIR holds files in the format of syzkaller's Linux report test data
(google/syzkaller pkg/report/testdata/linux/report/N): header lines
(`TITLE: ...`, the title of the first report, none for a log without a
crash; `CORRUPTED: Y`; other keys), a blank line, the console log, and
maybe a `REPORT:` section of syzkaller's own, which is cut before scanning.
Per DIR it prints the crashes detected and the exact titles, for all files,
for the x86 ones (by the absence of other architectures' frame markers),
for the complete x86 reports (not CORRUPTED) and the false alarms on the
x86 logs without a crash; then every file whose title differs.
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
OTHER_ARCHES = ('ARM-', ') from [<', 'arm64', 'aarch64', 'powerpc', 's390', 'riscv', 'ppc64',
                'el1h_', 'el0_svc', 'pc : ')


def read_case(path):
    """(title or None, corrupted, log text) of one test data file."""
    text = open(path, encoding='utf-8', errors='replace').read()
    head, _, log = text.partition('\n\n')
    lines = head.split('\n')
    if not all(l.startswith(HEADER_KEYS) for l in lines if l):
        head, log = '', text  # a log with no header
    title = next((l[len('TITLE: '):] or None for l in head.split('\n')
                  if l.startswith('TITLE: ')), None)
    corrupted = 'CORRUPTED: Y' in head.split('\n')
    cut = log.find('\nREPORT:\n')
    return title, corrupted, log[:cut + 1] if cut >= 0 else log


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

    x86 = [c for c in cases if c[4]]
    sets = (('all', cases), ('x86', x86),
            ('x86 complete', [c for c in x86 if c[1] and not c[2]]))
    for label, sel in sets:
        n = len(sel)
        found = sum(1 for c in sel if (got[c[0]] is None) == (c[1] is None))
        exact = sum(1 for c in sel if got[c[0]] == c[1])
        print(f'{directory} {label}: {n} logs, detected {found} ({100 * found / max(n, 1):.1f} %),'
              f' exact title {exact} ({100 * exact / max(n, 1):.1f} %)')
    quiet = [c for c in x86 if not c[1]]
    alarms = sum(1 for c in quiet if got[c[0]] is not None)
    print(f'{directory} x86 without a crash: {len(quiet)} logs, {alarms} false alarms')
    for c in cases:
        if got[c[0]] != c[1]:
            print(f'  {c[0]}{"" if c[4] else " (not x86)"}: want {c[1]!r}, got {got[c[0]]!r}')


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
