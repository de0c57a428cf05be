/*
 * domain_xml: the libvirt domain of one boot, as XML.
 *
 * A guest gets no network device and no host filesystem: the domain has
 * no <interface>, <disk>, <filesystem> or <hostdev>, and libvirt starts
 * QEMU with -nodefaults, so nothing is added behind our back.  Its only
 * devices are the serial console (a file on the host), a USB controller
 * of model "none" and a memballoon of model "none"; every way the guest
 * stops (poweroff, reboot, crash) destroys it.  The CPU is the setup's
 * model with fallback forbidden and its features required or disabled.
 *
 * domain_xml_build() is pure, for unit tests.
 */
#ifndef FPUBENCH_DOMAIN_XML_H
#define FPUBENCH_DOMAIN_XML_H

#include "guest.h"

/* Builds the domain XML of spec; caller frees *out. */
int domain_xml_build(const struct guest_spec *spec, char **out);

/*
 * What a guest that parks (bench/boot/saved_guest.h) has besides: its
 * command line, a UUID that its restores keep (libvirt checks it), the
 * host end of its second serial port (ttyS1), a unix socket QEMU listens
 * on, and a console that QEMU appends to, after the saved console.
 */
struct domain_park {
	const char *cmdline;
	const char *uuid;
	const char *socket;
};

int domain_xml_build_parked(const struct guest_spec *spec, const struct domain_park *park,
			    char **out);

#endif
