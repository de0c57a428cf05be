#include "error.h"

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

int error_exit_status(int code)
{
	switch (code) {
	case 0:
		return EXIT_OK;
	case ERR_USAGE:
		return EXIT_USAGE;
	case ERR_NOTFOUND:
		return EXIT_NOTFOUND;
	case ERR_APPLY:
	case ERR_BUILD:
		return EXIT_UNTESTABLE;
	case ERR_CONFIG:
		return EXIT_CONFIG;
	case ERR_CPU:
		return EXIT_CPU;
	case ERR_CACHE:
		return EXIT_CACHE;
	case ERR_LIBVIRT:
		return EXIT_LIBVIRT;
	case ERR_INTERRUPTED:
		return 130;
	case ERR_INPUT:
		return EXIT_INPUT;
	default:
		return EXIT_INTERNAL;
	}
}
