/*
 * fpu_newtask: the x87 state of tasks made and ended in the ways the
 * other tests do not use: clone with CLONE_SETTLS, clone3, execve from a
 * thread that is not the leader, and the exit of one thread of several.
 *
 * Guards copy_thread() in arch/x86/kernel/process.c (its CLONE_SETTLS
 * branch, set_new_tls()) with fpu_clone() in arch/x86/kernel/fpu/core.c:
 * a new thread starts with its creator's registers, whatever else clone
 * sets up, and keeps its own afterwards; execve's fpu_flush_thread() when
 * de_thread() has to kill the leader first; fpu__drop() when a thread ends
 * with an exception pending and the process goes on.  Subtests:
 *
 *   settls_thread   the parent holds pi, e, 1e10, FCW 0x0f7f, FSW C1|PE|UE
 *                   and a TLS entry (set_thread_area()) whose base is a
 *                   word of its own; a thread made with CLONE_SETTLS and a
 *                   descriptor of the same entry on another word starts with
 *                   the parent's state (it fnsaves first), reads its own word
 *                   through %gs, loads -1.5, 0.125 and FCW 0x037f and keeps
 *                   them across yields; the parent keeps its state and word;
 *   clone3_thread   the same through clone3(2) (skipped where it is ENOSYS);
 *   exec_from_thread
 *                   in a child whose leader holds that state and sleeps, a
 *                   second thread leaves a zero-divide pending and execs the
 *                   probe (rt/fresh.h): it starts in the state fninit gives
 *                   and exits 0;
 *   exit_thread_pending
 *                   a thread leaves a zero-divide pending and exits alone:
 *                   the parent keeps its state, and its fwait raises nothing.
 */
#include "rt/fpstate.h"
#include "rt/fresh.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sigfpe.h"
#include "rt/sys.h"
#include "rt/task.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <asm/errno.h>
#include <stdbool.h>
#include <stdint.h>

#define NEWTASK_PARENT_WORD 0x5a17c0deu
#define NEWTASK_THREAD_WORD 0x7e57ab1eu
#define NEWTASK_YIELDS 3
#define NEWTASK_EXEC_FAILED 3

static const long double parent_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec parent_spec = {
	.cw = 0x0f7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE | X87_SW_UE,
	.count = ARRAY_SIZE(parent_values),
	.values = parent_values,
};

static const long double thread_values[] = { -1.5L, 0.125L };
static const struct fpstate_spec thread_spec = {
	.cw = X87_CW_DEFAULT,
	.count = ARRAY_SIZE(thread_values),
	.values = thread_values,
};

/* The TLS words, each the base of a segment of its own. */
static volatile uint32_t parent_word = NEWTASK_PARENT_WORD;
static volatile uint32_t thread_word = NEWTASK_THREAD_WORD;

static uint32_t newtask_read_gs_word(unsigned int selector)
{
	uint32_t word;

	__asm__ volatile("movw %w1, %%gs\n\t"
			 "movl %%gs:0, %0"
			 : "=r"(word)
			 : "r"(selector)
			 : "memory");
	return word;
}

static struct user_desc newtask_desc(int entry, volatile uint32_t *base)
{
	return (struct user_desc){
		.entry_number = (unsigned int)entry,
		.base_addr = (unsigned int)base,
		.limit = sizeof(*base) - 1,
		.seg_32bit = 1,
		.useable = 1,
	};
}

/* What a thread saw. */
struct newtask_report {
	unsigned int selector;
	struct x87_fsave start;
	uint32_t word;
	struct x87_fsave own;
};

static struct task_thread newtask_thread;
static struct newtask_report newtask_seen;

static void newtask_thread_main(void *arg)
{
	struct newtask_report *r = arg;

	__asm__ volatile("fnsave %0" : "=m"(r->start) : : "memory");
	r->word = newtask_read_gs_word(r->selector);
	fpstate_load(&thread_spec);
	for (int i = 0; i < NEWTASK_YIELDS; i++)
		task_yield();
	x87_snapshot(&r->own);
}

