/*
 * errors: the boot stage's own error codes, below lib/error.h's ERR_STAGE;
 * the commands map them to their exit statuses (cmd_exit_status()).
 */
#ifndef FPUBENCH_BOOT_ERRORS_H
#define FPUBENCH_BOOT_ERRORS_H

#include "lib/error.h"

enum boot_error {
	ERR_CPU = ERR_STAGE,		/* unknown CPU model or feature */
	ERR_LIBVIRT = ERR_STAGE - 1,	/* libvirt unreachable or a domain failed */
	ERR_LAB = ERR_STAGE - 2,	/* a lab failed a boot for its own sake: tried elsewhere */
	ERR_LAB_JOB = ERR_STAGE - 3,	/* a lab refused a job or gave no usable log: an error cell */
};

#endif
