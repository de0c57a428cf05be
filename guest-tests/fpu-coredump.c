/*
 * fpu_coredump: an i386 core dump holds the task's x87 registers as they
 * were when it died.
 *
 * Guards the FPU notes of ELF core dumps: fill_thread_core_info() in
 * fs/binfmt_elf.c writes each regset of the 32-bit view
 * (arch/x86/kernel/ptrace.c): NT_PRFPREG (REGSET_FP, fpregs_get() in
 * arch/x86/kernel/fpu/regset.c: struct user_i387_struct, the fsave layout,
 * 108 bytes, converted from FXSAVE with convert_from_fxsr() on FXSR CPUs)
 * and, where the kernel uses FXSR, NT_PRXFPREG (REGSET_XFP, xfpregs_get():
 * struct user_fxsr_struct, 512 bytes).  Both sync the registers to memory
 * first (fpu_sync_fpstate()).
 *
 * A child loads pi, e, 1e10 with FCW 0x0b7f and FSW C1|PE (no exception
 * pending: on the "unpatched" kernel a pending one would oops in the
 * dump's save), sets RLIMIT_CORE to unlimited, changes to a directory of
 * its own and executes ud2.  The kernel's default core_pattern is "core"
 * in the cwd (this config has no /proc to set another), on the rootfs.
 * Subtests:
 *
 *   dumped     the child died of SIGILL with a core, an ELF32 ET_CORE file
 *              for EM_386 with a PT_NOTE;
 *   prfpreg    its NT_PRFPREG note is the loaded state;
 *   prxfpreg   it has an NT_PRXFPREG note exactly when the kernel uses FXSR
 *              (AT_HWCAP), with the same FCW, FSW, abridged tag and
 *              registers (skipped without FXSR and without a note);
 *   threads    in a child whose leader holds that state and sleeps, a second
 *              thread loads -1.5, 0.125 with FCW 0x0e7f and executes ud2:
 *              the core has an NT_PRSTATUS and an NT_PRFPREG per thread, the
 *              dumping thread's first (fill_note_info() keeps it at the head
 *              of the list), each NT_PRFPREG its own thread's state;
 *   truncated  with RLIMIT_CORE at 4096 bytes, the least that dumps, the
 *              memory does not fit (elf_core_dump() stops at its first
 *              segment): the file is no larger, the wait status still says
 *              core dumped, and the notes, which come first, are whole, the
 *              NT_PRFPREG the loaded state;
 *   traced     the child is traced: at the SIGILL's delivery stop the
 *              tracer loads values of its own and lets the signal through,
 *              so the dump starts with TIF_NEED_FPU_LOAD set and the
 *              tracer's values in the FPU; fpu_sync_fpstate() must then
 *              keep the saved state, and the NT_PRFPREG is the loaded one;
 *   headers_cut  with 160 mappings more and RLIMIT_CORE at 4096, the
 *              program headers do not fit (elf_core_dump() stops at the
 *              first that does not): the file is the ELF header and the
 *              126 program headers that fit, 4084 bytes;
 *   notes_cut  with as many mappings as end the program headers half the
 *              notes' size below 4096: they are whole and the notes are
 *              cut (write_note_info() fails), the file ending at most the
 *              notes' padding past the limit (dump_align() seeks over it,
 *              and the limit counts only what dump_emit() writes).
 *
 * A kernel that writes no core (CONFIG_COREDUMP=n) skips the whole test.
 */
#include "rt/auxv.h"
#include "rt/fmt.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/sys.h"
#include "rt/task.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <asm/errno.h>
#include <asm/fcntl.h>
#include <asm/signal.h>
#include <asm-generic/mman-common.h>
#include <linux/mman.h>
#include <linux/elf.h>
#include <linux/elf-em.h>
#include <linux/ptrace.h>
#include <stdbool.h>
#include <stdint.h>

