/*
 * virt_log: libvirt's own log lines, kept in the run directory.
 *
 * Left alone, libvirt writes its warnings and errors to the bench's
 * stderr, through the progress line: "warning : qemuDomainObjTaintMsg:...
 * is tainted: high-privileges" for every guest of the embedded driver, and
 * "info : libvirt version" before the first.  libvirt reads its outputs
 * (LIBVIRT_LOG_OUTPUTS) once, when the process first calls it, so
 * virt_log_start() must come before any libvirt call, the CPU check's
 * test:///default connection included.  It points libvirt's output at a
 * pipe that a thread of ours drains into the file virt_log_redirect()
 * names (a run directory's libvirt.log), keeping the first 64 KiB that
 * come before there is one.  An error of a boot that failed for libvirt's
 * sake names that file (virt_log_note()).
 *
 * A LIBVIRT_LOG_OUTPUTS the user set is theirs: libvirt logs where it says
 * and the functions below do nothing.  The variable is unset again once
 * libvirt has read it, so a child bench sets up its own.
 */
#ifndef FPUBENCH_VIRT_LOG_H
#define FPUBENCH_VIRT_LOG_H

/* Sets up the pipe and initializes libvirt; once a process, any thread. */
void virt_log_start(void);

/*
 * libvirt's lines go to path from now on (appended), those kept until now
 * first; NULL: kept in memory again.  The old file gets all that libvirt
 * wrote before this call.
 */
int virt_log_redirect(const char *path);

/* " (libvirt's log: PATH)" for an error message, or "" without a file (caller frees). */
char *virt_log_note(void);

#endif
