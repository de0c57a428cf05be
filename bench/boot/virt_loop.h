/*
 * virt_loop: libvirt's setup for the process, and its one event loop.
 *
 * libvirt delivers a connection's events (a domain's lifecycle, a timer's
 * tick) only while a thread runs its event loop; the bench runs the
 * default implementation for ever on a detached thread of its own, started
 * once, before the first connection that watches events.  Any thread may
 * then register events and timers on it.
 *
 * libvirt prints every error to stderr by default; the bench reports its
 * own, quoting virt_loop_last_error(), so virt_loop_init() silences that
 * printer and sends libvirt's log to the run directory (virt_log_start()).
 */
#ifndef FPUBENCH_VIRT_LOOP_H
#define FPUBENCH_VIRT_LOOP_H

#include "errors.h"

/* Routes libvirt's log and errors away from stderr; before any libvirt call, any thread. */
void virt_loop_init(void);

/*
 * virt_loop_init(), then starts the event loop thread; once a process, any
 * thread.  ERR_LIBVIRT when libvirt or the thread could not start it (then
 * for good: later calls fail too).
 */
int virt_loop_start(void);

/* libvirt's last error message on this thread, for an error of ours; never NULL. */
const char *virt_loop_last_error(void);

#endif