#define CORE_PAGE 4096u
#define CORE_DIR "/fpubench-core"
#define CORE_FILE CORE_DIR "/core"
#define CORE_NOTES_MAX 16384	/* a one-thread i386 core's notes take about 2 KiB */
#define CORE_PHDRS_MAX 256	/* the cut cores have about 100 and 160 */
#define CORE_FP_SIZE 108	/* struct user_i387_struct */
#define CORE_FXSR_SIZE 512	/* struct user_fxsr_struct */
#define CORE_WAIT_CORE 0x80	/* the wait status's "core dumped" bit */
#define CORE_PRSTATUS_PID 24	/* pr_pid in the i386 struct elf_prstatus */
#define CORE_SMALL_LIMIT 4096	/* the least RLIMIT_CORE that dumps: ELF_EXEC_PAGESIZE */
#define CORE_EHDR 52u		/* Elf32_Ehdr */
#define CORE_PHDR 32u		/* Elf32_Phdr */
#define CORE_HEADERS_CUT_MAPS 160	/* more program headers than 4096 bytes hold */
#define CORE_NOTES_PAD_MAX 48	/* the name's and the desc's padding, 3 each, of 8 notes */

static const long double core_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec core_spec = {
	.cw = 0x0b7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(core_values),
	.values = core_values,
};

/* Dies of ud2 with core_spec loaded, RLIMIT_CORE `arg` (NULL: unlimited). */
static int core_crash(int write_fd, void *arg)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	const struct rlimit *limit = arg ? arg : &unlimited;

	(void)write_fd;
	if (sys_chdir(CORE_DIR) < 0 || sys_setrlimit(RLIMIT_CORE, limit) < 0)
		return 1;
	fpstate_load(&core_spec);
	__asm__ volatile("ud2" ::: "memory");
	return 2;
}

static const long double thread_values[] = { -1.5L, 0.125L };
static const struct fpstate_spec thread_spec = {
	.cw = 0x0e7f,
	.count = ARRAY_SIZE(thread_values),
	.values = thread_values,
};

static struct task_thread core_thread;
static int core_go[2];	/* the leader tells the thread it may crash: the ids are out */

static void core_thread_crash(void *arg)
{
	char go;

	(void)arg;
	if (proc_read(core_go[0], &go, 1) != 1)
		return;
	fpstate_load(&thread_spec);
	__asm__ volatile("ud2" ::: "memory");
}

/* Sends the leader's and the thread's ids, then sleeps until the dump kills it. */
static int core_crash_threads(int write_fd, void *arg)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	long ids[2] = { sys_getpid(), 0 };
	char go = 1;

	(void)arg;
	if (sys_chdir(CORE_DIR) < 0 || sys_setrlimit(RLIMIT_CORE, &unlimited) < 0 ||
	    sys_pipe(core_go) < 0)
		return 1;
	fpstate_load(&core_spec);
	ids[1] = task_thread_start(&core_thread, core_thread_crash, NULL);
	/* Else the dump could kill the leader before the ids are out. */
	if (ids[1] < 0 || proc_write(write_fd, ids, sizeof(ids)) < 0 ||
	    proc_write(core_go[1], &go, 1) < 0)
		return 2;
	for (;;)
		time_sleep_ms(1000);
}

static uint8_t core_notes[CORE_NOTES_MAX];

struct core_file {
	long err;		/* of open, read or lseek; 0 */
	bool elf;		/* ELF32, ET_CORE, EM_386 */
	long notes_len;		/* bytes of the PT_NOTE read into core_notes, -1 without one */
	long notes_end;		/* where the PT_NOTE ends in the file */
	long notes_size;	/* its p_filesz */
	long phnum;		/* e_phnum, -1 without an ELF header */
	long size;		/* of the file */
};

static long core_read_at(int fd, long offset, void *buf, size_t size)
{
	long err = sys_lseek(fd, offset, 0 /* SEEK_SET */);

	return err < 0 ? err : proc_read(fd, buf, size);
}

