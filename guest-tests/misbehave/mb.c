#include "mb.h"

#include "rt/sys.h"
#include "rt/time.h"

#include <asm/errno.h>

void mb_raw(const void *bytes, size_t len)
{
	const char *p = bytes;

	while (len) {
		long n = sys_write(1, p, len);

		if (n == -EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

void mb_hang(void)
{
	for (;;)
		time_sleep_ms(60000);
}

void mb_reboot(const struct ktap *top)
{
	long err = sys_reboot(LINUX_REBOOT_CMD_RESTART);

	ktap_diag(top, "fpubench: reboot failed (error %ld)", err);
	mb_hang();
}

void mb_start(struct ktap *top, int plan)
{
	ktap_init(top, 0);
	ktap_header(top);
	ktap_plan(top, plan);
}

void mb_begin(struct ktap *top, int number, const char *name)
{
	struct ktap subtests;

	ktap_number_next(top, number);
	ktap_diag(top, "fpubench: begin %d %s", number, name);
	ktap_init(&subtests, top->depth + 1);
	ktap_header(&subtests);
}

void mb_pass(struct ktap *top, int number, const char *name)
{
	mb_begin(top, number, name);
	ktap_result(top, true, name);
	ktap_diag(top, "fpubench: duration_ms 1");
}

void mb_done(const struct ktap *top)
{
	ktap_diag(top, "fpubench: done");
	mb_reboot(top);
}
