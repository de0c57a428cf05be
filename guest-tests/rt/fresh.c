#include "fresh.h"

#include "fpstate.h"
#include "proc.h"
#include "sys.h"

#define FRESH_INIT_PATH "/init"
#define FRESH_FSW 0x0000
#define FRESH_TAG 0xffff	/* all eight registers empty */

static bool fresh_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

bool fresh_is_probe(int argc, char **argv)
{
	return argc == 3 && fresh_streq(argv[1], FRESH_PROBE_ARG);
}

int fresh_probe_main(char **argv)
{
	struct x87_fsave image;
	int fd = 0;

	__asm__ volatile("fnsave %0" : "=m"(image) : : "memory");
	for (const char *p = argv[2]; *p >= '0' && *p <= '9'; p++)
		fd = fd * 10 + (*p - '0');
	return proc_write(fd, &image, sizeof(image)) < 0;
}

long fresh_exec_probe(int write_fd)
{
	char fd_text[12];
	struct fmt_buf b;
	char *argv[] = { FRESH_INIT_PATH, FRESH_PROBE_ARG, fd_text, NULL };
	char *envp[] = { NULL };

	fmt_init(&b, fd_text, sizeof(fd_text));
	fmt_addf(&b, "%d", write_fd);
	return sys_execve(FRESH_INIT_PATH, argv, envp);
}

void fresh_check(struct ktap_check *check, const char *where, const struct x87_fsave *image)
{
	ktap_check_expect(check, (uint16_t)image->env.cw == X87_CW_DEFAULT,
			  "expected FCW 0x%04x %s, got 0x%04x", X87_CW_DEFAULT, where,
			  (uint16_t)image->env.cw);
	ktap_check_expect(check, (uint16_t)image->env.sw == FRESH_FSW,
			  "expected FSW 0x%04x %s, got 0x%04x", FRESH_FSW, where,
			  (uint16_t)image->env.sw);
	ktap_check_expect(check, (uint16_t)image->env.tag == FRESH_TAG,
			  "expected tag word 0x%04x (all empty) %s, got 0x%04x", FRESH_TAG, where,
			  (uint16_t)image->env.tag);
}

void fresh_check_report(struct ktap_check *check, const struct x87_fsave *image, long got)
{
	ktap_check_expect(check, got == (long)sizeof(*image),
			  "expected %u bytes of state from the new program, got %ld",
			  (unsigned int)sizeof(*image), got);
	if (got == (long)sizeof(*image)) {
		fresh_check(check, "in the new program", image);
		/* No x87 instruction ran yet: the pointers are init_fpstate's, as fninit gives. */
		ktap_check_expect(check, !image->env.ip && !(uint16_t)image->env.cs &&
				  !image->env.dp && !(uint16_t)image->env.ds,
				  "expected FIP, FCS, FDP and FDS 0 in the new program, got 0x%08x "
				  "0x%04x 0x%08x 0x%04x", image->env.ip, (uint16_t)image->env.cs,
				  image->env.dp, (uint16_t)image->env.ds);
	}
}

static int fresh_exec_child(int write_fd, void *arg)
{
	const struct fpstate_spec *spec = arg;

	fpstate_load(spec);
	return (int)-fresh_exec_probe(write_fd);
}

void fresh_run_probe(struct ktap_check *check, const struct fpstate_spec *spec)
{
	struct x87_fsave image;
	struct proc_child child;
	long err, status = 0, got = 0;

	err = proc_start(&child, fresh_exec_child, (void *)spec);
	if (err == 0)
		status = proc_finish(&child, &image, sizeof(image), &got);
	ktap_check_expect(check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(check, status == 0,
			  "expected the new program to exit with 0, got status 0x%lx", status);
	fresh_check_report(check, &image, got);
}
