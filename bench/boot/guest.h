/*
 * guest: one libvirt transient domain per boot.
 *
 * A struct guest_conn is a libvirt connection whose lifecycle events the
 * process's event loop delivers (virt_loop_start()); it is safe to run
 * several guests on one connection from several threads.  With the
 * embedded driver (qemu:///embed, embed_uri()) qemu is a descendant of the
 * bench, which reaps it (reaper_start()) and ends a guest's qemu as soon as
 * the guest shuts down (reaper_qemu_end()).
 *
 * A guest gets no network device and no host filesystem (domain_xml_build()
 * says what its domain holds); embed_prepare() makes the embedded driver's
 * root, where QEMU's sockets are, private.
 *
 * The console cap: QEMU writes the serial console to a file, as fast as
 * the guest sends it (about 0.5 MB/s under TCG), and a guest may never
 * stop.  guest_run() checks the file's size every WAIT_SLICE_S (0.25 s)
 * and destroys the guest once it passes CONSOLE_MAX (16 MiB); the
 * file then ends a little past the cap, by what the guest wrote in that
 * last slice.  Readers take at most CONSOLE_MAX bytes of it.
 */
#ifndef FPUBENCH_GUEST_H
#define FPUBENCH_GUEST_H

#include "errors.h"

#include "cpu.h"
#include "judge/console.h"

#include <stdatomic.h>
#include <stdbool.h>

#define GUEST_NAME_PREFIX "fpubench-"

struct guest_conn;

struct guest_spec {
	const char *name;	/* domain name, GUEST_NAME_PREFIX... */
	const char *kernel;	/* absolute paths */
	const char *initrd;
	const char *cmdline;
	const char *console;	/* the serial console's log file */
	const struct cpu_setup *cpu;
	unsigned memory_mib;
	/*
	 * For a restore (guest_conn_restore()); a spec without base_cmdline
	 * boots cold.  base_cmdline is cmdline without the tests and start,
	 * which a restored guest is told instead.
	 */
	const char *base_cmdline;
	const char *build_id;
	const char *tests;	/* comma-separated, or NULL: all */
	int start;		/* the first test's number, from 1 */
	/* What a lab's job names (its name and metadata); a libvirt guest has its name. */
	const char *run_id, *variant, *version, *commit;
	/* Once true, the guest is destroyed: its run stopped early (--fail-fast).  NULL: never. */
	const atomic_bool *cancel;
};

struct guest_outcome {
	bool timed_out;		/* destroyed after the time limit */
	bool flooded;		/* destroyed when its console passed CONSOLE_MAX */
	bool interrupted;	/* destroyed because the bench was told to stop */
	bool cancelled;		/* destroyed because spec->cancel was set */
	double seconds;		/* from start (or restore) to stop */
	bool restored;		/* restored from a saved guest, not booted */
};

/*
 * Connects to `uri`.  For an embedded URI, prepares its root first
 * (embed_prepare()).  ERR_LIBVIRT carries libvirt's message.
 */
int guest_conn_open(struct guest_conn **out, const char *uri);

void guest_conn_free(struct guest_conn *gc);

/*
 * Makes the connection stage its guests' files in `dir` on the host (see
 * stage.h), for a host that does not share our filesystem.
 */
int guest_conn_stage(struct guest_conn *gc, const char *dir);

/*
 * Makes the connection run its boots through saved guests in `dir` (see
 * restore.h).  A connection that stages files (a remote host) boots every
 * guest cold: its images would have to come back over the connection.
 */
int guest_conn_restore(struct guest_conn *gc, const char *dir);

/*
 * How many guests of memory_mib the host can run at once: two per core,
 * fewer when its free memory does not hold them; at least 1.
 */
int guest_conn_capacity(struct guest_conn *gc, unsigned memory_mib);

/* Whether the connection still works (a daemon may have gone away). */
bool guest_conn_alive(struct guest_conn *gc);

/* cpu_check_setups() against the connection's libvirt: ERR_CPU for a name it does not know. */
int guest_check_cpus(struct guest_conn *gc, const struct cpu_setup *setups, size_t n);

/*
 * On a connection with guest_conn_restore() and a spec with base_cmdline,
 * runs the boot through a saved guest (restore.h).  libvirt has no
 * AUTODESTROY for a restore: on a daemon, the restored guest of a killed
 * bench runs on until its /init reboots (each test has its own time limit),
 * or for good if its kernel hangs.  Otherwise: starts the domain (VIR_DOMAIN_START_AUTODESTROY) and waits until it stops,
 * timeout_s passes, its console passes CONSOLE_MAX or spec->cancel is set,
 * destroying it in the last three cases (a restored guest alike; its saved
 * image stays in the store).  Returns 0 with the outcome, or
 * ERR_LIBVIRT (ERR_CPU for a CPU libvirt refuses) if it did not start.
 */
int guest_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
	      struct guest_outcome *out);

/* Makes every guest_run() destroy its domain and return; async-signal-safe. */
void guest_interrupt(void);

#endif
