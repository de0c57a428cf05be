/*
 * fpu_sigss: a signal that comes while %ss is not the user data segment,
 * to a handler whose sa_restorer is set without SA_RESTORER, gets its
 * frame, FPU image included, on the stack sa_restorer points at (i386's
 * legacy stack switch), and sigreturn brings back %ss, %esp and the x87
 * state.
 *
 * Guards get_sigframe() in arch/x86/kernel/signal.c (the
 * IS_ENABLED(CONFIG_X86_32) branch: ss != __USER_DS, no SA_RESTORER,
 * sa_restorer set) with fpu__alloc_mathframe() and
 * copy_fpstate_to_sigframe() in arch/x86/kernel/fpu/signal.c.  The
 * contract of 6.1 (6.12 is the same):
 *
 *   - the frame and its FPU image go below sa_restorer, as below the top
 *     of a sigaltstack: the image right below it (64-byte aligned), the
 *     frame below the image;
 *   - the switch counts as entering the sigaltstack (entering_altstack):
 *     a frame that does not lie in the task's sigaltstack is refused as an
 *     overflow, SIGSEGV and no handler, so without a sigaltstack the
 *     legacy switch never succeeds;
 *   - the handler runs with %ss __USER_DS, and the frame's sigcontext has
 *     the %ss and %esp of the interrupted code;
 *   - the image holds the x87 state at the signal, and sigreturn (through
 *     the vDSO's restorer, as SA_RESTORER is not set) loads it back with
 *     %ss and %esp.
 *
 * `rt_legacy_stack`, `old_legacy_stack`: a child makes a flat 32-bit data
 * segment with set_thread_area(), sets a sigaltstack, loads a known x87
 * state, loads %ss with that segment and sends itself SIGUSR1 on its
 * usual stack; the handler (rt or old frame, no SA_ONSTACK) has
 * sa_restorer 256 bytes below the sigaltstack's top, reports where its
 * frame and image are, its %ss and the frame's %ss and %esp, and loads
 * another x87 state; after sigreturn the child reads %ss and the state,
 * then goes back to __USER_DS.  `rt_legacy_no_altstack`,
 * `old_legacy_no_altstack`: the same without a sigaltstack: the child
 * dies of SIGSEGV.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm/ldt.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

#define SSS_STACK 8192u
#define SSS_USER_DS 0x7bu	/* __USER_DS of i386 */
#define SSS_FRAME_MAX 2048u	/* an i386 frame with an FXSR image is about 1.4 KiB */
#define SSS_BELOW_TOP 256u	/* sa_restorer this far below the sigaltstack's top */

struct sss_case {
	const char *name;
	bool old;		/* the old frame, else the rt one */
	bool altstack;		/* sa_restorer inside a sigaltstack (not SA_ONSTACK), else none */
};

static const struct sss_case sss_cases[] = {
	{ "rt_legacy_stack", false, true },
	{ "old_legacy_stack", true, true },
	{ "rt_legacy_no_altstack", false, false },
	{ "old_legacy_no_altstack", true, false },
};

static const long double sss_values[] = { FPSTATE_E, -0.375L, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec sss_state = {
	.cw = 0x0a7f,
	.sw_flags = X87_SW_C3 | X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(sss_values),
	.values = sss_values,
};

/* What the child sends back. */
struct sss_report {
	long err;			/* set_thread_area or sigaction: 0 */
	int count;			/* handler runs */
	uint32_t frame, fpstate;	/* where the frame and its image were */
	uint32_t handler_ss;		/* %ss in the handler */
	uint32_t sc_ss, sc_esp;		/* the frame's sigcontext */
	uint32_t esp_before;		/* %esp at the signal */
	uint32_t ss_after;		/* %ss after sigreturn */
	struct x87_fsave image, after;
};

static uint8_t sss_stack[SSS_STACK] __attribute__((aligned(64)));
static struct sss_report sss_report;

static void sss_record(uint32_t frame, const struct sigcontext *sc)
{
	uint16_t ss;

	__asm__ volatile("movw %%ss, %0" : "=r"(ss));
	sss_report.count++;
	sss_report.frame = frame;
	sss_report.fpstate = (uint32_t)sc->fpstate;
	sss_report.handler_ss = ss;
	sss_report.sc_ss = sc->ss;
	sss_report.sc_esp = sc->esp;
	if (sc->fpstate)
		fpstate_from_frame(&sss_report.image, sc->fpstate);
	x87_init();	/* a state of the handler's own, which sigreturn must undo */
	__asm__ volatile("fldz; fld1" ::: "memory");
}

static void sss_handle_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	sss_record(signal_rt_frame(info), &((struct ucontext *)ucontext)->uc_mcontext);
}

static void sss_handle_old(int sig, struct sigcontext sc)
{
	(void)sig;
	sss_record(signal_old_frame(&sc), &sc);
}

/* kill(getpid(), SIGUSR1) with %ss `sel`; %esp before it, %ss after it, then back to __USER_DS. */
static void sss_kill_with_ss(uint32_t sel, int pid)
{
	uint32_t esp, ss;
	long ret = __NR_kill;

	__asm__ volatile("movl %%esp, %[esp]\n\t"
			 "movw %w[sel], %%ss\n\t"
			 "int $0x80\n\t"
			 "movl %%ss, %[ss]\n\t"
			 "movw %w[ds], %%ss"
			 : [esp] "=&m"(esp), [ss] "=&r"(ss), "+a"(ret)
			 : "b"(pid), "c"(SIGUSR1), [sel] "r"(sel), [ds] "r"(SSS_USER_DS)
			 : "memory");
	sss_report.esp_before = esp;
	sss_report.ss_after = ss & 0xffff;
}

