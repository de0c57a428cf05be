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
 *   prxfpreg   its NT_PRXFPREG note is there exactly where AT_HWCAP says FXSR
 *              (regset_xregset_fpregs_active()) and has the same FCW, FSW,
 *              abridged tag and registers.
 *
 * A kernel that writes no core (CONFIG_COREDUMP=n) skips the whole test.
 */
#include "rt/auxv.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm/errno.h>
#include <asm/fcntl.h>
#include <asm/signal.h>
#include <linux/elf.h>
#include <linux/elf-em.h>
#include <stdbool.h>
#include <stdint.h>

#define CORE_DIR "/fpubench-core"
#define CORE_FILE CORE_DIR "/core"
#define CORE_NOTES_MAX 16384	/* a one-thread i386 core's notes take about 2 KiB */
#define CORE_PHDRS_MAX 64
#define CORE_FP_SIZE 108	/* struct user_i387_struct */
#define CORE_FXSR_SIZE 512	/* struct user_fxsr_struct */
#define CORE_WAIT_CORE 0x80	/* the wait status's "core dumped" bit */

static const long double core_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec core_spec = {
	.cw = 0x0b7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(core_values),
	.values = core_values,
};

static int core_crash(int write_fd, void *arg)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	(void)write_fd;
	(void)arg;
	if (sys_chdir(CORE_DIR) < 0 || sys_setrlimit(RLIMIT_CORE, &unlimited) < 0)
		return 1;
	fpstate_load(&core_spec);
	__asm__ volatile("ud2" ::: "memory");
	return 2;
}

static uint8_t core_notes[CORE_NOTES_MAX];

struct core_file {
	long err;		/* of open, read or lseek; 0 */
	bool elf;		/* ELF32, ET_CORE, EM_386 */
	long notes_len;		/* bytes of the PT_NOTE read into core_notes, -1 without one */
};

static long core_read_at(int fd, long offset, void *buf, size_t size)
{
	long err = sys_lseek(fd, offset, 0 /* SEEK_SET */);

	return err < 0 ? err : proc_read(fd, buf, size);
}

static void core_read(struct core_file *f)
{
	Elf32_Ehdr eh;
	Elf32_Phdr ph[CORE_PHDRS_MAX];
	long fd = sys_open(CORE_FILE, O_RDONLY), n;

	f->err = 0;
	f->elf = false;
	f->notes_len = -1;
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
				break;
			}
	}
	sys_close((int)fd);
}

/* The descriptor of the first note of `type`, its size in *size; NULL if none. */
static const uint8_t *core_find_note(long len, uint32_t type, uint32_t *size)
{
	long at = 0;

	while (len - at >= (long)sizeof(Elf32_Nhdr)) {
		const Elf32_Nhdr *nh = (const Elf32_Nhdr *)(core_notes + at);
		long name = (long)((nh->n_namesz + 3) & ~3u), desc = (long)((nh->n_descsz + 3) & ~3u);
		long next = at + (long)sizeof(*nh) + name + desc;

		/* Console output is untrusted, and so is a file a kernel under test wrote. */
		if (name < 0 || desc < 0 || next > len || next <= at)
			return NULL;
		if (nh->n_type == type) {
			*size = nh->n_descsz;
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

static void core_run(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child child;
	struct core_file f = { 0 };
	struct x87_fsave want;
	const uint8_t *fp = NULL, *fx = NULL;
	uint32_t fp_size = 0, fx_size = 0;
	long err, status = -1, got;
	char none;

	err = sys_mkdir(CORE_DIR, 0700);
	sys_unlink(CORE_FILE);
	if (err == 0 || err == -EEXIST)
		err = proc_start(&child, core_crash, NULL);
	if (err == 0)
		status = proc_finish(&child, &none, sizeof(none), &got);
	if (err == 0 && status >= 0 && !(status & CORE_WAIT_CORE) && (status & 0x7f) == SIGILL) {
		sys_rmdir(CORE_DIR);
		ktap_skip_all(subtests, "the kernel wrote no core dump (CONFIG_COREDUMP is off)");
		return;
	}
	ktap_plan(subtests, 3);
	core_read(&f);
	sys_unlink(CORE_FILE);
	sys_rmdir(CORE_DIR);
	fpstate_build(&want, &core_spec);
	if (f.notes_len > 0) {
		fp = core_find_note(f.notes_len, NT_PRFPREG, &fp_size);
		fx = core_find_note(f.notes_len, NT_PRXFPREG, &fx_size);
	}

	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected mkdir and fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == (CORE_WAIT_CORE | SIGILL),
			  "expected wait status 0x%x (SIGILL, core dumped), got 0x%lx",
			  CORE_WAIT_CORE | SIGILL, status);
	ktap_check_expect(&check, f.err == 0, "expected to read '%s', got error %ld", CORE_FILE,
			  f.err);
	ktap_check_expect(&check, f.elf, "expected an ELF32 ET_CORE file for EM_386, got another");
	ktap_check_expect(&check, f.notes_len > 0, "expected a PT_NOTE, got %ld bytes", f.notes_len);
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

	ktap_check_begin(&check);
	if (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR)
		ktap_check_expect(&check, fx && fx_size == CORE_FXSR_SIZE,
				  "expected an NT_PRXFPREG note of %d bytes, got %s%u",
				  CORE_FXSR_SIZE, fx ? "" : "none, ", fx_size);
	else
		ktap_check_expect(&check, !fx, "expected no NT_PRXFPREG note without FXSR, got one");
	if (fx && fx_size == CORE_FXSR_SIZE)
		core_check_fxsr(&check, &want, fx);
	ktap_check_end(subtests, &check, "prxfpreg");
}

GT_TEST("fpu_coredump", 10, core_run,
	GT_TAGS(GT_FUNC("fill_thread_core_info"), GT_FUNC("fpregs_get"), GT_FUNC("xfpregs_get"),
		GT_FUNC("regset_xregset_fpregs_active")),
	"fill_thread_core_info() in fs/binfmt_elf.c with fpregs_get(), xfpregs_get() in "
	"arch/x86/kernel/fpu/regset.c: a core's NT_PRFPREG is the x87 state at death");
