#!/usr/bin/python3
"""mutants-gen.py: generated kernel mutants, their object-code check and their store.

Usage:
  mutants-gen.py pristine RESULTS.json WORK   (WORK/pristine: "commit version"; WORK/setups.fsave,
                                               setups.other: the run's setups, `--cpu S` words)
  mutants-gen.py generate --db DB --tree DIR --commit C --build DIR --work WORK [--coverage INFO]
  mutants-gen.py pick     --db DB --commit C [--sample N --seed S] [--retest survived|all]
                          [--ids FILE]   (the ids a file lists, one a line, `#` comments)
  mutants-gen.py compile  --db DB --build DIR --work WORK ID   (prints: equivalent |
                          duplicate ID | unbuilt MESSAGE | patch FILE)
  mutants-gen.py begin    --db DB --commit C [--sample N --seed S --coverage INFO --version V]
  mutants-gen.py record   --db DB --run R [--detail TEXT] [--seconds S] ID OUTCOME
  mutants-gen.py end      --db DB --run R
  mutants-gen.py report   --db DB --commit C [--html FILE [--coverage-html DIR]]
                          [--explained FILE]   (DIR: `make coverage`'s html/, whose
                          lines the HTML links to; FILE: tests/mutants/explained)
  mutants-gen.py list     --tree DIR --build DIR FILE...   (every function's mutants as JSON
                                                            lines, no store)

tests/mutants/README.md says what each operator does and how `make mutants`
uses this.  The C files are parsed with libclang (Debian's python3-clang-14)
under the kernel's own flags, taken from the build's .<obj>.o.cmd files; a
mutant is a change of one byte range of the pristine file that keeps every
line where it was, so __LINE__ and the coverage data still name the same
lines.  `generate` works on a snapshot of the tree's commit (`git archive`)
under --work, because the bench checks other commits out in the cache's tree
while it builds mutants.  Every mutant is compiled with the kernel's command
before it is booted: one whose allocated sections (code and data, with their
relocations; debug info left out) equal the pristine object's is equivalent,
one equal to a mutant already judged is a duplicate of it.
"""

import argparse
import difflib
import hashlib
import json
import os
import random
import re
import shlex
import sqlite3
import subprocess
import sys
import time

# The x87 handling of the 6.1 tree: the file, then its functions (a regex;
# None for all) and, for a function, which of its lines (None: all; a regex
# the line matches; a tuple of `case` labels whose blocks count).  Without
# coverage data these are the lines mutated; with it, their reached lines.
TARGETS = [
    ('arch/x86/kernel/fpu/core.c', [(None, None)]),
    ('arch/x86/kernel/fpu/signal.c', [(None, None)]),
    ('arch/x86/kernel/fpu/regset.c', [(None, None)]),
    ('arch/x86/kernel/fpu/init.c', [(None, None)]),
    ('arch/x86/kernel/fpu/bugs.c', [(None, None)]),
    # The parts of the XSAVE code that run on every CPU.
    ('arch/x86/kernel/fpu/xstate.c',
     [(r'fpu__init_system_xstate|fpu__init_cpu_xstate|fpstate_free|fpu_xstate_prctl|'
       r'cpu_has_xfeatures|fpu__resume_cpu', None)]),
    ('arch/x86/kernel/traps.c', [(r'math_error|__exc_coprocessor_error', None)]),
    ('arch/x86/kernel/signal.c',
     [(r'get_sigframe|restore_sigcontext|__unsafe_setup_sigcontext|handle_signal|'
       r'init_sigframe_size', r'fpu|fpstate|math')]),
    ('arch/x86/kernel/process_32.c', [(r'__switch_to', r'fpu|FPU')]),
    ('arch/x86/kernel/ptrace.c',
     [(r'arch_ptrace', ('PTRACE_GETFPREGS', 'PTRACE_SETFPREGS', 'PTRACE_GETFPXREGS',
                        'PTRACE_SETFPXREGS'))]),
]

# Operator replacements (tests/mutants/README.md has the table).
RELATIONAL = {'<': ['<=', '>'], '<=': ['<', '>'], '>': ['>=', '<'], '>=': ['>', '<'],
              '==': ['!='], '!=': ['==']}
ARITHMETIC = {'+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'], '%': ['/']}
SHIFT = {'<<': ['>>'], '>>': ['<<']}
BITWISE = {'&': ['|'], '|': ['&'], '^': ['|']}
LOGICAL = {'&&': ['||'], '||': ['&&']}
ASSIGN = {'+=': ['-='], '-=': ['+='], '*=': ['/='], '/=': ['*='], '|=': ['&='], '&=': ['|='],
          '^=': ['|='], '<<=': ['>>='], '>>=': ['<<=']}

OUTCOMES = ('equivalent', 'duplicate', 'unbuilt', 'killed', 'survived', 'error')


