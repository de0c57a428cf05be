/*
 * restore: a boot through the connection's saved guests (saved_guest.h).
 *
 * The first boot of a key is cold (saved_guest.h says why); the second is
 * parked: its domain is the cold boot's, with
 * "fpubench_park=1" after its command line and a second serial port, a unix
 * socket in the store's directory.  /init says "parked" there once its plan
 * is printed; the domain is saved (virDomainSaveFlags) and published, and
 * the boot goes on as a restore.  A restore copies the saved console to the
 * boot's console file, restores the image with a per-boot domain XML (its
 * name, console and socket), and writes the guest its line: the tests and
 * start index of spec, the host's clock and 32 bytes of getrandom().
 * A guest that stops or times out before it parks (a kernel that dies
 * early, an /init that is not ours) was a cold boot with the cold command
 * line, and its outcome is the boot's.  A save that fails, or an image
 * libvirt will not restore, is dropped and the boot goes on cold.
 */
#ifndef FPUBENCH_RESTORE_H
#define FPUBENCH_RESTORE_H

#include "guest.h"

/* The parameter a parking /init looks for (guest-tests/rt/park.h). */
#define RESTORE_PARK_PARAM "fpubench_park=1"

/*
 * Runs spec's boot through a saved guest: 1 with *out set, 0 when it is to
 * boot cold (no store, no key, the key taken by another boot, a restore
 * that failed), or an error code as guest_run()'s.
 */
int restore_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
		struct guest_outcome *out);

#endif