static void core_read(struct core_file *f)
{
	Elf32_Ehdr eh;
	static Elf32_Phdr ph[CORE_PHDRS_MAX];
	long fd = sys_open(CORE_FILE, O_RDONLY), n;

	f->err = 0;
	f->elf = false;
	f->notes_len = -1;
	f->notes_end = 0;
	f->notes_size = 0;
	f->phnum = -1;
	f->size = -1;
	if (fd < 0) {
		f->err = fd;
		return;
	}
	n = core_read_at((int)fd, 0, &eh, sizeof(eh));
	f->elf = n == (long)sizeof(eh) && eh.e_ident[EI_MAG0] == ELFMAG0 &&
		 eh.e_ident[EI_MAG1] == ELFMAG1 && eh.e_ident[EI_MAG2] == ELFMAG2 &&
		 eh.e_ident[EI_MAG3] == ELFMAG3 && eh.e_ident[EI_CLASS] == ELFCLASS32 &&
		 eh.e_type == ET_CORE && eh.e_machine == EM_386 &&
		 eh.e_phentsize == sizeof(Elf32_Phdr) && eh.e_phnum <= CORE_PHDRS_MAX;
	if (f->elf)
		f->phnum = eh.e_phnum;
	if (n < 0)
		f->err = n;
	if (f->elf) {
		n = core_read_at((int)fd, (long)eh.e_phoff, ph, eh.e_phnum * sizeof(ph[0]));
		if (n < 0)
			f->err = n;
		for (unsigned int i = 0; n == (long)(eh.e_phnum * sizeof(ph[0])) && i < eh.e_phnum; i++)
			if (ph[i].p_type == PT_NOTE) {
				size_t size = ph[i].p_filesz < CORE_NOTES_MAX ? ph[i].p_filesz
									     : CORE_NOTES_MAX;

				f->notes_len = core_read_at((int)fd, (long)ph[i].p_offset, core_notes,
							    size);
				f->notes_end = (long)(ph[i].p_offset + ph[i].p_filesz);
				f->notes_size = (long)ph[i].p_filesz;
				break;
			}
	}
	f->size = sys_lseek((int)fd, 0, 2 /* SEEK_END */);
	sys_close((int)fd);
}

/* What a crashing child left: the errors on the way, its wait status, its result and its core. */
struct core_run {
	long err;		/* of mkdir or fork: 0 */
	long status;		/* wait status, -1 if not reaped */
	long got;		/* bytes of the child's result */
	long pid;
	struct core_file f;
};

/*
 * Runs fn(write_fd, arg) in a child in a fresh CORE_DIR, with `tracer`
 * (when not NULL) as the child's tracer until it dies, reads the child's
 * result and its core into `r`, and removes both.
 */
static void core_dump(struct core_run *r, int (*fn)(int write_fd, void *arg), void *arg,
		      void (*tracer)(long pid), void *result, size_t size)
{
	struct proc_child child = { 0 };

	r->status = -1;
	r->got = 0;
	r->err = sys_mkdir(CORE_DIR, 0700);
	sys_unlink(CORE_FILE);
	if (r->err == -EEXIST)
		r->err = 0;
	if (r->err == 0)
		r->err = proc_start(&child, fn, arg);
	if (r->err == 0 && tracer)
		tracer(child.pid);
	if (r->err == 0)
		r->status = proc_finish(&child, result, size, &r->got);
	r->pid = child.pid;
	core_read(&r->f);
	sys_unlink(CORE_FILE);
	sys_rmdir(CORE_DIR);
}

/* The checks every dump shares: it dumped after `signal` and left an ELF core with notes. */
static void core_check_dumped(struct ktap_check *check, const struct core_run *r, int signal)
{
	ktap_check_expect(check, r->err == 0, "expected mkdir and fork to succeed, got %ld", r->err);
	ktap_check_expect(check, r->status == (CORE_WAIT_CORE | signal),
			  "expected wait status 0x%x (signal %d, core dumped), got 0x%lx",
			  CORE_WAIT_CORE | signal, signal, r->status);
	ktap_check_expect(check, r->f.err == 0, "expected to read '%s', got error %ld", CORE_FILE,
			  r->f.err);
	ktap_check_expect(check, r->f.elf, "expected an ELF32 ET_CORE file for EM_386, got another");
	ktap_check_expect(check, r->f.notes_len > 0, "expected a PT_NOTE, got %ld bytes",
			  r->f.notes_len);
}

