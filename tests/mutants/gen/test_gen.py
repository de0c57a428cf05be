#!/usr/bin/python3
"""test_gen.py: scripts/mutants-gen.py on a small real C file (`make mutants-unit`).

fixture.c holds five functions of the 6.1 tree (its header says which and from
where); it is built as a kernel object would be, from a `.fixture.o.cmd` file
in a build directory, with the host's gcc -m32.  results.json is the first
cell of each setup of a real `fpubench test` run of the 6.1 `patched` kernel
(2026-12-06, run 20261206-133113-15260), cut to the fields the script reads
and a few more.  The tests check that every
operator class gives the mutants expected of it and none inside a macro's
arguments, that every mutant keeps the lines where they were, that the
object-code check drops real equivalent mutants and only those, and that the
store keeps one row per mutant across runs and picks only unjudged ones.
"""

import importlib.util
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GEN = os.path.join(TOP, 'scripts', 'mutants-gen.py')

spec = importlib.util.spec_from_file_location('mutants_gen', GEN)
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

REL = 'fixture.c'
COMMIT = 'f' * 40


def everything(func, first, last, lines):
    return set(range(first, last + 1))


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='mutants-gen-test.')
        cls.work = cls.tmp
        cls.src = os.path.join(cls.tmp, 'src')
        cls.build = os.path.join(cls.tmp, 'build')
        os.makedirs(cls.src)
        os.makedirs(cls.build)
        for f in ('fixture.c', 'stubs.h'):
            shutil.copy(os.path.join(HERE, f), cls.src)
        # As kbuild writes it: the command, then what make needs to rebuild.
        with open(os.path.join(cls.build, '.fixture.o.cmd'), 'w') as f:
            f.write('cmd_fixture.o := gcc -Wp,-MMD,./.fixture.o.d -nostdinc -I%s -m32 -Os '
                    '-fno-pic -fno-asynchronous-unwind-tables -Wall -Werror=implicit-int '
                    '-c -o fixture.o %s/fixture.c\n\nsource_fixture.o := %s/fixture.c\n'
                    % (cls.src, cls.src, cls.src))
        # The pristine run's setups, as mutants.sh has the script write them.
        subprocess.run([GEN, 'pristine', os.path.join(HERE, 'results.json'), cls.work],
                       check=True)
        cls.mutants = gen.generate_file(cls.src, cls.build, REL, region=everything)
        with open(os.path.join(cls.src, REL)) as f:
            cls.text = f.read()
        cls.db_path = os.path.join(cls.tmp, 'mutants.db')
        gen.store_mutants(gen.open_db(cls.db_path), COMMIT, cls.mutants, None)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def find(self, op, original, mutated):
        """The first mutant of op that turns a line `original` into `mutated` (stripped;
        the fixture has some lines twice)."""
        hits = [m for m in self.mutants if m.operator == op and
                m.original.strip() == original and m.mutated.strip() == mutated]
        self.assertTrue(hits, '%s: %r -> %r; %s has: %s' % (
            op, original, mutated, op, [(m.original.strip(), m.mutated.strip())
                                        for m in self.mutants if m.operator == op]))
        return hits[0]

    # --- the operators

    def test_statement_delete(self):
        self.find('statement-delete', 'frstor(&fpu->fpstate->regs.fsave);', '')
        self.find('statement-delete',
                  'asm volatile("fnsave %[fp]; fwait" : [fp] "=m" (fpu->fpstate->regs.fsave));',
                  '')
        self.find('statement-delete', 'fpu_force_restore(fpu);', '')
        self.find('statement-delete', 'return;', '')
        # The only statement of an if keeps an empty one.
        self.find('statement-delete', 'tag = FP_EXP_TAG_EMPTY;', '')
        self.find('statement-delete', 'tag = FP_EXP_TAG_ZERO;', ';')
        # Declarations are not statements to delete.
        self.assertFalse([m for m in self.mutants if m.operator == 'statement-delete' and
                          m.original.strip().startswith('u32 ')])

    def test_conditions(self):
        self.find('condition-negate', 'if (twd & 0x1) {', 'if (!(twd & 0x1)) {')
        self.find('condition-true', 'if (twd & 0x1) {', 'if (1) {')
        self.find('condition-false', 'if (twd & 0x1) {', 'if (0) {')
        # A whole macro call is a condition; a negated one is inverted, not negated twice.
        self.find('condition-negate', 'if (likely(use_xsave())) {', 'if (!(likely(use_xsave()))) {')
        self.find('unary-drop', 'if (!cpu_feature_enabled(X86_FEATURE_FXSR))',
                  'if (cpu_feature_enabled(X86_FEATURE_FXSR))')
        self.assertFalse([m for m in self.mutants if m.operator == 'condition-negate' and
                          m.original.strip().startswith('if (!cpu_feature_enabled')])
        # A condition over four lines is negated as a whole.
        self.assertTrue([m for m in self.mutants if m.operator == 'condition-negate' and
                         m.mutated.strip().startswith('if (!(!st->significand[0] &&') and
                         m.mutated.endswith('!st->significand[3]))')])

    def test_relational(self):
        self.find('relational', 'for (i = 0; i < 8; i++, twd >>= 1) {',
                  'for (i = 0; i <= 8; i++, twd >>= 1) {')
        self.find('relational', 'for (i = 0; i < 8; i++, twd >>= 1) {',
                  'for (i = 0; i > 8; i++, twd >>= 1) {')
        self.find('relational', 'if (pos != 0 || count != sizeof(newstate))',
                  'if (pos == 0 || count != sizeof(newstate))')

    def test_arithmetic_and_shift(self):
        self.find('arithmetic', 'ret |= tag << (2 * i);', 'ret |= tag << (2 / i);')
        self.find('shift', 'tmp = (tmp | (tmp>>1)) & 0x5555; /* 0V0V0V0V0V0V0V0V */',
                  'tmp = (tmp | (tmp<<1)) & 0x5555; /* 0V0V0V0V0V0V0V0V */')
        self.find('assignment', 'for (i = 0; i < 8; i++, twd >>= 1) {',
                  'for (i = 0; i < 8; i++, twd <<= 1) {')
        self.find('assignment', 'ret |= tag << (2 * i);', 'ret &= tag << (2 * i);')
        self.find('increment', 'for (i = 0; i < 8; i++, twd >>= 1) {',
                  'for (i = 0; i < 8; i--, twd >>= 1) {')

    def test_bitwise(self):
        line = 'tmp = (tmp | (tmp >> 2)) & 0x0f0f; /* 0000VVVV0000VVVV */'
        self.find('bitwise', line, 'tmp = (tmp & (tmp >> 2)) & 0x0f0f; /* 0000VVVV0000VVVV */')
        # Dropping either operand of & and of |.
        self.find('bitwise-drop', line, 'tmp = (tmp | (tmp >> 2)); /* 0000VVVV0000VVVV */')
        self.find('bitwise-drop', line, 'tmp = 0x0f0f; /* 0000VVVV0000VVVV */')
        self.find('bitwise-drop', line, 'tmp = (tmp) & 0x0f0f; /* 0000VVVV0000VVVV */')
        self.find('bitwise-drop', line, 'tmp = ((tmp >> 2)) & 0x0f0f; /* 0000VVVV0000VVVV */')
        self.find('unary-drop', 'tmp = ~twd;', 'tmp = twd;')

    def test_logical(self):
        line = 'if (pos != 0 || count != sizeof(newstate))'
        self.find('logical', line, 'if (pos != 0 && count != sizeof(newstate))')
        self.find('logical-drop', line, 'if (pos != 0)')
        self.find('logical-drop', line, 'if (count != sizeof(newstate))')

    def test_constants(self):
        self.find('constant', 'tmp = (tmp | (tmp>>1)) & 0x5555; /* 0V0V0V0V0V0V0V0V */',
                  'tmp = (tmp | (tmp>>1)) & 0x5556; /* 0V0V0V0V0V0V0V0V */')
        self.find('constant', 'tmp = (tmp | (tmp>>1)) & 0x5555; /* 0V0V0V0V0V0V0V0V */',
                  'tmp = (tmp | (tmp>>1)) & 0x5554; /* 0V0V0V0V0V0V0V0V */')
        # The width and the suffix stay.
        self.find('constant', 'u32 ret = 0xffff0000u;', 'u32 ret = 0xffff0001u;')
        self.find('constant', 'case 0x0000:', 'case 0x0001:')
        self.find('constant', 'for (i = 0; i < 8; i++, twd >>= 1) {',
                  'for (i = 0; i < 7; i++, twd >>= 1) {')

    def test_neighbours(self):
        # Object-like macros, by their order in the defining file and their prefix.
        self.find('constant-neighbour', 'if (!cpu_feature_enabled(X86_FEATURE_FXSR))',
                  'if (!cpu_feature_enabled(X86_FEATURE_MMX))')
        self.find('constant-neighbour', 'if (!cpu_feature_enabled(X86_FEATURE_FXSR))',
                  'if (!cpu_feature_enabled(X86_FEATURE_XMM))')
        self.find('constant-neighbour', 'tag = FP_EXP_TAG_ZERO;', 'tag = FP_EXP_TAG_VALID;')
        self.find('constant-neighbour', 'tag = FP_EXP_TAG_ZERO;', 'tag = FP_EXP_TAG_SPECIAL;')
        self.find('constant-neighbour', 'return -ENODEV;', 'return -ENOTDIR;')
        # Enumerators, by their order in the enum.
        self.find('constant-neighbour', 'copy_xstate_to_uabi_buf(to, target, XSTATE_COPY_FX);',
                  'copy_xstate_to_uabi_buf(to, target, XSTATE_COPY_FP);')
        self.find('constant-neighbour', 'copy_xstate_to_uabi_buf(to, target, XSTATE_COPY_FX);',
                  'copy_xstate_to_uabi_buf(to, target, XSTATE_COPY_XSAVE);')

    def test_return_values(self):
        self.find('return-value', 'return ret;', 'return 0;')
        self.find('return-value', 'return -ENODEV;', 'return 0;')
        self.find('return-value', 'return 0;', 'return -1;')

    def test_call_arguments(self):
        line = 'ret = user_regset_copyin(&pos, &count, &kbuf, &ubuf, &newstate, 0, -1);'
        self.find('call-argument', line,
                  'ret = user_regset_copyin(&count, &count, &kbuf, &ubuf, &newstate, 0, -1);')
        self.find('call-argument', line,
                  'ret = user_regset_copyin(&pos, &pos, &kbuf, &ubuf, &newstate, 0, -1);')
        self.find('call-argument', line,
                  'ret = user_regset_copyin(&pos, &count, &ubuf, &ubuf, &newstate, 0, -1);')
        # fpu has no other variable of its type in scope; target's type differs.
        self.assertFalse([m for m in self.mutants if m.operator == 'call-argument' and
                          'sync_fpstate(' in m.original])

    def test_no_mutant_inside_macro_arguments(self):
        # FPREG_ADDR(fxsave, (i - tos) & 7): its arguments are the macro's.
        for m in self.mutants:
            if 'FPREG_ADDR' in m.original:
                self.assertIn(m.operator, ('statement-delete',), m.mutated)

    def test_lines_stay(self):
        n = self.text.count('\n')
        for m in self.mutants:
            new = gen.apply_diff(self.text.encode(), m.diff).decode()
            self.assertEqual(new.count('\n'), n, m.mutated)
            self.assertEqual(new.split('\n')[m.line - 1:m.last], m.mutated.split('\n'))

    def test_ids_stable_and_unique(self):
        again = gen.generate_file(self.src, self.build, REL, region=everything)
        self.assertEqual([m.id for m in again], [m.id for m in self.mutants])
        self.assertEqual(len({m.id for m in self.mutants}), len(self.mutants))

    # --- the object-code check, through the command line

    def compile(self, mid):
        out = subprocess.run([GEN, 'compile', '--db', self.db_path, '--build', self.build,
                              '--work', self.work, mid], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout.strip()

    def add(self, line, old, new):
        """A mutant made by hand: `old` replaced by `new` on the line `line`."""
        lines = self.text.split('\n')
        i = [k for k, l in enumerate(lines) if l.strip() == line]
        self.assertEqual(len(i), 1, line)
        s = sum(len(l) + 1 for l in lines[:i[0]]) + lines[i[0]].index(old)
        m = gen.Mutant()
        m.file, m.function, m.operator = REL, 'hand', 'hand'
        m.start, m.end, m.text = s, s + len(old), new
        g = gen.Generator.__new__(gen.Generator)
        g.data, g.lines, g.rel, g.out = self.text.encode(), self.text.split('\n'), REL, [m]
        m = g.finish()[0]
        gen.store_mutants(gen.open_db(self.db_path), COMMIT, [m], None)
        return m.id

    def test_equivalent_by_object_code(self):
        # The last `break;` of a switch changes nothing.
        tail = [m for m in self.mutants if m.operator == 'statement-delete' and
                m.original.strip() == 'break;']
        self.assertEqual(self.compile(tail[-1].id), 'equivalent')
        # Nor does swapping the operands of a commutative *.
        self.assertEqual(self.compile(self.add('ret |= tag << (2 * i);', '2 * i', 'i * 2')),
                         'equivalent')

    def test_not_equivalent(self):
        m = self.find('constant', 'tmp = (tmp | (tmp>>1)) & 0x5555; /* 0V0V0V0V0V0V0V0V */',
                      'tmp = (tmp | (tmp>>1)) & 0x5556; /* 0V0V0V0V0V0V0V0V */')
        out = self.compile(m.id)
        self.assertTrue(out.startswith('patch '), out)
        with open(out[6:]) as f:
            patch = f.read()
        self.assertIn('--- a/fixture.c', patch)
        self.assertIn('+\ttmp = (tmp | (tmp>>1)) & 0x5556;', patch)
        # The snapshot is pristine again.
        with open(os.path.join(self.src, REL)) as f:
            self.assertEqual(f.read(), self.text)
        # A call to another function with the same arguments differs only in a relocation.
        mid = self.add('fpu_force_restore(fpu);', 'fpu_force_restore', 'sync_fpstate')
        self.assertTrue(self.compile(mid).startswith('patch '))

    def test_unbuilt_and_duplicate(self):
        mid = self.add('tmp = ~twd;', '~twd', '~target')
        self.assertTrue(self.compile(mid).startswith('unbuilt '))
        # Two spellings of one change: the second is a duplicate of the first once judged.
        first = self.add('u32 ret = 0xffff0000u;', '0xffff0000u', '0xffff0001u')
        second = self.add('u32 ret = 0xffff0000u;', '0xffff0000u', '4294901761u')
        self.assertTrue(self.compile(first).startswith('patch '))
        db = gen.open_db(self.db_path)
        with db:
            run = db.execute("INSERT INTO runs (tree, started) VALUES (?, 0)", (COMMIT,)).lastrowid
            db.execute("INSERT INTO outcomes VALUES (?, ?, 'killed', 'fpu_x', 1, 0)", (run, first))
        self.assertEqual(self.compile(second), 'duplicate ' + first)

    def test_setups_from_coverage(self):
        with open(os.path.join(self.work, 'pristine')) as f:
            self.assertEqual(f.read(), '166dc8847b30c861441633c8e318147943c22bbe 6.1.192\n')
        with open(os.path.join(self.work, 'setups.fsave')) as f:
            self.assertEqual(f.read(), '--cpu 486 --cpu pentium --cpu pentium2,-fxsr '
                             '--cpu qemu32,-sse,-sse2,-fxsr --cpu pentium3:nofxsr')
        with open(os.path.join(self.work, 'setups.other')) as f:
            self.assertEqual(f.read(), '--cpu pentium3 --cpu qemu32')
        self.assertEqual(gen.setup_file('qemu32,-sse,-sse2,-fxsr'), 'qemu32_-sse_-sse2_-fxsr.info')
        self.assertEqual(gen.setup_file('pentium3:nofxsr'), 'pentium3_nofxsr.info')
        # A mutant whose line runs on the 486 and pentium3 only boots on those.
        mid = self.add('tmp = ~twd;', '~twd', 'twd ^ 1')
        m = [x for x in gen.generate_file(self.src, self.build, REL, region=everything)
             if x.original.strip() == 'tmp = ~twd;' and x.operator == 'unary-drop'][0]
        line = {m.line: 2}
        per = {x: (line if x in ('486', 'pentium3') else {m.line: 0}) for x in
               ('486', 'pentium', 'pentium2,-fxsr', 'qemu32,-sse,-sse2,-fxsr', 'pentium3:nofxsr',
                'pentium3', 'qemu32')}
        db = gen.open_db(self.db_path)
        self.assertEqual(gen.store_mutants(db, COMMIT, [m], line, per_setup=per), 1)
        self.assertEqual(db.execute('SELECT setups FROM mutants WHERE id = ?', (m.id,)).fetchone(),
                         ('486 pentium3',))
        self.assertTrue(self.compile(m.id).startswith('patch '))
        with open(os.path.join(self.work, m.id + '.fsave')) as f:
            self.assertEqual(f.read(), '--cpu 486')
        with open(os.path.join(self.work, m.id + '.other')) as f:
            self.assertEqual(f.read(), '--cpu pentium3')
        # Without per-setup data, every setup of its group.
        self.assertTrue(self.compile(mid).startswith('patch '))
        with open(os.path.join(self.work, mid + '.other')) as f:
            self.assertEqual(f.read(), '--cpu pentium3 --cpu qemu32')

    # --- the store

    def test_pick_sample_record_report(self):
        tmp = tempfile.mkdtemp(prefix='mutants-gen-store.')
        try:
            db_path = os.path.join(tmp, 'm.db')
            ms = self.mutants
            db = gen.open_db(db_path)
            # Lines 1-60 ran, the rest did not.
            das = {n: (1 if n <= 60 else 0) for n in range(1, 200)}
            reached = gen.store_mutants(db, COMMIT, ms, das)
            self.assertEqual(gen.store_mutants(db, COMMIT, ms, das), reached)
            # A generation without coverage keeps what the last coverage said.
            gen.store_mutants(db, COMMIT, ms, None)
            self.assertEqual(db.execute('SELECT count(*) FROM mutants WHERE reached = 1')
                             .fetchone()[0], reached)
            self.assertEqual(db.execute('SELECT count(*) FROM mutants').fetchone()[0], len(ms))

            def pick(*extra):
                out = subprocess.run([GEN, 'pick', '--db', db_path, '--commit', COMMIT] +
                                     list(extra), capture_output=True, text=True, check=True)
                return out.stdout.split()
            every = pick()
            self.assertEqual(len(every), reached)
            s1 = pick('--sample', '5', '--seed', '7')
            self.assertEqual(s1, pick('--sample', '5', '--seed', '7'))
            self.assertEqual(len(s1), 5)
            run = subprocess.run([GEN, 'begin', '--db', db_path, '--commit', COMMIT, '--sample',
                                  '5', '--seed', '7'], capture_output=True, text=True,
                                 check=True).stdout.strip()
            for i, mid in enumerate(s1):
                subprocess.run([GEN, 'record', '--db', db_path, '--run', run, '--seconds', '3',
                                '--detail', 'fpu_seed', mid,
                                'killed' if i else 'survived'], check=True)
            # The next sample adds to the figure: nothing judged is picked again.
            s2 = pick('--sample', '5', '--seed', '7')
            self.assertFalse(set(s1) & set(s2))
            self.assertEqual(len(pick()), reached - 5)
            self.assertIn(s1[0], pick('--retest', 'survived'))
            self.assertNotIn(s1[1], pick('--retest', 'survived'))
            # A fixed sample for CI: the same mutants every time, judged or not.
            self.assertEqual(pick('--retest', 'all', '--sample', '5', '--seed', '7'), s1)
            # A list of ids, in its order; an id not to be picked is an error.
            ids = os.path.join(tmp, 'ids')
            with open(ids, 'w') as f:
                f.write('# a comment\n%s first\n%s second\n' % (s1[2], s1[1]))
            self.assertEqual(pick('--retest', 'all', '--ids', ids), [s1[2], s1[1]])
            out = subprocess.run([GEN, 'pick', '--db', db_path, '--commit', COMMIT, '--ids', ids],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 1)
            self.assertIn('not among the mutants to pick', out.stderr)
            none = os.path.join(tmp, 'none')
            open(none, 'w').close()

            def report(explained):
                rep = subprocess.run([GEN, 'report', '--db', db_path, '--commit', COMMIT,
                                      '--html', os.path.join(tmp, 'r.html'), '--explained',
                                      explained], capture_output=True, text=True,
                                     check=True).stdout
                return rep, [l for l in rep.split('\n') if l.startswith('all ')][0].split()
            rep, line = report(none)
            self.assertEqual(line[1:], [str(len(ms)), str(len(ms) - reached), str(reached - 5),
                                        '0', '0', '0', '4', '1', '0', '0', '80.0%'])
            self.assertIn('survivors (1):', rep)
            self.assertIn(s1[0], rep)
            # Explaining the survivor takes it out of the score; explaining a killed one is
            # reported as wrong.
            byid = {m.id: m for m in ms}

            def block(m, why):
                return '%s %s() %s\n%s\n%s\nwhy: %s\n\n' % (
                    m.file, m.function, m.operator,
                    '\n'.join('-' + l for l in m.original.split('\n')),
                    '\n'.join('+' + l for l in m.mutated.split('\n')), why)
            expl = os.path.join(tmp, 'explained')
            with open(expl, 'w') as f:
                f.write('# comment\n\n' + block(byid[s1[0]], 'it cannot be seen') +
                        block(byid[s1[1]], 'wrongly'))
            rep, line = report(expl)
            self.assertEqual(line[7:], ['4', '0', '1', '0', '100.0%'])
            # The HTML links each mutant to its line in the coverage report's pages.
            page = os.path.join(tmp, 'cov', 'html', 'fsave', byid[s1[0]].file + '.gcov.html')
            os.makedirs(os.path.dirname(page))
            open(page, 'w').close()
            subprocess.run([GEN, 'report', '--db', db_path, '--commit', COMMIT, '--html',
                            os.path.join(tmp, 'cov', 'mutants.html'), '--coverage-html',
                            os.path.join(tmp, 'cov', 'html'), '--explained', expl],
                           capture_output=True, check=True)
            with open(os.path.join(tmp, 'cov', 'mutants.html')) as f:
                self.assertIn('href="html/fsave/%s.gcov.html#%d"' % (byid[s1[0]].file,
                                                                    byid[s1[0]].line), f.read())
            self.assertIn('survivors (0):', rep)
            self.assertIn('explained (1):', rep)
            self.assertIn('why: it cannot be seen', rep)
            self.assertIn('explained, yet killed: the explanation is wrong (1):', rep)
            self.assertIn(s1[1], rep.split('wrong')[1])
            # A malformed block is refused with its line.
            with open(expl, 'w') as f:
                f.write('\n\nfile.c f() statement-delete\n+x\n')
            out = subprocess.run([GEN, 'report', '--db', db_path, '--commit', COMMIT,
                                  '--explained', expl], capture_output=True, text=True)
            self.assertEqual(out.returncode, 128)
            self.assertIn(expl + ':3: an explanation is', out.stderr)
        finally:
            shutil.rmtree(tmp)


class Helpers(unittest.TestCase):
    def test_reached(self):
        das = {10: 0, 11: 4, 14: 1}
        self.assertFalse(gen.reached(das, 10, 10))
        self.assertTrue(gen.reached(das, 10, 11))
        # A continuation line takes the line above it.
        self.assertTrue(gen.reached(das, 12, 12))
        self.assertFalse(gen.reached(das, 30, 30))

    def test_same_change_twice(self):
        # arch_ptrace() of 6.1 passes `0, sizeof(struct user_fxsr_struct),` at two places.
        rows = [dict(id=i, file='ptrace.c', line=l, function='arch_ptrace', operator='constant',
                     original='\t\t0, sizeof(struct user_fxsr_struct),',
                     mutated='  1, sizeof(struct user_fxsr_struct),') for i, l in
                (('b', 798), ('a', 792))]
        tmp = tempfile.mkdtemp(prefix='mutants-gen-explained.')
        try:
            path = os.path.join(tmp, 'explained')
            with open(path, 'w') as f:
                f.write('ptrace.c arch_ptrace() constant @2\n-0, sizeof(struct user_fxsr_struct),'
                        '\n+1, sizeof(struct user_fxsr_struct),\nwhy: the second\n')
            gen.explain(rows, gen.read_explained(path))
            self.assertEqual([r['why'] for r in rows], ['the second', None])
        finally:
            shutil.rmtree(tmp)

    def test_runs_near(self):
        # pentium3's fpu/init.c of 6.1 (make coverage, 2026-12-06): the condition on line
        # 29 counts 0, the call it guards on line 30 counts 2.
        das = {25: 2, 27: 2, 28: 2, 29: 0, 30: 2}
        self.assertFalse(gen.reached(das, 29, 29))
        self.assertTrue(gen.runs_near(das, 29, 29))
        self.assertFalse(gen.runs_near({29: 0, 40: 2}, 29, 29))

    def test_case_lines(self):
        text = ['switch (x) {', 'case A:', '\ta();', '\tbreak;', 'case B:', '\tb();',
                '#ifdef C', 'case C:', '\tc();', '#endif', 'default:', '\td();', '}']
        self.assertEqual(gen.case_lines(text, 1, 13, ('B', 'C')), {5, 6, 8, 9})

    def test_lcov(self):
        tmp = tempfile.mkdtemp(prefix='mutants-gen-lcov.')
        try:
            path = os.path.join(tmp, 'fsave.info')
            with open(path, 'w') as f:
                f.write('TN:\nSF:/cache/trees/debian-6.1.192/arch/x86/kernel/fpu/core.c\n'
                        'DA:10,3\nDA:11,0\nend_of_record\n')
            cov = gen.read_lcov(path)
            self.assertEqual(gen.lines_for(cov, 'arch/x86/kernel/fpu/core.c'), {10: 3, 11: 0})
            self.assertIsNone(gen.lines_for(cov, 'arch/x86/kernel/fpu/signal.c'))
        finally:
            shutil.rmtree(tmp)


if __name__ == '__main__':
    unittest.main(verbosity=1)
