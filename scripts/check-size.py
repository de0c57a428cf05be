#!/usr/bin/python3
"""check-size.py: no source file over 600 lines, no function over 80.

The sources are lib/, provenance/ and bench/ (tests and the guest's
reproducers are tests).  A function's length is its body's lines, from the
`{` that opens it in the first column to the `}` that closes it there; a
table (`... = {` on its declaration's line) is no function, and a file made
of tables (a name ending in _table.c) has no line limit.  Prints FILE:LINE:
for each offence and exits 1 when there is one.  Run from the repository's
top folder (scripts/check-layout.sh does).
"""
import glob
import sys

FILE_MAX = 600
FUNCTION_MAX = 80


def name_of(lines, brace):
    """The name of the function whose body opens at line `brace` (1-based)."""
    i = brace - 2
    while i > 0 and lines[i][:1] in ('\t', ' ', ''):
        i -= 1
    head = lines[i].split('(')[0].split()
    return head[-1].lstrip('*') if head else '?'


def main():
    bad = 0
    files = sorted(glob.glob('lib/*.[ch]') + glob.glob('provenance/*.[ch]') +
                   glob.glob('bench/*/*.[ch]'))
    for f in files:
        with open(f, encoding='utf-8', errors='replace') as fh:
            lines = fh.read().split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        if len(lines) > FILE_MAX and not f.endswith('_table.c'):
            print(f'{f}:{len(lines)}: {len(lines)} lines, over {FILE_MAX}: split it by concern')
            bad = 1
        start = None
        for n, line in enumerate(lines, 1):
            if line == '{':
                start = n
            elif line == '}' and start is not None:
                if n - start - 1 > FUNCTION_MAX:
                    print(f'{f}:{start}: function {name_of(lines, start)} is {n - start - 1} lines, over {FUNCTION_MAX}')
                    bad = 1
                start = None
    return bad


if __name__ == '__main__':
    sys.exit(main())