/*
 * The descriptor of the first note of `type` at or after *from, its size in
 * *size; NULL if none.  *from moves past it.
 */
static const uint8_t *core_find_note(long len, uint32_t type, long *from, uint32_t *size)
{
	long at = *from;

	while (len - at >= (long)sizeof(Elf32_Nhdr)) {
		const Elf32_Nhdr *nh = (const Elf32_Nhdr *)(core_notes + at);
		long name = (long)((nh->n_namesz + 3) & ~3u), desc = (long)((nh->n_descsz + 3) & ~3u);
		long next = at + (long)sizeof(*nh) + name + desc;

		/* Console output is untrusted, and so is a file a kernel under test wrote. */
		if (name < 0 || desc < 0 || next > len || next <= at)
			return NULL;
		if (nh->n_type == type) {
			*size = nh->n_descsz;
			*from = next;
			return core_notes + at + sizeof(*nh) + name;
		}
		at = next;
	}
	return NULL;
}

static void core_check_fxsr(struct ktap_check *check, const struct x87_fsave *want,
			    const uint8_t *fx)
{
	uint16_t cw = (uint16_t)(fx[0] | fx[1] << 8), sw = (uint16_t)(fx[2] | fx[3] << 8);
	uint8_t want_tag = fpstate_abridged_tag(want->env.tag);
	int reg = -1;

	for (unsigned int i = 0; i < ARRAY_SIZE(core_values) && reg < 0; i++)
		for (unsigned int b = 0; b < 10; b++)
			if (fx[32 + 16 * i + b] != want->st[i][b])
				reg = (int)i;
	ktap_check_expect(check, cw == (uint16_t)want->env.cw,
			  "expected NT_PRXFPREG FCW 0x%04x, got 0x%04x", (uint16_t)want->env.cw, cw);
	ktap_check_expect(check, sw == (uint16_t)want->env.sw,
			  "expected NT_PRXFPREG FSW 0x%04x, got 0x%04x", (uint16_t)want->env.sw, sw);
	ktap_check_expect(check, fx[4] == want_tag, "expected NT_PRXFPREG abridged tag 0x%02x, got 0x%02x",
			  want_tag, fx[4]);
	ktap_check_expect(check, reg < 0, "expected NT_PRXFPREG's registers as loaded, st%d differs",
			  reg);
}

/* The thread's NT_PRSTATUS (its pid) and then its NT_PRFPREG: the state of thread `tid`. */
static void core_check_thread(struct ktap_check *check, long len, long *from, const char *who,
			      long tid, const struct fpstate_spec *spec)
{
	uint32_t size = 0, pid = 0;
	const uint8_t *st = core_find_note(len, NT_PRSTATUS, from, &size);
	const uint8_t *fp = st ? core_find_note(len, NT_PRFPREG, from, &size) : NULL;
	struct x87_fsave want, image;
	char where[48];
	struct fmt_buf b;

	if (st)
		fpstate_copy(&pid, st + CORE_PRSTATUS_PID, sizeof(pid));
	ktap_check_expect(check, st && (long)pid == tid,
			  "expected the %s's NT_PRSTATUS (pid %ld), got %s%u", who, tid,
			  st ? "pid " : "none", pid);
	ktap_check_expect(check, fp && size == CORE_FP_SIZE,
			  "expected the %s's NT_PRFPREG of %d bytes, got %s%u", who, CORE_FP_SIZE,
			  fp ? "" : "none, ", size);
	if (!fp || size != CORE_FP_SIZE)
		return;
	fmt_init(&b, where, sizeof(where));
	fmt_addf(&b, "in the %s's NT_PRFPREG", who);
	fpstate_build(&want, spec);
	fpstate_copy(&image, fp, sizeof(image));
	fpstate_check(check, where, &want, &image);
}

