/*
 * cpu_check: the CPU setups' names checked against libvirt's, before
 * anything is built, so that a misspelt model or feature is a one-line
 * error naming the setup and the nearest known name ("did you mean").
 *
 * Models are checked against the connection's list of i686 models (one
 * listing for all setups: each costs the embedded driver 7 ms); a driver
 * that cannot list them leaves the model to the domain's start.  Features
 * are checked against libvirt's CPU map, CPU_CHECK_FEATURES_MAP, when this
 * machine has it, since no driver lists them.
 */
#ifndef FPUBENCH_CPU_CHECK_H
#define FPUBENCH_CPU_CHECK_H

#include "errors.h"

#include "cpu.h"

#include <stddef.h>

#include <libvirt/libvirt.h>

/* libvirt's list of x86 CPU features on this machine. */
#define CPU_CHECK_FEATURES_MAP "/usr/share/libvirt/cpu_map/x86_features.xml"

/*
 * ERR_CPU, naming the first such setup and the nearest known name, when
 * libvirt at conn does not know a setup's model, or one of its features.
 */
int cpu_check_setups(virConnectPtr conn, const struct cpu_setup *setups, size_t n);

/*
 * The same check against this machine's libvirt, without a connection to
 * a host: what a run on local guests does before it builds anything.
 * ERR_LIBVIRT when libvirt's test driver does not open.
 */
int cpu_check_local(const struct cpu_setup *setups, size_t n);

#endif
