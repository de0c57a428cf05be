/*
 * mb: what the misbehaving payloads share.  Each payload in this directory
 * is a whole /init of its own (no tests table, no init.c) that breaks the
 * console protocol (../README.md) in one way, so that end-to-end tests can
 * check the host's verdict for it (tests/e2e/misbehave.sh).
 */
#ifndef GT_MB_H
#define GT_MB_H

#include "rt/ktap.h"

#include <stddef.h>

/*
 * Writes `len` bytes to the console as they are (NULs too), without
 * waiting for the UART; a later ktap_*() line drains them with its own.
 */
void mb_raw(const void *bytes, size_t len);

/* mb_raw() of a string literal, which may hold NULs. */
#define MB_RAW(literal) mb_raw(literal, sizeof(literal) - 1)

/* Sleeps forever: PID 1 must not exit, or the kernel panics. */
__attribute__((noreturn)) void mb_hang(void);

/* Ends the guest as init does: reboot, which the host turns into destroy. */
__attribute__((noreturn)) void mb_reboot(const struct ktap *top);

/* The top level's KTAP header and a plan of `plan` tests, as init prints them. */
void mb_start(struct ktap *top, int plan);

/* "# fpubench: begin K name" and the test's KTAP header, as init prints them. */
void mb_begin(struct ktap *top, int number, const char *name);

/* Test `number` as init reports a pass: begin, "ok K name", its duration. */
void mb_pass(struct ktap *top, int number, const char *name);

/* "# fpubench: done", then mb_reboot(). */
__attribute__((noreturn)) void mb_done(const struct ktap *top);

#endif
