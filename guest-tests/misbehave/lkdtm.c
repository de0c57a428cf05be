/*
 * lkdtm: init that has the kernel crash on purpose through LKDTM
 * (drivers/misc/lkdtm), so that the console holds a real report of a known
 * kind: fixtures for the console scanner and tests/e2e/lkdtm.sh.
 *
 * The kind comes from the kernel command line as LKDTM=TYPE (the kernel
 * hands NAME=VALUE parameters it does not know to init's environment).
 * A child mounts debugfs and writes TYPE to provoke-crash/DIRECT, so that
 * init survives the reports that kill only the writer; init waits
 * LKDTM_WAIT_MS (default 3000) and reboots.  A hang, lockup or panic keeps
 * the guest until the host's timeout.  Needs CONFIG_DEBUG_FS and
 * CONFIG_LKDTM (tests/e2e/lkdtm.config).
 */
#include "mb.h"
#include "rt/sys.h"
#include "rt/time.h"

#include <linux/fcntl.h>

static const char *env_value(char **envp, const char *name)
{
	for (; envp && *envp; envp++) {
		const char *e = *envp, *n = name;

		while (*n && *e == *n)
			e++, n++;
		if (!*n && *e == '=')
			return e + 1;
	}
	return NULL;
}

static uint32_t parse_ms(const char *s, uint32_t fallback)
{
	uint32_t v = 0;

	if (!s || !*s)
		return fallback;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint32_t)(*s - '0');
	return v;
}

static size_t length(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* The child: 0 when the write returned (the kind let it live), else -errno. */
static long provoke(const char *type)
{
	long fd, err;

	sys_mkdir("/debug", 0700);
	if ((err = sys_mount("debugfs", "/debug", "debugfs")) < 0)
		return err;
	if ((fd = sys_open("/debug/provoke-crash/DIRECT", O_WRONLY)) < 0)
		return fd;
	err = sys_write((int)fd, type, length(type));
	sys_close((int)fd);
	return err < 0 ? err : 0;
}

int main(int argc, char **argv, char **envp)
{
	const char *type = env_value(envp, "LKDTM");
	struct ktap top;
	long pid;
	int status = 0;

	(void)argc;
	(void)argv;
	mb_start(&top, 1);
	mb_begin(&top, 1, "lkdtm");
	if (!type) {
		ktap_result_directive(&top, false, "lkdtm", "no LKDTM=TYPE on the kernel command line");
		mb_done(&top);
	}
	ktap_diag(&top, "lkdtm: provoking %s", type);
	pid = sys_fork();
	if (pid == 0)
		sys_exit_group(provoke(type) < 0 ? 2 : 0);
	time_sleep_ms(parse_ms(env_value(envp, "LKDTM_WAIT_MS"), 3000));
	if (pid > 0)
		sys_wait4((int)pid, &status, 1 /* WNOHANG */, NULL);
	ktap_result(&top, true, "lkdtm");
	mb_done(&top);
}