def die(msg, code=1):
    print('mutants-gen: ' + msg, file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- the kernel's commands

def kernel_command(build, rel):
    """The gcc argv that built rel's object in build, as its .cmd file says."""
    obj = os.path.splitext(rel)[0] + '.o'
    path = os.path.join(build, os.path.dirname(obj), '.' + os.path.basename(obj) + '.cmd')
    try:
        with open(path) as f:
            first = f.readline()
    except OSError as e:
        die("cannot read '%s': %s" % (path, e.strerror))
    if ':=' not in first:
        die("'%s' holds no command" % path)
    argv = shlex.split(first.split(':=', 1)[1].split(' ; ')[0])
    if argv and argv[0] == 'ccache':
        argv = argv[1:]
    if not argv or not argv[-1].endswith(rel):
        die("'%s' does not compile '%s'" % (path, rel))
    return argv


def source_root(argv, rel):
    """The tree the command reads: its last argument is <root>/<rel>."""
    return argv[-1][:-len(rel)].rstrip('/')


def rebase(argv, old_root, new_root, out):
    """argv reading new_root's sources, writing out, with no dependency file."""
    res = []
    for a in argv:
        if a.startswith('-Wp,-MMD') or a.startswith('-Wp,-MD'):
            continue
        res.append(a.replace(old_root + '/', new_root + '/').replace(old_root + '=', new_root + '='))
    i = res.index('-o')
    res[i + 1] = out
    return res


def clang_args(argv):
    """The preprocessor flags of a gcc argv, for libclang, as i386."""
    args = ['--target=i386-unknown-linux-gnu']
    i = 1
    while i < len(argv) - 1:
        a = argv[i]
        if a in ('-I', '-include', '-isystem', '-iquote'):
            args += [a, argv[i + 1]]
            i += 2
            continue
        if a.startswith(('-I', '-D', '-U', '-std=', '-nostdinc', '-isystem')):
            args.append(a)
        i += 1
    return args


# ---------------------------------------------------------------- object code

def sections_digest(obj):
    """A digest of the object's allocated sections: bytes and relocations, no debug info."""
    hdr = subprocess.run(['readelf', '-S', '-W', obj], capture_output=True, text=True, check=True)
    names = []
    for line in hdr.stdout.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+([A-Z]*)\s', line)
        if m and 'A' in m.group(3) and not m.group(1).startswith('.debug'):
            names.append(m.group(1))
    h = hashlib.sha256()
    for name in sorted(names):
        h.update(name.encode() + b'\0')
        for what in ('-s', '-r'):
            out = subprocess.run(['objdump', what, '-j', name, obj], capture_output=True,
                                 check=True).stdout
            # The first lines name the file.
            h.update(b'\n'.join(out.split(b'\n')[3:]))
    return h.hexdigest()


def compile_object(argv, build):
    """Runs the kernel's compile command argv in the build directory; (ok, message)."""
    r = subprocess.run(argv, capture_output=True, text=True, cwd=build)
    if r.returncode != 0:
        errs = [l for l in r.stderr.splitlines() if 'error' in l]
        return False, (errs[0] if errs else r.stderr.strip().split('\n')[-1])[:300]
    return True, ''


# ---------------------------------------------------------------- regions and coverage

def read_lcov(path):
    """{source path: {line: count}} from an lcov tracefile."""
    cov, cur = {}, None
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith('SF:'):
                    cur = cov.setdefault(line[3:], {})
                elif line.startswith('DA:') and cur is not None:
                    fields = line[3:].split(',')
                    n = int(fields[0])
                    cur[n] = cur.get(n, 0) + int(float(fields[1]))
                elif line == 'end_of_record':
                    cur = None
    except (OSError, ValueError) as e:
        die("cannot read coverage '%s': %s" % (path, e))
    return cov


def lines_for(cov, rel):
    """The DA records of rel in cov (matched by the path's tail), or None."""
    for sf, das in cov.items():
        if sf == rel or sf.endswith('/' + rel):
            return das
    return None


def reached(das, first, last):
    """Whether a mutant on lines first..last runs: a DA line there with a count, or
    the nearest DA line above (a continuation line has none)."""
    inside = [n for n in range(first, last + 1) if n in das]
    if inside:
        return any(das[n] > 0 for n in inside)
    above = [n for n in das if first - 3 <= n < first]
    return bool(above) and das[max(above)] > 0


def case_lines(text_lines, f_first, f_last, labels):
    """The lines of the `case` blocks of labels within lines f_first..f_last."""
    keep, on = set(), False
    for n in range(f_first, f_last + 1):
        s = text_lines[n - 1].strip()
        if s.startswith('case ') or s.startswith('default:') or s.startswith('#'):
            on = any(re.match(r'case\s+%s\s*:' % l, s) for l in labels)
        if on:
            keep.add(n)
    return keep


# ---------------------------------------------------------------- the generator

class Mutant:
    __slots__ = ('file', 'function', 'operator', 'start', 'end', 'text', 'line', 'last',
                 'original', 'mutated', 'diff', 'id')


def int_literal(tok):
    m = re.fullmatch(r'(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)', tok)
    if not m:
        return None
    body, suffix = m.groups()
    if body[:2].lower() == '0x':
        return int(body, 16), 'x', suffix, len(body) - 2
    if len(body) > 1 and body[0] == '0':
        return int(body, 8), 'o', suffix, 0
    return int(body), 'd', suffix, 0


def format_literal(value, base, suffix, width):
    if base == 'x':
        return '0x%0*x%s' % (width, value, suffix) if value >= 0 else None
    if base == 'o':
        return '0%o' % value if value > 0 else '0'
    return '%d%s' % (value, suffix) if value >= 0 else None


class Generator:
    def __init__(self, ci, tu, path, rel, data):
        self.ci, self.tu, self.path, self.rel, self.data = ci, tu, path, rel, data
        self.K = ci.CursorKind
        self.lines = data.decode('utf-8', 'replace').split('\n')
        self.out = []
        self.macros = []	# (start, end, cursor) of macro instantiations in the file
        self.macro_defs = {}	# file -> [(line, name, cursor)] of object-like macros
        for c in tu.cursor.get_children():
            if c.kind == self.K.MACRO_INSTANTIATION and self.in_file(c):
                self.macros.append((c.extent.start.offset, c.extent.end.offset, c))
            elif c.kind == self.K.MACRO_DEFINITION and c.location.file:
                self.macro_defs.setdefault(c.location.file.name, []).append(c)
        self.macros.sort(key=lambda m: m[0])

    def in_file(self, c):
        e = c.extent
        return (e.start.file is not None and e.start.file.name == self.path and
                e.end.file is not None and e.end.file.name == self.path)

    def span(self, c):
        return c.extent.start.offset, c.extent.end.offset

    def in_macro(self, start, end):
        """Whether start..end lies inside a macro instantiation (args included)."""
        for ms, me, _ in self.macros:
            if ms > start:
                break
            if start >= ms and end <= me:
                return True
        return False

    def is_macro(self, start, end):
        return any(ms == start and me == end for ms, me, _ in self.macros)

    def own(self, c):
        """c's byte range if it is spelled in the file outside any macro, else None."""
        if not self.in_file(c):
            return None
        s, e = self.span(c)
        if e <= s or self.in_macro(s, e):
            return None
        return s, e

    def operand(self, c):
        """c's byte range if it is spelled in the file or is one whole macro call."""
        if not self.in_file(c):
            return None
        s, e = self.span(c)
        if e <= s or (self.in_macro(s, e) and not self.is_macro(s, e)):
            return None
        return s, e

    def text(self, s, e):
        return self.data[s:e].decode('utf-8', 'replace')

    def add(self, func, op, s, e, repl):
        old = self.text(s, e)
        if old == repl:
            return
        # Every line stays where it was.
        repl += '\n' * max(0, old.count('\n') - repl.count('\n'))
        m = Mutant()
        m.file, m.function, m.operator, m.start, m.end, m.text = self.rel, func, op, s, e, repl
        self.out.append(m)

    def unwrap(self, c):
        """c without the implicit casts around it (libclang shows them unexposed)."""
        while c.kind == self.K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1:
            c = next(c.get_children())
        return c

    def token_between(self, s, e):
        """The one punctuation token in s..e (the operator of a binary node)."""
        toks = [t for t in self.tu.get_tokens(extent=self.ci.SourceRange.from_locations(
            self.tu.get_location(self.path, s), self.tu.get_location(self.path, e)))
            if t.extent.start.offset >= s and t.extent.end.offset <= e]
        if len(toks) != 1 or toks[0].kind != self.ci.TokenKind.PUNCTUATION:
            return None
        return toks[0]

    # --- per node

    def binary(self, func, c):
        kids = list(c.get_children())
        if len(kids) != 2 or not self.own(c):
            return
        a, b = self.operand(kids[0]), self.operand(kids[1])
        if not a or not b or a[1] > b[0]:
            return
        tok = self.token_between(a[1], b[0])
        if tok is None:
            return
        op = tok.spelling
        os_, oe = tok.extent.start.offset, tok.extent.end.offset
        for table, name in ((RELATIONAL, 'relational'), (ARITHMETIC, 'arithmetic'),
                            (SHIFT, 'shift'), (BITWISE, 'bitwise'), (LOGICAL, 'logical'),
                            (ASSIGN, 'assignment')):
            for r in table.get(op, []):
                self.add(func, name, os_, oe, r)
        if op in ('&', '|', '&&', '||'):
            name = 'bitwise-drop' if op in ('&', '|') else 'logical-drop'
            s, e = self.span(c)
            self.add(func, name, s, e, self.text(*a))
            self.add(func, name, s, e, self.text(*b))

    def unary(self, func, c):
        r = self.own(c)
        kids = list(c.get_children())
        if not r or len(kids) != 1:
            return
        k = self.operand(kids[0])
        if not k:
            return
        s, e = r
        if k[0] > s:	# prefix
            op = self.text(s, k[0]).strip()
            if op in ('!', '~', '-'):
                self.add(func, 'unary-drop', s, e, self.text(*k))
            elif op in ('++', '--'):
                self.add(func, 'increment', s, k[0], '--' if op == '++' else '++')
        elif k[1] < e:
            op = self.text(k[1], e).strip()
            if op in ('++', '--'):
                self.add(func, 'increment', k[1], e, '--' if op == '++' else '++')

    def condition(self, func, cond):
        """A condition of if/while/do/?: negated, and forced either way."""
        s, e = self.span(cond)
        if not self.in_file(cond) or e <= s:
            return
        # A whole macro call is a condition (likely(x), WARN_ON(x)); a part of one is not.
        if self.in_macro(s, e) and not self.is_macro(s, e):
            return
        before = self.data[:s].rstrip()
        after = self.data[e:].lstrip()
        if not before.endswith(b'(') or not after.startswith((b')', b':', b'?')):
            # ?: conditions are not parenthesised; take them only if unary/paren-free.
            if not (before.endswith((b'=', b'return')) and after.startswith(b'?')):
                return
        t = self.text(s, e)
        u = self.unwrap(cond)
        if not (u.kind == self.K.UNARY_OPERATOR and t.startswith('!')):
            self.add(func, 'condition-negate', s, e, '!(%s)' % t)
        self.add(func, 'condition-true', s, e, '1')
        self.add(func, 'condition-false', s, e, '0')

    def literal(self, func, c):
        r = self.own(c)
        if not r:
            return
        lit = int_literal(self.text(*r))
        if lit is None:
            return
        v, base, suffix, width = lit
        for nv in ([v + 1, v - 1] if v > 0 else [1]):
            t = format_literal(nv, base, suffix, width)
            if t is not None:
                self.add(func, 'constant', r[0], r[1], t)

    def enum_ref(self, func, c):
        r = self.own(c)
        d = c.referenced
        if not r or d is None or d.kind != self.K.ENUM_CONSTANT_DECL or \
                self.text(*r) != d.spelling:
            return
        sibs = [x.spelling for x in d.semantic_parent.get_children()
                if x.kind == self.K.ENUM_CONSTANT_DECL]
        i = sibs.index(d.spelling)
        for j in (i - 1, i + 1):
            if 0 <= j < len(sibs):
                self.add(func, 'constant-neighbour', r[0], r[1], sibs[j])

    def macro_neighbours(self, func, s, e, c):
        """An object-like constant macro swapped for the one defined before or after it
        with the same prefix (X86_FEATURE_FXSR for X86_FEATURE_MMX, EFAULT for EBADF)."""
        d = c.referenced
        name = c.spelling
        if d is None or not d.location.file or not re.fullmatch(r'[A-Z][A-Z0-9_]+', name):
            return
        if self.text(s, e) != name:
            return
        prefix = name[:name.rfind('_') + 1] if '_' in name[1:] else name[0]
        defs = [x for x in self.macro_defs.get(d.location.file.name, [])
                if x.spelling.startswith(prefix) and self.object_like(x)]
        defs.sort(key=lambda x: x.location.line)
        names = [x.spelling for x in defs]
        if name not in names or not self.object_like(d):
            return
        i = names.index(name)
        for j in (i - 1, i + 1):
            if 0 <= j < len(names) and names[j] != name:
                self.add(func, 'constant-neighbour', s, e, names[j])

    def object_like(self, d):
        toks = list(d.get_tokens())
        if len(toks) < 2:
            return False
        return not (toks[1].spelling == '(' and
                    toks[1].extent.start.offset == toks[0].extent.end.offset)

    def statement(self, func, c, parent):
        """Deletes a statement: an expression, asm, break, continue, `return;`."""
        K = self.K
        if not (c.kind.is_expression() or c.kind in (K.ASM_STMT, K.BREAK_STMT, K.CONTINUE_STMT,
                                                       K.RETURN_STMT, K.DO_STMT)):
            return
        if c.kind == K.RETURN_STMT and list(c.get_children()):
            return
        if c.kind == K.BINARY_OPERATOR and not self.assignment(c):
            return
        r, p = self.operand(c), self.own(parent)
        if not r or not p or p == r:
            return
        s, e = r
        rest = self.data[e:]
        semi = len(rest) - len(rest.lstrip())
        if rest[semi:semi + 1] != b';':
            return
        e += semi + 1
        body = self.text(s, e)
        repl = '\n' * body.count('\n')
        if parent.kind != K.COMPOUND_STMT:
            repl = ';' + repl
        self.add(func, 'statement-delete', s, e, repl)

    def assignment(self, c):
        kids = list(c.get_children())
        if len(kids) != 2:
            return False
        a, b = self.operand(kids[0]), self.operand(kids[1])
        if not a or not b:
            return False
        t = self.token_between(a[1], b[0])
        return t is not None and t.spelling == '='

    def return_value(self, func, fdecl, c):
        kids = list(c.get_children())
        if len(kids) != 1 or not self.in_file(kids[0]):
            return
        s, e = self.span(kids[0])
        if e <= s or (self.in_macro(s, e) and not self.is_macro(s, e)):
            return
        t = self.text(s, e)
        rt = fdecl.result_type.get_canonical().kind
        TK = self.ci.TypeKind
        if rt == TK.POINTER:
            repls = ['NULL']
        elif rt == TK.BOOL:
            repls = ['!(%s)' % t] if t not in ('true', 'false') else \
                ['false' if t == 'true' else 'true']
        elif rt in (TK.INT, TK.LONG, TK.LONGLONG, TK.SHORT, TK.CHAR_S, TK.SCHAR):
            repls = ['-1'] if t == '0' else ['0']
        elif rt in (TK.UINT, TK.ULONG, TK.ULONGLONG, TK.USHORT, TK.UCHAR, TK.CHAR_U):
            repls = ['1'] if t == '0' else ['0']
        else:
            return
        for r in repls:
            self.add(func, 'return-value', s, e, r)

    def call_args(self, func, c, scope):
        kids = list(c.get_children())
        for arg in kids[1:]:
            r = self.own(arg)
            if not r:
                continue
            a = self.unwrap(arg)
            addr = False
            if a.kind == self.K.UNARY_OPERATOR and self.text(*r).startswith('&'):
                inner = list(a.get_children())
                if len(inner) != 1:
                    continue
                a, addr = self.unwrap(inner[0]), True
            if a.kind != self.K.DECL_REF_EXPR:
                continue
            d = a.referenced
            if d is None or d.kind not in (self.K.PARM_DECL, self.K.VAR_DECL):
                continue
            name = d.spelling
            if self.text(*r) != ('&' + name if addr else name) and \
                    self.text(*r).replace(' ', '') != ('&' + name if addr else name):
                continue
            ty = d.type.get_canonical().spelling
            for other in scope:
                if other.spelling != name and other.type.get_canonical().spelling == ty:
                    self.add(func, 'call-argument', r[0], r[1],
                             ('&' if addr else '') + other.spelling)

    # --- the walk

    def function(self, f):
        func = f.spelling
        scope = [p for p in f.get_children() if p.kind == self.K.PARM_DECL]
        body = [k for k in f.get_children() if k.kind == self.K.COMPOUND_STMT]
        if body:
            self.walk(f, func, body[0], f, [scope])

    def walk(self, fdecl, func, c, parent, scopes):
        K = self.K
        if c.kind == K.COMPOUND_STMT:
            scopes = scopes + [[]]
        if parent.kind in (K.COMPOUND_STMT, K.IF_STMT, K.WHILE_STMT, K.FOR_STMT, K.DO_STMT,
                           K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT) and \
                c.kind != K.COMPOUND_STMT:
            self.statement(func, c, parent)
        kids = list(c.get_children())
        if c.kind == K.IF_STMT and kids:
            self.condition(func, kids[0])
        elif c.kind == K.WHILE_STMT and kids:
            self.condition(func, kids[0])
        elif c.kind == K.DO_STMT and len(kids) == 2:
            self.condition(func, kids[1])
        elif c.kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            self.condition(func, kids[0])
        elif c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            self.binary(func, c)
        elif c.kind == K.UNARY_OPERATOR:
            self.unary(func, c)
        elif c.kind == K.INTEGER_LITERAL:
            self.literal(func, c)
        elif c.kind == K.DECL_REF_EXPR:
            self.enum_ref(func, c)
        elif c.kind == K.RETURN_STMT:
            self.return_value(func, fdecl, c)
        elif c.kind == K.CALL_EXPR:
            self.call_args(func, c, [v for s in scopes for v in s])
        elif c.kind == K.VAR_DECL:
            scopes[-1].append(c)
        for k in kids:
            self.walk(fdecl, func, k, c, scopes)

    def run(self, region):
        """Mutants of the functions region() accepts, on the lines it returns."""
        for c in self.tu.cursor.get_children():
            if c.kind != self.K.FUNCTION_DECL or not c.is_definition() or not self.in_file(c):
                continue
            lines = region(c.spelling, c.extent.start.line, c.extent.end.line, self.lines)
            if not lines:
                continue
            first = len(self.out)
            self.function(c)
            self.out[first:] = [m for m in self.out[first:]
                                if self.data.count(b'\n', 0, m.start) + 1 in lines]
        # The constant macros of the reached lines, which the AST does not show.
        for s, e, c in self.macros:
            func = self.function_at(s)
            if func is None:
                continue
            name, fl, ll = func
            lines = region(name, fl, ll, self.lines)
            if lines and self.data.count(b'\n', 0, s) + 1 in lines and \
                    not any(ms < s and e <= me for ms, me, _ in self.macros):
                self.macro_neighbours(name, s, e, c)
        return self.finish()

    def function_at(self, off):
        if not hasattr(self, '_funcs'):
            self._funcs = [(c.extent.start.offset, c.extent.end.offset, c.spelling,
                            c.extent.start.line, c.extent.end.line)
                           for c in self.tu.cursor.get_children()
                           if c.kind == self.K.FUNCTION_DECL and c.is_definition() and
                           self.in_file(c)]
        for s, e, name, fl, ll in self._funcs:
            if s <= off < e:
                return name, fl, ll
        return None

    def finish(self):
        """Line numbers, texts, diffs and ids; the same mutated file only once."""
        seen, res = set(), []
        for m in self.out:
            new = self.data[:m.start] + m.text.encode() + self.data[m.end:]
            digest = hashlib.sha256(new).digest()
            if digest in seen:
                continue
            seen.add(digest)
            m.line = self.data.count(b'\n', 0, m.start) + 1
            m.last = self.data.count(b'\n', 0, max(m.start, m.end - 1)) + 1
            old_lines = self.lines[m.line - 1:m.last]
            new_lines = new.decode('utf-8', 'replace').split('\n')[m.line - 1:m.last]
            m.original = '\n'.join(old_lines)
            m.mutated = '\n'.join(new_lines)
            m.diff = ''.join(difflib.unified_diff(
                [l + '\n' for l in self.lines], [l + '\n' for l in
                                                new.decode('utf-8', 'replace').split('\n')],
                'a/' + m.file, 'b/' + m.file, n=3))
            m.id = mutant_id(m.file, m.line, m.operator, m.mutated)
            res.append(m)
        return res


def mutant_id(rel, line, op, mutated):
    """The mutant's key: file, line, operator and the mutated line(s), the same every run."""
    return hashlib.sha256(('%s\0%d\0%s\0%s' % (rel, line, op, mutated)).encode()).hexdigest()[:16]


def region_of(rel):
    """region(func, first, last, lines) for rel: the set of lines to mutate."""
    specs = dict(TARGETS)[rel]

    def region(func, first, last, text_lines):
        lines = set()
        for fre, sel in specs:
            if fre is not None and not re.fullmatch(fre, func):
                continue
            if sel is None:
                lines |= set(range(first, last + 1))
            elif isinstance(sel, tuple):
                lines |= case_lines(text_lines, first, last, sel)
            else:
                lines |= {n for n in range(first, last + 1) if re.search(sel, text_lines[n - 1])}
        return lines
    return region


def generate_file(root, build, rel, region=None):
    """The mutants of root/rel, parsed with the kernel's flags from build, on the lines
    region(function, first, last, lines) returns (default: rel's TARGETS)."""
    import clang.cindex as ci
    argv = kernel_command(build, rel)
    args = clang_args(rebase(argv, source_root(argv, rel), root, '/dev/null'))
    path = os.path.join(root, rel)
    with open(path, 'rb') as f:
        data = f.read()
    cwd = os.getcwd()
    os.chdir(build)
    try:
        tu = ci.Index.create().parse(path, args=args,
                                     options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    finally:
        os.chdir(cwd)
    errs = [d for d in tu.diagnostics if d.severity >= 3]
    if errs:
        die("cannot parse '%s': %s" % (rel, errs[0]))
    g = Generator(ci, tu, path, rel, data)
    return g.run(region or region_of(rel))


# ---------------------------------------------------------------- the store

SCHEMA = [
    # 1: mutants by key, the outcomes of each run, the runs.
    """
    CREATE TABLE mutants (
      id TEXT PRIMARY KEY,
      tree TEXT NOT NULL,
      file TEXT NOT NULL,
      line INTEGER NOT NULL,
      function TEXT NOT NULL,
      operator TEXT NOT NULL,
      original TEXT NOT NULL,
      mutated TEXT NOT NULL,
      diff TEXT NOT NULL,
      reached INTEGER,
      object TEXT,
      first_seen INTEGER NOT NULL,
      UNIQUE (tree, file, line, operator, mutated));
    CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      tree TEXT NOT NULL,
      started INTEGER NOT NULL,
      ended INTEGER,
      sample INTEGER,
      seed TEXT,
      coverage TEXT,
      version TEXT);
    CREATE TABLE outcomes (
      run_id INTEGER NOT NULL REFERENCES runs (id),
      mutant_id TEXT NOT NULL REFERENCES mutants (id),
      outcome TEXT NOT NULL CHECK (outcome IN
        ('equivalent', 'duplicate', 'unbuilt', 'killed', 'survived', 'error')),
      detail TEXT,
      seconds REAL,
      at INTEGER NOT NULL,
      PRIMARY KEY (run_id, mutant_id));
    CREATE INDEX outcomes_by_mutant ON outcomes (mutant_id, at);
    """,
    # 2: when a generation last gave the mutant: figures count the latest generation's
    # (a store of version 1 held one generation, its files stamped one by one).
    """
    ALTER TABLE mutants ADD COLUMN last_seen INTEGER;
    UPDATE mutants SET last_seen = (SELECT max(first_seen) FROM mutants m WHERE m.tree = mutants.tree);
    """,
    # 3: the setups whose coverage runs the mutant's lines, space-separated; NULL unknown.
    """
    ALTER TABLE mutants ADD COLUMN setups TEXT;
    """,
]


def open_db(path):
    try:
        db = sqlite3.connect(path, timeout=30)
        v = db.execute('PRAGMA user_version').fetchone()[0]
        for i in range(v, len(SCHEMA)):
            with db:
                db.executescript('BEGIN;' + SCHEMA[i] + 'PRAGMA user_version = %d;' % (i + 1))
    except sqlite3.DatabaseError as e:
        die("cannot open mutants database '%s': %s" % (path, e))
    db.execute('PRAGMA foreign_keys = ON')
    return db


# The latest generation's mutants of a tree, each with its latest outcome.
LATEST = """
    SELECT m.*, o.outcome, o.detail FROM mutants m LEFT JOIN outcomes o ON o.mutant_id = m.id
      AND o.rowid = (SELECT rowid FROM outcomes WHERE mutant_id = m.id ORDER BY at DESC, rowid DESC
                     LIMIT 1)
    WHERE m.tree = ?1 AND m.last_seen = (SELECT max(last_seen) FROM mutants WHERE tree = ?1)"""


# ---------------------------------------------------------------- commands

def snapshot(tree, commit, work):
    """<work>/src: the files of commit the compiler reads, taken from git."""
    src = os.path.join(work, 'src')
    if os.path.isdir(os.path.join(src, 'arch')):
        return src
    os.makedirs(src, exist_ok=True)
    arch = subprocess.Popen(['git', '-C', tree, 'archive', commit, 'arch/x86', 'include'],
                            stdout=subprocess.PIPE)
    tar = subprocess.run(['tar', '-x', '-C', src], stdin=arch.stdout)
    if arch.wait() != 0 or tar.returncode != 0:
        die("cannot take commit '%s' out of '%s'" % (commit, tree))
    return src


def cmd_pristine(a):
    """From a pristine run's results.json: <work>/pristine ("commit version") and
    <work>/setups.fsave, setups.other (`--cpu S` words, in the run's order)."""
    try:
        with open(a.results) as f:
            cells = json.load(f)
        commit, version = cells[0]['commit'], cells[0]['kernel_version']
        groups = {'fsave': [], 'other': []}
        for c in cells:
            g = groups['fsave' if c.get('fpu_mode') == 'FSAVE' else 'other']
            setup = c['cpu'] + (':' + c['cmdline'] if c.get('cmdline') else '')
            if setup not in g and setup not in groups['fsave'] + groups['other']:
                g.append(setup)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        die("cannot read the pristine run's '%s': %s" % (a.results, e))
    with open(os.path.join(a.work, 'pristine'), 'w') as f:
        f.write('%s %s\n' % (commit, version))
    for name, setups in groups.items():
        with open(os.path.join(a.work, 'setups.' + name), 'w') as f:
            f.write(' '.join('--cpu ' + s for s in setups))


def runs_near(das, first, last):
    """Whether a setup runs a mutant on lines first..last: reached(), or a counted DA line
    within NEAR lines of it.  gcov pins an optimised condition's code on a neighbour (on
    pentium3 `if (cr4_mask)` counts 0 and the cr4_set_bits() below it 2), so the exact line
    alone would leave out a setup that runs it; booting one setup too many only costs time."""
    return reached(das, first, last) or \
        any(das.get(n, 0) > 0 for n in range(first - NEAR, last + NEAR + 1))


NEAR = 3


def store_mutants(db, commit, ms, das, now=None, per_setup=None):
    """Adds the mutants of one file (known ones keep their outcomes), marks them seen
    by the generation of time `now` and sets whether each is reached (das: the file's
    coverage, {} for none of it run, None for no data: what an earlier coverage said
    stays) and on which setups (per_setup: {setup: the file's coverage on it}, or
    None); returns how many are reached."""
    now, n = int(time.time()) if now is None else now, 0
    with db:
        for m in ms:
            r = None if das is None else int(reached(das, m.line, m.last))
            n += r or 0
            on = None if not per_setup else \
                ' '.join(k for k, d in per_setup.items() if runs_near(d, m.line, m.last))
            db.execute('INSERT INTO mutants (id, tree, file, line, function, operator, original,'
                       ' mutated, diff, reached, first_seen, last_seen, setups)'
                       ' VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE'
                       ' SET last_seen = excluded.last_seen,'
                       ' reached = coalesce(excluded.reached, reached),'
                       ' setups = coalesce(excluded.setups, setups)',
                       (m.id, commit, m.file, m.line, m.function, m.operator, m.original,
                        m.mutated, m.diff, r, now, now, on))
    return n


def setup_file(setup):
    """The name of a setup's tracefile beside fsave.info: `pentium2,-fxsr` is
    pentium2_-fxsr.info, `pentium3:nofxsr` pentium3_nofxsr.info."""
    return re.sub(r'[,:/ ]', '_', setup) + '.info'


def group_setups(work):
    """{group: [setup]} of the pristine run (cmd_pristine's files), or {}."""
    res = {}
    for g in ('fsave', 'other'):
        try:
            with open(os.path.join(work, 'setups.' + g)) as f:
                res[g] = f.read().split()[1::2]
        except OSError:
            pass
    return res


def cmd_generate(a):
    src = snapshot(a.tree, a.commit, a.work)
    cov = read_lcov(a.coverage) if a.coverage else None
    # Each setup's own tracefile, if the coverage directory has one for every setup.
    setups = [x for g in group_setups(a.work).values() for x in g]
    files = [os.path.join(os.path.dirname(a.coverage), setup_file(x)) for x in setups] \
        if a.coverage else []
    covs = {x: read_lcov(f) for x, f in zip(setups, files)} \
        if files and all(os.path.exists(f) for f in files) else {}
    db = open_db(a.db)
    total = nreached = 0
    per_file = []
    now = int(time.time())
    for rel, _ in TARGETS:
        das = None if cov is None else (lines_for(cov, rel) or {})
        ms = generate_file(src, a.build, rel)
        per_setup = {x: lines_for(c, rel) or {} for x, c in covs.items()}
        nreached += store_mutants(db, a.commit, ms, das, now, per_setup)
        total += len(ms)
        per_file.append('%s %d' % (rel.replace('arch/x86/kernel/', ''), len(ms)))
    if cov is None:
        print('mutants: generated %d over every line of the x87 code (no coverage given: '
              'COVERAGE=DIR/fsave.info restricts them to the lines the FSAVE setups run): %s'
              % (total, ', '.join(per_file)))
    else:
        print('mutants: generated %d, %d on lines the FSAVE setups run (%s; %s): %s'
              % (total, nreached, a.coverage,
                 'each booted only on the setups whose tracefile runs its lines' if covs else
                 'no tracefile for each setup beside it: booted on every setup',
                 ', '.join(per_file)))


def cmd_pick(a):
    db = open_db(a.db)
    rows = db.execute('SELECT id, reached, outcome FROM (' + LATEST + ') ORDER BY id', (a.commit,))
    todo = [i for i, reached, outcome in rows if reached != 0 and
            (outcome is None or a.retest == 'all' or
             (a.retest == 'survived' and outcome in ('survived', 'error')))]
    if a.ids:
        try:
            with open(a.ids) as f:
                want = [l.split()[0] for l in f if l.strip() and not l.startswith('#')]
        except OSError as e:
            die("cannot read '%s': %s" % (a.ids, e.strerror))
        missing = [i for i in want if i not in todo]
        if missing:
            die("'%s': %s not among the mutants to pick" % (a.ids, ', '.join(missing)))
        todo = want
    if a.sample is not None:
        random.Random(a.seed).shuffle(todo)
        todo = sorted(todo[:a.sample])
    print('\n'.join(todo))


def cmd_compile(a):
    db = open_db(a.db)
    row = db.execute('SELECT file, diff, tree, setups FROM mutants WHERE id = ?',
                     (a.id,)).fetchone()
    if row is None:
        die("no mutant '%s'" % a.id)
    rel, diff, tree, on = row
    src = os.path.join(a.work, 'src')
    path = os.path.join(src, rel)
    argv = kernel_command(a.build, rel)
    objdir = os.path.join(a.work, 'obj')
    os.makedirs(objdir, exist_ok=True)
    pristine_obj = os.path.join(objdir, rel.replace('/', '_') + '.o')
    if not os.path.exists(pristine_obj):
        ok, msg = compile_object(rebase(argv, source_root(argv, rel), src, pristine_obj),
                                 a.build)
        if not ok:
            die("the pristine '%s' does not build: %s" % (rel, msg))
    with open(path, 'rb') as f:
        pristine = f.read()
    mutated = apply_diff(pristine, diff)
    obj = os.path.join(objdir, 'mutant.o')
    try:
        with open(path, 'wb') as f:
            f.write(mutated)
        ok, msg = compile_object(rebase(argv, source_root(argv, rel), src, obj), a.build)
    finally:
        with open(path, 'wb') as f:
            f.write(pristine)
    if not ok:
        print('unbuilt ' + msg)
        return
    digest = sections_digest(obj)
    with db:
        db.execute('UPDATE mutants SET object = ? WHERE id = ?', (digest, a.id))
    if digest == sections_digest(pristine_obj):
        print('equivalent')
        return
    same = db.execute('SELECT id FROM mutants WHERE object = ? AND id != ? AND tree = ? AND id IN'
                      ' (SELECT mutant_id FROM outcomes WHERE outcome IN ("killed", "survived"))'
                      ' ORDER BY id LIMIT 1', (digest, a.id, tree)).fetchone()
    if same:
        print('duplicate ' + same[0])
        return
    patch = os.path.join(a.work, a.id + '.patch')
    with open(patch, 'w') as f:
        f.write('# generated: %s\n%s' % (a.id, diff))
    # The setups of each group to boot it on: those whose coverage runs its lines.
    for g, setups in group_setups(a.work).items():
        with open(os.path.join(a.work, '%s.%s' % (a.id, g)), 'w') as f:
            f.write(' '.join('--cpu ' + x for x in setups if on is None or x in on.split()))
    print('patch ' + patch)


def apply_diff(pristine, diff):
    """The file a mutant's diff (one hunk) makes of pristine."""
    lines = pristine.decode('utf-8', 'replace').split('\n')
    hunk = re.search(r'^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@.*\n', diff, re.M)
    at = int(hunk.group(1)) - 1
    old, new = [], []
    for l in diff[hunk.end():].split('\n'):
        if l.startswith('-'):
            old.append(l[1:])
        elif l.startswith('+'):
            new.append(l[1:])
        elif l.startswith(' '):
            old.append(l[1:])
            new.append(l[1:])
    if lines[at:at + len(old)] != old:
        die('the mutant does not apply to the snapshot')
    return '\n'.join(lines[:at] + new + lines[at + len(old):]).encode()


def cmd_begin(a):
    db = open_db(a.db)
    with db:
        cur = db.execute('INSERT INTO runs (tree, started, sample, seed, coverage, version) '
                         'VALUES (?,?,?,?,?,?)', (a.commit, int(time.time()), a.sample, a.seed,
                                                  a.coverage, a.version))
    print(cur.lastrowid)


def cmd_end(a):
    db = open_db(a.db)
    with db:
        db.execute('UPDATE runs SET ended = ? WHERE id = ?', (int(time.time()), a.run))


def cmd_record(a):
    if a.outcome not in OUTCOMES:
        die("unknown outcome '%s'" % a.outcome)
    db = open_db(a.db)
    with db:
        db.execute('INSERT OR REPLACE INTO outcomes (run_id, mutant_id, outcome, detail, seconds, at)'
                   ' VALUES (?,?,?,?,?,?)', (a.run, a.id, a.outcome, a.detail, a.seconds,
                                             int(time.time())))


EXPLAINED = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'mutants',
                         'explained')


def explained_key(rel, function, operator, original, mutated, nth=1):
    """What an explanation names: no line number, whitespace folded, so it outlives moves;
    nth tells apart the same change of the same text at two places of one function."""
    return (rel, function, operator, ' '.join(original.split()), ' '.join(mutated.split()), nth)


def read_explained(path):
    """{key: reason} from an explanations file (tests/mutants/README.md, "Explained")."""
    out, block, start = {}, [], 0

    def close():
        if not block:
            return
        head = block[0][1].split()
        nth = 1
        if len(head) == 4 and re.fullmatch(r'@[1-9][0-9]*', head[3]):
            nth = int(head.pop()[1:])
        minus = [t[1:] for n, t in block[1:] if t.startswith('-')]
        plus = [t[1:] for n, t in block[1:] if t.startswith('+')]
        why = ' '.join(t[4:].strip() for n, t in block[1:] if t.startswith('why:'))
        if len(head) != 3 or not head[1].endswith('()') or not minus or not why or \
                len(minus) + len(plus) + sum(t.startswith('why:') for n, t in block) != \
                len(block) - 1:
            die("%s:%d: an explanation is 'FILE FUNCTION() OPERATOR [@N]', '-' lines, '+' lines "
                "and 'why:' lines" % (path, block[0][0]), 128)
        key = explained_key(head[0], head[1][:-2], head[2], '\n'.join(minus), '\n'.join(plus),
                            nth)
        if key in out:
            die("%s:%d: a second explanation of the same mutant" % (path, block[0][0]), 128)
        out[key] = why

    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip('\n')
                if line.startswith('#'):
                    continue
                if not line.strip():
                    close()
                    block = []
                else:
                    block.append((n, line))
    except OSError as e:
        die("cannot read '%s': %s" % (path, e.strerror), 128)
    close()
    return out


def row_keys(rows):
    """Sets each row's 'key' (explained_key()), counting equal changes in line order."""
    seen = {}
    for r in sorted(rows, key=lambda r: (r['file'], r['line'], r['id'])):
        base = explained_key(r['file'], r['function'], r['operator'], r['original'],
                             r['mutated'])[:-1]
        seen[base] = seen.get(base, 0) + 1
        r['key'] = base + (seen[base],)


def explain(rows, explanations):
    """Marks each row with its explanation ('why'), or None."""
    row_keys(rows)
    for r in rows:
        r['why'] = explanations.get(r['key'])


def figures(rows):
    """The counts of a set of latest rows (dicts); an explained survivor is not a survivor."""
    f = dict(generated=len(rows), unreached=0, untested=0, equivalent=0, duplicate=0,
             unbuilt=0, killed=0, survived=0, explained=0, error=0)
    for r in rows:
        if r['reached'] == 0:
            f['unreached'] += 1
        elif r['outcome'] is None:
            f['untested'] += 1
        elif r['outcome'] == 'survived' and r.get('why'):
            f['explained'] += 1
        else:
            f[r['outcome']] += 1
    judged = f['killed'] + f['survived']
    f['score'] = 100.0 * f['killed'] / judged if judged else None
    return f


COLUMNS = ('generated', 'unreached', 'untested', 'equivalent', 'duplicate', 'unbuilt',
           'killed', 'survived', 'explained', 'error')


def cmd_report(a):
    db = open_db(a.db)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute(LATEST, (a.commit,))]
    if not rows:
        die("no mutants of commit '%s' in '%s'" % (a.commit, a.db))
    explanations = read_explained(a.explained)
    explain(rows, explanations)
    cov = 'lines the FSAVE setups run' if any(r['reached'] is not None for r in rows) else \
        'every line (no coverage data: none counted as not reached)'
    groups = [('all', rows)]
    for rel in sorted({r['file'] for r in rows}):
        fr = [r for r in rows if r['file'] == rel]
        groups.append((rel, fr))
        for fn in sorted({r['function'] for r in fr}):
            groups.append(('  ' + fn + '()', [r for r in fr if r['function'] == fn]))
    # Which kinds of change the suite misses.
    for op in sorted({r['operator'] for r in rows}):
        groups.append(('operator ' + op, [r for r in rows if r['operator'] == op]))
    out = ['mutation score on %s; score = killed / (killed + survived), explained survivors '
           'left out' % cov,
           '%-44s %s %6s' % ('', ' '.join('%10s' % c for c in COLUMNS), 'score')]
    for name, rs in groups:
        f = figures(rs)
        if name.startswith('  ') and f['killed'] + f['survived'] + f['equivalent'] + \
                f['unbuilt'] + f['duplicate'] == 0:
            continue
        out.append('%-44s %s %6s' % (name[:44], ' '.join('%10d' % f[c] for c in COLUMNS),
                                     '-' if f['score'] is None else '%.1f%%' % f['score']))
    order = dict(key=lambda r: (r['file'], r['line'], r['id']))
    surv = sorted((r for r in rows if r['outcome'] == 'survived' and not r['why']), **order)
    expl = sorted((r for r in rows if r['outcome'] == 'survived' and r['why']), **order)
    # An explanation of a killed mutant is wrong: a test saw what it says nobody can.
    wrong = sorted((r for r in rows if r['outcome'] == 'killed' and r['why']), **order)
    for title, rs, why in (('survivors', surv, False), ('explained', expl, True),
                           ('explained, yet killed: the explanation is wrong', wrong, True)):
        if not rs and why:
            continue
        out.append('')
        out.append('%s (%d):' % (title, len(rs)))
        for r in rs:
            out.append('  %s %s:%d %s() %s: %s' % (r['id'], r['file'], r['line'], r['function'],
                                                  r['operator'],
                                                  ' '.join(r['mutated'].split())[:80]))
            if why:
                out.append('      why: ' + r['why'])
    seen = {r['key'] for r in rows}
    unused = len(set(explanations) - seen)
    if unused:
        out.append('')
        out.append('%d explanations name no mutant of this tree (another version\'s code)' % unused)
    print('\n'.join(out))
    if a.html:
        write_html(a.html, groups, surv + expl + wrong, cov, a.coverage_html)


