#include "sigfpe.h"

#include "fpstate.h"

volatile struct sigfpe_record sigfpe_seen;
static sigfpe_edit_fn sigfpe_edit;

void sigfpe_forget(void)
{
	/* So that no earlier SIGFPE shows; byte by byte, since there is no memset to call. */
	volatile uint8_t *frame = (volatile uint8_t *)&sigfpe_seen.frame;

	for (unsigned int i = 0; i < sizeof(sigfpe_seen.frame); i++)
		frame[i] = 0;
	sigfpe_seen.count = 0;
	sigfpe_seen.si_code = 0;
	sigfpe_seen.fault_addr = 0;
	sigfpe_seen.eip = 0;
	sigfpe_seen.trapno = 0;
	sigfpe_seen.err = 0;
	sigfpe_seen.frame_missing = false;
}

static void sigfpe_handle(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;
	struct _fpstate *fp = uc->uc_mcontext.fpstate;
	const uint8_t *ip = (const uint8_t *)uc->uc_mcontext.eip;

	(void)sig;
	if (++sigfpe_seen.count == 1) {
		sigfpe_seen.si_code = info->si_code;
		sigfpe_seen.fault_addr = (uint32_t)info->si_addr;
		sigfpe_seen.eip = uc->uc_mcontext.eip;
		sigfpe_seen.trapno = uc->uc_mcontext.trapno;
		sigfpe_seen.err = uc->uc_mcontext.err;
		sigfpe_seen.frame_missing = !fp;
		if (fp)
			fpstate_from_frame((struct x87_fsave *)&sigfpe_seen.frame, fp);
	}
	if (fp && sigfpe_edit)
		sigfpe_edit(fp);
	else if (fp)
		x87_sigframe_forget_exception(fp);
	if ((!fp || sigfpe_seen.count > 1) && *ip == X87_OPCODE_FWAIT)
		uc->uc_mcontext.eip++;
}

int sigfpe_install(sigfpe_edit_fn edit)
{
	sigfpe_edit = edit;
	sigfpe_forget();
	return signal_set_action(SIGFPE, sigfpe_handle);
}
