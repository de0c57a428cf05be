#include "error.h"
#include "array.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char message[1024];

static void set_message(const char *fmt, va_list ap, int with_errno)
{
	int saved = errno;
	int n = vsnprintf(message, sizeof(message), fmt, ap);

	if (with_errno && n >= 0 && (size_t)n < sizeof(message))
		snprintf(message + n, sizeof(message) - n, ": %s", strerror(saved));
}

int error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_message(fmt, ap, 0);
	va_end(ap);
	return code;
}

int error_set_errno(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_message(fmt, ap, 1);
	va_end(ap);
	return code;
}

const char *error_last(void)
{
	return message[0] ? message : "unknown error";
}

void error_clear(void)
{
	message[0] = '\0';
}

/* docs/fpubench.md ("EXIT STATUS") documents this table; keep them together. */
static const struct {
	int code;
	int status;
} exit_table[] = {
	{ 0, EXIT_OK },
	{ ERR_NOTFOUND, EXIT_INPUT },
	{ ERR_USAGE, EXIT_USAGE },
	{ ERR_APPLY, EXIT_UNTESTABLE },
	{ ERR_BUILD, EXIT_UNTESTABLE },
	{ ERR_CONFIG, EXIT_CONFIG },
	{ ERR_CACHE, EXIT_CACHE },
	{ ERR_INPUT, EXIT_INPUT },
	{ ERR_INTERRUPTED, EXIT_INTERRUPTED },
};

int error_exit_status(int code)
{
	for (size_t i = 0; i < ARRAY_SIZE(exit_table); i++)
		if (exit_table[i].code == code)
			return exit_table[i].status;
	return EXIT_INTERNAL;
}