def coverage_link(html_dir, page_from, rel, line=None):
    """The URL of genhtml's page of rel (the FSAVE setups' one), at line; None without pages."""
    if not html_dir:
        return None
    page = os.path.join(html_dir, 'fsave', rel + '.gcov.html')
    if not os.path.isfile(page):
        return None
    url = os.path.relpath(page, os.path.dirname(os.path.abspath(page_from)))
    return url + ('#%d' % line if line else '')


def write_html(path, groups, surv, cov, html_dir=None):
    import html
    e = html.escape

    def linked(text, rel, line=None):
        url = coverage_link(html_dir, path, rel, line)
        return '<a href="%s">%s</a>' % (e(url), text) if url else text
    h = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>fpubench: generated mutants'
         '</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}'
         'td:first-child{text-align:left}pre{background:#f4f4f4;padding:4px}</style></head><body>',
         '<h1>Generated mutants</h1><p>Mutation score on %s.</p><table><tr><th></th>' % e(cov)]
    h += ['<th>%s</th>' % c for c in COLUMNS] + ['<th>score</th></tr>']
    for name, rs in groups:
        f = figures(rs)
        cell = e(name).replace(' ', '&nbsp;')
        h.append('<tr><td>%s</td>%s<td>%s</td></tr>' % (
            linked(cell, name) if rs and name == rs[0]['file'] else cell,
            ''.join('<td>%d</td>' % f[c] for c in COLUMNS),
            '-' if f['score'] is None else '%.1f %%' % f['score']))
    h.append('</table><h2>Survivors and explained ones (%d)</h2>' % len(surv))
    for r in surv:
        h.append('<h3 id="%s">%s %s() %s%s</h3>%s<pre>%s</pre>' % (
            e(r['id']), linked('%s:%d' % (e(r['file']), r['line']), r['file'], r['line']),
            e(r['function']), e(r['operator']),
            ' (explained)' if r['why'] else '',
            '<p>%s</p>' % e(r['why']) if r['why'] else '', e(r['diff'])))
    h.append('</body></html>')
    with open(path, 'w') as f:
        f.write('\n'.join(h))