static int sss_child(int write_fd, void *arg)
{
	const struct sss_case *c = arg;
	stack_t ss = { .ss_sp = sss_stack, .ss_size = SSS_STACK };
	struct user_desc desc = {
		.entry_number = (unsigned int)-1, .base_addr = 0, .limit = 0xfffff,
		.seg_32bit = 1, .contents = 0, .read_exec_only = 0, .limit_in_pages = 1,
		.seg_not_present = 0, .useable = 1,
	};
	void (*top)(void) = (void (*)(void))(sss_stack + SSS_STACK - SSS_BELOW_TOP);
	long err = sys_call3(__NR_set_thread_area, (long)&desc, 0, 0);

	if (err == 0 && c->altstack)
		err = sys_sigaltstack(&ss, NULL);
	/* sa_restorer without SA_RESTORER: the kernel returns through the vDSO. */
	if (err == 0)
		err = c->old ? signal_set_raw(SIGUSR1, (void (*)(void))sss_handle_old, 0, top)
			  : signal_set_raw(SIGUSR1, (void (*)(void))sss_handle_rt, SA_SIGINFO, top);
	sss_report.err = err;
	if (err == 0) {
		fpstate_load(&sss_state);
		sss_kill_with_ss(desc.entry_number * 8 + 3, (int)sys_getpid());
		x87_snapshot(&sss_report.after);
		x87_init();
	}
	return proc_write(write_fd, &sss_report, sizeof(sss_report)) < 0;
}

/* A frame that is not in the sigaltstack it entered: SIGSEGV, no handler. */
static void sss_check_refused(struct ktap_check *check, long status, long got,
			      const struct sss_report *r)
{
	ktap_check_expect(check, status >= 0 && (status & 0x7f) == SIGSEGV,
			  "expected the child killed by SIGSEGV (wait status 0x%x), got 0x%lx%s",
			  SIGSEGV, status, got == (long)sizeof(*r) && r->count ? " (the handler ran)"
			  : "");
}

static void sss_run_case(struct ktap *subtests, const struct sss_case *c)
{
	static struct sss_report r;
	uint32_t top = (uint32_t)(sss_stack + SSS_STACK - SSS_BELOW_TOP);
	struct proc_child child;
	struct ktap_check check;
	struct x87_fsave want;
	long err, status = -1, got = 0;

	r = (struct sss_report){ .err = -1 };
	err = proc_start(&child, sss_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &r, sizeof(r), &got);
	fpstate_build(&want, &sss_state);
	ktap_check_begin(&check);
	if (!c->altstack) {
		ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
		sss_check_refused(&check, status, got, &r);
		ktap_check_end(subtests, &check, c->name);
		return;
	}
	ktap_check_expect(&check, err == 0 && status == 0 && got == (long)sizeof(r),
			  "expected the child to exit 0 with its report, got fork %ld, wait status "
			  "0x%lx, %ld bytes", err, status, got);
	if (got != (long)sizeof(r)) {
		ktap_check_end(subtests, &check, c->name);
		return;
	}
	ktap_check_expect(&check, r.err == 0 && r.count == 1, "expected set_thread_area and "
			  "sigaction to succeed and the handler to run once, got %ld, %d runs", r.err,
			  r.count);
	ktap_check_expect(&check, r.frame < r.fpstate && r.fpstate < top &&
			  top - r.frame <= SSS_FRAME_MAX, "expected the frame and then its image "
			  "below sa_restorer 0x%08x, within %u bytes, got the frame at 0x%08x, the "
			  "image at 0x%08x", top, SSS_FRAME_MAX, r.frame, r.fpstate);
	ktap_check_expect(&check, r.handler_ss == SSS_USER_DS, "expected %%ss 0x%x in the "
			  "handler, got 0x%x", SSS_USER_DS, r.handler_ss);
	ktap_check_expect(&check, r.sc_ss != SSS_USER_DS && r.sc_ss == r.ss_after &&
			  r.sc_esp == r.esp_before, "expected the frame's %%ss (the TLS segment) and "
			  "%%esp 0x%08x back after sigreturn, got %%ss 0x%x in the frame, 0x%x after, "
			  "%%esp 0x%08x", r.esp_before, r.sc_ss, r.ss_after, r.sc_esp);
	fpstate_check(&check, "in the frame", &want, &r.image);
	fpstate_check(&check, "after sigreturn", &want, &r.after);
	ktap_check_end(subtests, &check, c->name);
}

static void sigss_run(struct ktap *subtests)
{
	ktap_plan(subtests, (int)ARRAY_SIZE(sss_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(sss_cases); i++)
		sss_run_case(subtests, &sss_cases[i]);
}

GT_TEST("fpu_sigss", 10, sigss_run,
	GT_TAGS(GT_FUNC("get_sigframe"), GT_FUNC("fpu__alloc_mathframe"),
		GT_FUNC("copy_fpstate_to_sigframe")),
	"a signal while %ss is not __USER_DS, to a handler with sa_restorer and no SA_RESTORER, "
	"puts its frame and FPU image below sa_restorer (i386's legacy stack switch), and "
	"sigreturn restores %ss, %esp and the x87 state");