static void core_run_threads(struct ktap *subtests)
{
	static struct core_run r;
	struct ktap_check check;
	long ids[2] = { 0, 0 }, from = 0;

	core_dump(&r, core_crash_threads, NULL, NULL, ids, sizeof(ids));
	ktap_check_begin(&check);
	core_check_dumped(&check, &r, SIGILL);
	ktap_check_expect(&check, r.got == (long)sizeof(ids), "expected the ids, got %ld bytes",
			  r.got);
	if (r.f.notes_len > 0 && r.got == (long)sizeof(ids)) {
		core_check_thread(&check, r.f.notes_len, &from, "dumping thread", ids[1],
				  &thread_spec);
		core_check_thread(&check, r.f.notes_len, &from, "leader", ids[0], &core_spec);
	}
	ktap_check_end(subtests, &check, "threads");
}

static void core_run_truncated(struct ktap *subtests)
{
	static const struct rlimit small = { CORE_SMALL_LIMIT, CORE_SMALL_LIMIT };
	static struct core_run r;
	struct ktap_check check;
	long from = 0;
	char none;

	core_dump(&r, core_crash, (void *)&small, NULL, &none, sizeof(none));
	ktap_check_begin(&check);
	core_check_dumped(&check, &r, SIGILL);
	ktap_check_expect(&check, r.f.size > 0 && r.f.size <= CORE_SMALL_LIMIT,
			  "expected a core of at most %d bytes, got %ld", CORE_SMALL_LIMIT, r.f.size);
	ktap_check_expect(&check, r.f.notes_end > 0 && r.f.notes_end <= r.f.size,
			  "expected the notes whole in the file, they end at %ld of %ld bytes",
			  r.f.notes_end, r.f.size);
	if (r.f.notes_len > 0 && r.f.notes_end <= r.f.size)
		core_check_thread(&check, r.f.notes_len, &from, "task", r.pid, &core_spec);
	ktap_check_end(subtests, &check, "truncated");
}

/* core_crash() at the small limit after `*arg` more mappings, one page each, not mergeable. */
static int core_crash_mapped(int write_fd, void *arg)
{
	static const struct rlimit small = { CORE_SMALL_LIMIT, CORE_SMALL_LIMIT };
	long n = *(const long *)arg;

	for (long i = 0; i < n; i++) {
		int prot = i % 2 ? PROT_READ | PROT_WRITE : PROT_READ;

		if ((unsigned long)sys_mmap(NULL, CORE_PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1,
					    0) >= -4095ul)
			return 3;
	}
	return core_crash(write_fd, (void *)&small);
}

/*
 * headers_cut: more program headers than the limit holds: the file is the
 * ELF header and the program headers that fit whole, nothing after.
 */
static void core_run_headers_cut(struct ktap *subtests)
{
	static struct core_run r;
	static const long maps = CORE_HEADERS_CUT_MAPS;
	struct ktap_check check;
	long fit = (CORE_SMALL_LIMIT - CORE_EHDR) / CORE_PHDR;
	char none;

	core_dump(&r, core_crash_mapped, (void *)&maps, NULL, &none, sizeof(none));
	ktap_check_begin(&check);
	ktap_check_expect(&check, r.err == 0 && r.status == (CORE_WAIT_CORE | SIGILL),
			  "expected wait status 0x%x (SIGILL, core dumped), got error %ld, 0x%lx",
			  CORE_WAIT_CORE | SIGILL, r.err, r.status);
	ktap_check_expect(&check, r.f.err == 0 && r.f.elf && r.f.phnum > fit,
			  "expected an ELF core header with more than %ld program headers, got "
			  "error %ld, %s, %ld", fit, r.f.err, r.f.elf ? "ELF" : "not ELF", r.f.phnum);
	ktap_check_expect(&check, r.f.size == (long)(CORE_EHDR + fit * CORE_PHDR),
			  "expected the file to end after the %ld program headers that fit, at %ld "
			  "bytes, got %ld", fit, (long)(CORE_EHDR + fit * CORE_PHDR), r.f.size);
	ktap_check_end(subtests, &check, "headers_cut");
}