def cmd_list(a):
    for rel in a.files:
        for m in generate_file(a.tree, a.build, rel, region=lambda *x: set(range(x[1], x[2] + 1))):
            print(json.dumps(dict(id=m.id, file=m.file, line=m.line, function=m.function,
                                  operator=m.operator, original=m.original, mutated=m.mutated)))


def main():
    p = argparse.ArgumentParser(prog='mutants-gen.py')
    sub = p.add_subparsers(dest='cmd', required=True)
    g = sub.add_parser('generate')
    for o in ('--db', '--tree', '--commit', '--build', '--work'):
        g.add_argument(o, required=True)
    g.add_argument('--coverage')
    k = sub.add_parser('pick')
    k.add_argument('--db', required=True)
    k.add_argument('--commit', required=True)
    k.add_argument('--sample', type=int)
    k.add_argument('--seed', default='0')
    k.add_argument('--retest', choices=('survived', 'all'))
    k.add_argument('--ids')
    c = sub.add_parser('compile')
    for o in ('--db', '--build', '--work'):
        c.add_argument(o, required=True)
    c.add_argument('id')
    b = sub.add_parser('begin')
    b.add_argument('--db', required=True)
    b.add_argument('--commit', required=True)
    b.add_argument('--sample', type=int)
    b.add_argument('--seed')
    b.add_argument('--coverage')
    b.add_argument('--version')
    n = sub.add_parser('end')
    n.add_argument('--db', required=True)
    n.add_argument('--run', type=int, required=True)
    r = sub.add_parser('record')
    r.add_argument('--db', required=True)
    r.add_argument('--run', type=int, required=True)
    r.add_argument('--detail')
    r.add_argument('--seconds', type=float)
    r.add_argument('id')
    r.add_argument('outcome')
    t = sub.add_parser('report')
    t.add_argument('--db', required=True)
    t.add_argument('--commit', required=True)
    t.add_argument('--html')
    t.add_argument('--explained', default=EXPLAINED)
    t.add_argument('--coverage-html')
    pr = sub.add_parser('pristine')
    pr.add_argument('results')
    pr.add_argument('work')
    li = sub.add_parser('list')
    li.add_argument('--tree', required=True)
    li.add_argument('--build', required=True)
    li.add_argument('files', nargs='+')
    a = p.parse_args()
    {'pristine': cmd_pristine, 'generate': cmd_generate, 'pick': cmd_pick, 'compile': cmd_compile, 'begin': cmd_begin,
     'end': cmd_end, 'record': cmd_record, 'report': cmd_report, 'list': cmd_list}[a.cmd](a)


if __name__ == '__main__':
    main()
