/*
 * kernel: the release of the running kernel (uname), for the few
 * properties whose behaviour changed at a known upstream commit: a test
 * checks the behaviour of the kernel it runs on, and names the commit.
 */
#ifndef GT_KERNEL_H
#define GT_KERNEL_H

#include <stdbool.h>

/*
 * Whether the running kernel is MAJOR.MINOR or newer.  A release that
 * cannot be read counts as new: the current contract is the default.
 */
bool kernel_at_least(unsigned int major, unsigned int minor);

#endif
