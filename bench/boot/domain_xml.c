#include "domain_xml.h"

#include "lib/xmlw.h"

#include <stdbool.h>
#include <stdio.h>

/* A parked guest's console goes on after the console of its save, which the host put there. */
static void console_source(struct xmlw *x, const char *path, bool append)
{
	xmlw_element(x, "source", NULL, "path", path, append ? "append" : NULL, "on", NULL);
}

static int domain_xml(const struct guest_spec *spec, const struct domain_park *park, char **out)
{
	const struct cpu_setup *cpu = spec->cpu;
	struct xmlw x;
	char memory[16];

	snprintf(memory, sizeof(memory), "%u", spec->memory_mib);
	xmlw_begin(&x);
	xmlw_open(&x, "domain", "type", "qemu", NULL);
	xmlw_element(&x, "name", spec->name, NULL);
	if (park)
		xmlw_element(&x, "uuid", park->uuid, NULL);
	xmlw_element(&x, "memory", memory, "unit", "MiB", NULL);
	xmlw_element(&x, "vcpu", "1", NULL);
	xmlw_open(&x, "os", NULL);
	xmlw_element(&x, "type", "hvm", "arch", "i686", "machine", "pc", NULL);
	xmlw_element(&x, "kernel", spec->kernel, NULL);
	xmlw_element(&x, "initrd", spec->initrd, NULL);
	xmlw_element(&x, "cmdline", park ? park->cmdline : spec->cmdline, NULL);
	xmlw_close(&x);
	xmlw_open(&x, "features", NULL);
	xmlw_element(&x, "acpi", NULL, NULL);
	xmlw_close(&x);
	xmlw_open(&x, "cpu", "mode", "custom", "match", "exact", NULL);
	xmlw_element(&x, "model", cpu->model, "fallback", "forbid", NULL);
	for (size_t i = 0; i < cpu->nfeatures; i++)
		xmlw_element(&x, "feature", NULL, "policy",
			     cpu->features[i].enable ? "require" : "disable", "name",
			     cpu->features[i].name, NULL);
	xmlw_close(&x);
	xmlw_element(&x, "clock", NULL, "offset", "utc", NULL);
	xmlw_element(&x, "on_poweroff", "destroy", NULL);
	xmlw_element(&x, "on_reboot", "destroy", NULL);
	xmlw_element(&x, "on_crash", "destroy", NULL);
	/* The console only: no <interface>, <disk> or <filesystem>. */
	xmlw_open(&x, "devices", NULL);
	xmlw_element(&x, "controller", NULL, "type", "usb", "model", "none", NULL);
	xmlw_open(&x, "serial", "type", "file", NULL);
	console_source(&x, spec->console, park != NULL);
	xmlw_element(&x, "target", NULL, "port", "0", NULL);
	xmlw_close(&x);
	if (park) {
		xmlw_open(&x, "serial", "type", "unix", NULL);
		xmlw_element(&x, "source", NULL, "mode", "bind", "path", park->socket, NULL);
		xmlw_element(&x, "target", NULL, "port", "1", NULL);
		xmlw_close(&x);
	}
	xmlw_open(&x, "console", "type", "file", NULL);
	console_source(&x, spec->console, park != NULL);
	xmlw_element(&x, "target", NULL, "type", "serial", "port", "0", NULL);
	xmlw_close(&x);
	xmlw_element(&x, "memballoon", NULL, "model", "none", NULL);
	xmlw_close(&x);
	xmlw_close(&x);
	return xmlw_finish(&x, "the domain", out);
}

int domain_xml_build(const struct guest_spec *spec, char **out)
{
	return domain_xml(spec, NULL, out);
}

int domain_xml_build_parked(const struct guest_spec *spec, const struct domain_park *park,
			    char **out)
{
	return domain_xml(spec, park, out);
}