/*
 * notes_cut: as many mappings as put the program headers' end half the
 * notes' size below the limit (the notes' size and the mappings of
 * `whole`, the unlimited dump): every program header whole, the notes cut.
 * The limit counts the bytes written (dump_emit()), and a note's padding
 * is skipped by a seek (dump_align()), so the file may end that padding
 * past the limit: 4104 bytes on the FSAVE setups of 6.1.
 */
static void core_run_notes_cut(struct ktap *subtests, const struct core_file *whole)
{
	static struct core_run r;
	struct ktap_check check;
	long maps = ((CORE_SMALL_LIMIT - whole->notes_size / 2 - (long)CORE_EHDR) / (long)CORE_PHDR) -
		    whole->phnum;
	char none;

	core_dump(&r, core_crash_mapped, &maps, NULL, &none, sizeof(none));
	ktap_check_begin(&check);
	ktap_check_expect(&check, whole->phnum > 0 && whole->notes_size > 0 && maps > 0,
			  "expected the unlimited core's program headers and notes, got %ld, %ld "
			  "bytes", whole->phnum, whole->notes_size);
	ktap_check_expect(&check, r.err == 0 && r.status == (CORE_WAIT_CORE | SIGILL),
			  "expected wait status 0x%x (SIGILL, core dumped), got error %ld, 0x%lx",
			  CORE_WAIT_CORE | SIGILL, r.err, r.status);
	ktap_check_expect(&check, r.f.err == 0 && r.f.elf && r.f.notes_end > 0,
			  "expected an ELF core with a PT_NOTE, got error %ld, %s", r.f.err,
			  r.f.elf ? "ELF, no PT_NOTE" : "not ELF");
	ktap_check_expect(&check, r.f.size >= (long)CORE_EHDR + r.f.phnum * (long)CORE_PHDR &&
			  r.f.size <= CORE_SMALL_LIMIT + CORE_NOTES_PAD_MAX && r.f.size < r.f.notes_end,
			  "expected the %ld program headers whole (%ld bytes) and the notes (to %ld) "
			  "cut at most at %d bytes and their padding, got %ld bytes", r.f.phnum,
			  (long)CORE_EHDR + r.f.phnum * (long)CORE_PHDR, r.f.notes_end,
			  CORE_SMALL_LIMIT, r.f.size);
	ktap_check_end(subtests, &check, "notes_cut");
}

static const long double tracer_values[] = { 6.0L, -0.75L, 1e-3L, 42.0L };
static const struct fpstate_spec tracer_spec = {
	.cw = 0x0f7f,
	.sw_flags = X87_SW_C3 | X87_SW_C1,
	.count = ARRAY_SIZE(tracer_values),
	.values = tracer_values,
};
static long core_traced_stop;

/* core_crash() under its parent's ptrace: it stops at the SIGILL's delivery. */
static int core_crash_traced(int write_fd, void *arg)
{
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 100;
	return core_crash(write_fd, arg);
}

/* At the SIGILL stop, loads values of its own, so that the child dumps with them in the FPU. */
static void core_trace(long pid)
{
	core_traced_stop = proc_wait(pid);
	fpstate_load(&tracer_spec);
	sys_ptrace(PTRACE_CONT, (int)pid, 0,
		   core_traced_stop == PTRACE_STOPPED_BY(SIGILL) ? SIGILL : SIGKILL);
	x87_init();
}

static void core_run_traced(struct ktap *subtests)
{
	static struct core_run r;
	struct ktap_check check;
	long from = 0;
	char none;

	core_dump(&r, core_crash_traced, NULL, core_trace, &none, sizeof(none));
	ktap_check_begin(&check);
	ktap_check_expect(&check, core_traced_stop == PTRACE_STOPPED_BY(SIGILL),
			  "expected a stop at SIGILL, got status 0x%lx", core_traced_stop);
	core_check_dumped(&check, &r, SIGILL);
	if (r.f.notes_len > 0)
		core_check_thread(&check, r.f.notes_len, &from, "task", r.pid, &core_spec);
	ktap_check_end(subtests, &check, "traced");
}

