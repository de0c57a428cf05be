/*
 * reaper: the qemu processes of the embedded driver's domains.
 *
 * With the embedded driver (qemu:///embed) qemu is a descendant of the
 * bench.  reaper_start() makes the bench a child subreaper, so an orphaned
 * qemu becomes our child rather than PID 1's: PID 1 reaps orphans only
 * every second or so on some hosts, and libvirt waits for the pid to
 * vanish.  A timer on libvirt's event loop (virt_loop_start() first) then
 * reaps, every REAPER_INTERVAL_MS, the zombie children named qemu-system*;
 * other children belong to libvirt, which waits for them itself.
 *
 * A domain's qemu is the pid in libvirt's pid file NAME.pid in the
 * driver's state directory, when /proc says that process is the qemu of
 * guest NAME (pids are reused).
 */
#ifndef FPUBENCH_REAPER_H
#define FPUBENCH_REAPER_H

#include "errors.h"

#include <stdbool.h>
#include <sys/types.h>

#define REAPER_INTERVAL_MS 50

/*
 * 1 once the bench is a subreaper and reaps its qemu zombies; 0 when the
 * kernel refuses (PID 1 reaps them then); ERR_LIBVIRT when libvirt would
 * not take the timer.  Any thread, any number of times.
 */
int reaper_start(void);

/* The pid in libvirt's pid file "NAME.pid" in state_dir, or 0. */
pid_t reaper_qemu_pid(const char *state_dir, const char *name);

/* Whether process pid is the qemu of domain name. */
bool reaper_is_qemu_of(pid_t pid, const char *name);

/*
 * A pidfd for the qemu of domain name, read from its pid file in
 * state_dir, if that qemu is our child (we are its subreaper); or -1.
 */
int reaper_qemu_open(const char *state_dir, const char *name);

/*
 * Kills the qemu of pidfd, whose guest has shut down, and reaps it (waiting
 * up to 2 s for the kernel to free its memory).
 */
void reaper_qemu_end(int pidfd);

#endif
