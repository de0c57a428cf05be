/*
 * x86_test_FCMOV, x86_test_FCOMI, x86_test_FISTTP: the kernel's own x87
 * selftests, tools/testing/selftests/x86/test_{FCMOV,FCOMI,FISTTP}.c,
 * run in the guest.
 *
 * The host builds them from the kernel tree, -m32 -static against glibc,
 * into /selftests (bench/build/payload.h).  Each runs in a child with its output
 * on a pipe; its exit status is the subtest, and on failure its last lines
 * are the diagnostics.  They check the instructions' results and flags,
 * and through them that the kernel keeps the x87 state of a process.
 *
 * SKIP, decided from CPUID: FCMOV and FCOMI are P6 instructions (CPUID
 * CMOV); FISTTP is SSE3's.  Debian's i386 glibc is built for the i686, so
 * a static program may execute CMOV anywhere from its startup on: every
 * selftest needs CMOV, and a CPU without CPUID (a 486) has none.  Also,
 * test_FCOMI uses fenv.h, and glibc's i386 fe*except() use SSE (MXCSR)
 * whenever CPUID reports it; under `nofxsr` CPUID still does, but the
 * kernel has not enabled SSE (CR4.OSFXSR), so they raise SIGILL.  Whether
 * SSE works is tried in a child (stmxcsr), since CPUID cannot tell.
 */
#include "rt/cpu.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sys.h"
#include "rt/test.h"

#include <stdbool.h>
#include <stdint.h>

#define SELFTEST_OUTPUT_TAIL 400	/* bytes of output kept for the diagnostics */

struct selftest {
	const char *path;
	uint32_t ecx_needed;	/* CPUID leaf 1 ECX bits beyond CMOV */
	const char *without;	/* the SKIP reason when they are missing */
	bool uses_fenv;		/* glibc's fenv.h functions, which use SSE where CPUID has it */
};

static int selftest_try_sse(int write_fd, void *arg)
{
	uint32_t mxcsr;

	(void)write_fd;
	(void)arg;
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	return 0;
}

/* Whether SSE instructions run: 0 when they do, else the child's wait status. */
static long selftest_sse_fault(void)
{
	struct proc_child child;
	long err = proc_start(&child, selftest_try_sse, NULL);

	if (err < 0)
		return err;
	sys_close(child.read_fd);
	return proc_wait(child.pid);
}

static int selftest_exec(int write_fd, void *arg)
{
	const struct selftest *t = arg;
	char *argv[] = { (char *)t->path, NULL };
	char *envp[] = { NULL };

	sys_dup2(write_fd, 1);
	sys_dup2(write_fd, 2);
	return (int)-sys_execve(t->path, argv, envp);
}

/* Keeps the last bytes of everything the child wrote. */
static long selftest_read_tail(int fd, char *tail, long *kept)
{
	char chunk[128];
	long n, total = 0;

	*kept = 0;
	while ((n = proc_read(fd, chunk, sizeof(chunk))) > 0) {
		for (long i = 0; i < n; i++) {
			if (*kept == SELFTEST_OUTPUT_TAIL) {
				for (long j = 1; j < SELFTEST_OUTPUT_TAIL; j++)
					tail[j - 1] = tail[j];
				(*kept)--;
			}
			tail[(*kept)++] = chunk[i];
		}
		total += n;
	}
	return total;
}

/* Notes each line of the kept output (NUL-terminated at `kept`). */
static void selftest_note_output(struct ktap_check *check, char *tail, long kept)
{
	char *line = tail;

	for (long i = 0; i <= kept; i++) {
		if (i < kept && tail[i] != '\n')
			continue;
		tail[i] = '\0';
		if (*line)
			ktap_check_note(check, "output: %s", line);
		line = tail + i + 1;
	}
}

static void selftest_run(struct ktap *subtests, const struct selftest *t)
{
	struct cpu_info cpu;
	struct ktap_check check;
	struct proc_child child;
	char tail[SELFTEST_OUTPUT_TAIL + 1];
	long err, status = 0, kept = 0;

	if (!cpu_identify(&cpu) || !(cpu.edx & CPU_EDX_CMOV)) {
		ktap_skip_all(subtests, "no CMOV (CPUID): not a P6, and glibc is built for the i686");
		return;
	}
	if ((cpu.ecx & t->ecx_needed) != t->ecx_needed) {
		ktap_skip_all(subtests, t->without);
		return;
	}
	if (t->uses_fenv && (cpu.edx & CPU_EDX_SSE) && selftest_sse_fault() != 0) {
		ktap_skip_all(subtests,
			      "CPUID reports SSE but SSE faults (nofxsr): glibc's fenv.h would use it");
		return;
	}
	ktap_plan(subtests, 1);
	err = proc_start(&child, selftest_exec, (void *)t);
	if (err == 0) {
		selftest_read_tail(child.read_fd, tail, &kept);
		sys_close(child.read_fd);
		status = proc_wait(child.pid);
	}
	tail[kept] = '\0';
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == 0, "expected exit status 0, got wait status 0x%lx",
			  status);
	selftest_note_output(&check, tail, kept);
	ktap_check_end(subtests, &check, "exit_status");
}

static const struct selftest selftest_fcmov = { "/selftests/test_FCMOV", 0, NULL, false };
static const struct selftest selftest_fcomi = { "/selftests/test_FCOMI", 0, NULL, true };
static const struct selftest selftest_fisttp = { "/selftests/test_FISTTP", CPU_ECX_SSE3,
						 "no SSE3 (CPUID), which FISTTP belongs to", true };

static void selftest_run_fcmov(struct ktap *subtests)
{
	selftest_run(subtests, &selftest_fcmov);
}

static void selftest_run_fcomi(struct ktap *subtests)
{
	selftest_run(subtests, &selftest_fcomi);
}

static void selftest_run_fisttp(struct ktap *subtests)
{
	selftest_run(subtests, &selftest_fisttp);
}

GT_TEST("x86_test_FCMOV", 10, selftest_run_fcmov,
	GT_NO_TAGS,
	"tools/testing/selftests/x86/test_FCMOV.c: fcmovCC as the x87 defines them");
GT_TEST("x86_test_FCOMI", 10, selftest_run_fcomi,
	GT_NO_TAGS,
	"tools/testing/selftests/x86/test_FCOMI.c: fcomi and fucomi as the x87 defines them");
GT_TEST("x86_test_FISTTP", 10, selftest_run_fisttp,
	GT_NO_TAGS,
	"tools/testing/selftests/x86/test_FISTTP.c: fisttp as the x87 defines them");
