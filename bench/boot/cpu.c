#include "cpu.h"

#include "lib/error.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

const char *const cpu_default_setups[] = {
	"486",
	"pentium",
	"pentium2,-fxsr",
	"qemu32,-sse,-sse2,-fxsr",
	"pentium3:nofxsr",
	"pentium3",
	"qemu32",
};
const size_t cpu_default_setups_count =
	sizeof(cpu_default_setups) / sizeof(cpu_default_setups[0]);

/* libvirt's x86 models that predate FXSR (the Pentium II brought it). */
static const char *const models_without_fxsr[] = { "486", "pentium" };

/* libvirt's 32-bit models by CPUID family, as QEMU defines them. */
static const struct {
	const char *model;
	int family;
} model_families[] = {
	{ "486", 4 }, { "pentium", 5 }, { "pentiumpro", 6 }, { "pentium2", 6 }, { "pentium3", 6 },
	{ "qemu32", 6 }, { "kvm32", 6 }, { "coreduo", 6 }, { "n270", 6 }, { "athlon", 6 },
};

int cpu_setup_family(const struct cpu_setup *c)
{
	for (size_t i = 0; i < sizeof(model_families) / sizeof(model_families[0]); i++)
		if (strcmp(c->model, model_families[i].model) == 0)
			return model_families[i].family;
	return 0;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

int cpu_setup_parse(struct cpu_setup *out, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char *cpu, *copy = NULL, *save = NULL, *tok;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->spec = xstrdup(spec);
	out->cpu = cpu = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(spec);
	out->cmdline = xstrdup(colon ? colon + 1 : "");
	for (char *p = out->cmdline; *p; p++) {
		if (*p == ',')
			*p = ' ';
		/* The cmdline lands in XML and on the guest's command line: keep it plain. */
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) {
			err = error_set(ERR_USAGE, "cpu setup '%s': bad kernel parameters", spec);
			goto out;
		}
	}

	copy = xstrdup(cpu);
	tok = strtok_r(copy, ",", &save);
	/* strtok_r skips empty fields: ",486", "486,,-fxsr" and "486," are not setups. */
	if (copy[0] == ',' || strstr(cpu, ",,") || (*cpu && cpu[strlen(cpu) - 1] == ',') || !tok ||
	    !valid_name(tok)) {
		err = error_set(ERR_USAGE, "cpu setup '%s': expected MODEL[,-FEATURE]...[:PARAMS]", spec);
		goto out;
	}
	out->model = xstrdup(tok);
	while (!err && (tok = strtok_r(NULL, ",", &save))) {
		if ((tok[0] != '-' && tok[0] != '+') || !valid_name(tok + 1)) {
			err = error_set(ERR_USAGE, "cpu setup '%s': feature '%s' needs a + or - and a name",
					spec, tok);
		} else if (out->nfeatures == CPU_FEATURES_MAX) {
			err = error_set(ERR_USAGE, "cpu setup '%s': more than %d features", spec,
					CPU_FEATURES_MAX);
		} else {
			out->features[out->nfeatures].name = xstrdup(tok + 1);
			out->features[out->nfeatures].enable = tok[0] == '+';
			out->nfeatures++;
		}
	}
out:
	free(copy);
	if (err)
		cpu_setup_release(out);
	return err;
}

void cpu_setup_release(struct cpu_setup *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfeatures; i++)
		free(c->features[i].name);
	free(c->spec);
	free(c->cpu);
	free(c->model);
	free(c->cmdline);
	memset(c, 0, sizeof(*c));
}

static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = cmdline; (p = strstr(p, word)); p += n)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

bool cpu_setup_uses_fsave(const struct cpu_setup *c)
{
	bool fxsr = true;

	for (size_t i = 0; i < sizeof(models_without_fxsr) / sizeof(models_without_fxsr[0]); i++)
		if (strcmp(c->model, models_without_fxsr[i]) == 0)
			fxsr = false;
	for (size_t i = 0; i < c->nfeatures; i++)
		if (strcmp(c->features[i].name, "fxsr") == 0)
			fxsr = c->features[i].enable;
	return !fxsr || cmdline_has(c->cmdline, "nofxsr");
}