static void newtask_run_tls(struct ktap *subtests, bool clone3, const char *name)
{
	struct user_desc parent_desc = newtask_desc(-1, &parent_word), thread_desc;
	struct x87_fsave want_parent, want_thread, parent_end;
	struct ktap_check check;
	long err, tid = 0, joined = -1;
	uint32_t word = 0;

	fpstate_build(&want_parent, &parent_spec);
	fpstate_build(&want_thread, &thread_spec);
	newtask_seen = (struct newtask_report){ 0 };
	err = sys_call3(__NR_set_thread_area, (long)&parent_desc, 0, 0);
	if (err == 0) {
		thread_desc = newtask_desc((int)parent_desc.entry_number, &thread_word);
		newtask_seen.selector = parent_desc.entry_number * 8 + 3;
		fpstate_load(&parent_spec);
		tid = clone3 ? task_thread_start_clone3(&newtask_thread, newtask_thread_main,
							&newtask_seen, &thread_desc)
			     : task_thread_start_tls(&newtask_thread, newtask_thread_main,
						     &newtask_seen, &thread_desc);
		if (tid > 0)
			joined = task_thread_join(&newtask_thread);
		x87_snapshot(&parent_end);
		x87_init();
		word = newtask_read_gs_word(newtask_seen.selector);
	}
	if (clone3 && tid == -ENOSYS) {
		ktap_result_directive(subtests, true, name, "SKIP clone3 is ENOSYS");
		return;
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected set_thread_area to succeed, got %ld", err);
	ktap_check_expect(&check, tid > 0, "expected the thread's creation to succeed, got %ld",
			  tid);
	ktap_check_expect(&check, joined == 0, "expected the thread to end, got %ld", joined);
	if (tid > 0 && joined == 0) {
		fpstate_check(&check, "in the thread at its start", &want_parent,
			      &newtask_seen.start);
		fpstate_check(&check, "in the thread after its yields", &want_thread,
			      &newtask_seen.own);
		ktap_check_expect(&check, newtask_seen.word == NEWTASK_THREAD_WORD,
				  "expected the thread's TLS word 0x%08x, got 0x%08x",
				  NEWTASK_THREAD_WORD, newtask_seen.word);
	}
	if (err == 0) {
		fpstate_check(&check, "in the parent after the thread ended", &want_parent,
			      &parent_end);
		ktap_check_expect(&check, word == NEWTASK_PARENT_WORD,
				  "expected the parent's TLS word 0x%08x, got 0x%08x",
				  NEWTASK_PARENT_WORD, word);
	}
	ktap_check_end(subtests, &check, name);
}

static int newtask_exec_fd;

static void newtask_exec_thread(void *arg)
{
	(void)arg;
	x87_init();
	x87_load_cw(X87_CW_DEFAULT & ~X87_CW_ZM);
	x87_divide_one_by_zero();
	fresh_exec_probe(newtask_exec_fd);
	sys_exit_group(NEWTASK_EXEC_FAILED);
}

/* The leader: its state, a thread that execs, and sleep until de_thread() kills it. */
static int newtask_exec_child(int write_fd, void *arg)
{
	(void)arg;
	newtask_exec_fd = write_fd;
	fpstate_load(&parent_spec);
	if (task_thread_start(&newtask_thread, newtask_exec_thread, NULL) < 0)
		return NEWTASK_EXEC_FAILED;
	for (;;)
		time_sleep_ms(1000);
}

static void newtask_run_exec(struct ktap *subtests)
{
	struct x87_fsave image;
	struct ktap_check check;
	struct proc_child child;
	long err, status = 0, got = 0;

	err = proc_start(&child, newtask_exec_child, NULL);
	if (err == 0)
		status = proc_finish(&child, &image, sizeof(image), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == 0,
			  "expected the program the thread executed to exit with 0, got status 0x%lx",
			  status);
	ktap_check_expect(&check, got == (long)sizeof(image),
			  "expected %u bytes of state from the new program, got %ld",
			  (unsigned int)sizeof(image), got);
	if (got == (long)sizeof(image))
		fresh_check(&check, "in the program a thread executed", &image);
	ktap_check_end(subtests, &check, "exec_from_thread");
}

static void newtask_pending_thread(void *arg)
{
	(void)arg;
	x87_init();
	x87_load_cw(X87_CW_DEFAULT & ~X87_CW_ZM);
	x87_divide_one_by_zero();
}

static void newtask_run_exit(struct ktap *subtests)
{
	struct x87_fsave want, got;
	struct ktap_check check;
	long tid, joined = -1, err;

	fpstate_build(&want, &parent_spec);
	err = sigfpe_install(NULL);
	sigfpe_forget();
	fpstate_load(&parent_spec);
	tid = task_thread_start(&newtask_thread, newtask_pending_thread, NULL);
	if (tid > 0)
		joined = task_thread_join(&newtask_thread);
	x87_snapshot(&got);
	x87_wait();
	x87_init();
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected the SIGFPE handler to install, got %ld", err);
	ktap_check_expect(&check, tid > 0 && joined == 0,
			  "expected the thread to start and end, got %ld and %ld", tid, joined);
	fpstate_check(&check, "in the parent after the thread ended", &want, &got);
	ktap_check_expect(&check, sigfpe_seen.count == 0,
			  "expected no SIGFPE in the parent, got %d (si_code %d)", sigfpe_seen.count,
			  sigfpe_seen.si_code);
	ktap_check_end(subtests, &check, "exit_thread_pending");
}

static void newtask_run(struct ktap *subtests)
{
	ktap_plan(subtests, 4);
	newtask_run_tls(subtests, false, "settls_thread");
	newtask_run_tls(subtests, true, "clone3_thread");
	newtask_run_exec(subtests);
	newtask_run_exit(subtests);
}

GT_TEST("fpu_newtask", 10, newtask_run,
	GT_TAGS(GT_FUNC("copy_thread"), GT_FUNC("fpu_clone"), GT_FUNC("fpu_flush_thread"),
		GT_FUNC("fpu__drop")),
	"copy_thread() and fpu_clone(): a thread made with CLONE_SETTLS or clone3 starts with "
	"its creator's x87 state and keeps its own; execve from a non-leader thread starts "
	"clean; a thread's exit with an exception pending leaves the others' state");