static void core_run(struct ktap *subtests)
{
	static struct core_run r;
	struct ktap_check check;
	struct x87_fsave want;
	const uint8_t *fp = NULL, *fx = NULL;
	uint32_t fp_size = 0, fx_size = 0;
	bool kernel_fxsr = (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR) != 0;
	char none;

	core_dump(&r, core_crash, NULL, NULL, &none, sizeof(none));
	if (r.err == 0 && r.status >= 0 && !(r.status & CORE_WAIT_CORE) &&
	    (r.status & 0x7f) == SIGILL) {
		ktap_skip_all(subtests, "the kernel wrote no core dump (CONFIG_COREDUMP is off)");
		return;
	}
	ktap_plan(subtests, 8);
	fpstate_build(&want, &core_spec);
	if (r.f.notes_len > 0) {
		long from_fp = 0, from_fx = 0;

		fp = core_find_note(r.f.notes_len, NT_PRFPREG, &from_fp, &fp_size);
		fx = core_find_note(r.f.notes_len, NT_PRXFPREG, &from_fx, &fx_size);
	}

	ktap_check_begin(&check);
	core_check_dumped(&check, &r, SIGILL);
	ktap_check_end(subtests, &check, "dumped");

	ktap_check_begin(&check);
	ktap_check_expect(&check, fp && fp_size == CORE_FP_SIZE,
			  "expected an NT_PRFPREG note of %d bytes, got %s%u", CORE_FP_SIZE,
			  fp ? "" : "none, ", fp_size);
	if (fp && fp_size == CORE_FP_SIZE) {
		struct x87_fsave image;

		fpstate_copy(&image, fp, sizeof(image));
		fpstate_check(&check, "in NT_PRFPREG", &want, &image);
	}
	ktap_check_end(subtests, &check, "prfpreg");

	/* regset_xregset_fpregs_active() lets the note through exactly when the kernel uses FXSR. */
	if (!fx && !kernel_fxsr) {
		ktap_result_directive(subtests, true, "prxfpreg",
				      "SKIP no NT_PRXFPREG note (the kernel does not use FXSR)");
	} else {
		ktap_check_begin(&check);
		ktap_check_expect(&check, fx && kernel_fxsr,
				  "expected an NT_PRXFPREG note exactly when AT_HWCAP says FXSR (%s), "
				  "got %s", kernel_fxsr ? "it does" : "it does not", fx ? "one" : "none");
		if (fx)
			ktap_check_expect(&check, fx_size == CORE_FXSR_SIZE,
					  "expected an NT_PRXFPREG note of %d bytes, got %u",
					  CORE_FXSR_SIZE, fx_size);
		if (fx && fx_size == CORE_FXSR_SIZE)
			core_check_fxsr(&check, &want, fx);
		ktap_check_end(subtests, &check, "prxfpreg");
	}
	core_run_threads(subtests);
	core_run_truncated(subtests);
	core_run_traced(subtests);
	core_run_headers_cut(subtests);
	core_run_notes_cut(subtests, &r.f);
}

GT_TEST("fpu_coredump", 10, core_run,
	GT_TAGS(GT_FUNC("fill_thread_core_info"), GT_FUNC("fill_note_info"), GT_FUNC("fpregs_get"),
		GT_FUNC("xfpregs_get"), GT_FUNC("regset_xregset_fpregs_active"),
		GT_FUNC("fpu_sync_fpstate")),
	"fill_thread_core_info() in fs/binfmt_elf.c with fpregs_get(), xfpregs_get() in "
	"arch/x86/kernel/fpu/regset.c: a core's NT_PRFPREG is each thread's x87 state at death");
