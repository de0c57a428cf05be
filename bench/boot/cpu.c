#include "cpu.h"

#include "lib/array.h"
#include "lib/error.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/*
 * libvirt's 32-bit x86 models as QEMU defines them: the CPUID family, and
 * whether the model has FXSR (the Pentium II brought it; QEMU's Pentium Pro
 * has it too).  A model not here is taken to have FXSR and any family.
 */
static const struct cpu_model {
	const char *name;
	int family;
	bool fxsr;
} cpu_models[] = {
	{ "486", 4, false },
	{ "pentium", 5, false },
	{ "pentiumpro", 6, true },
	{ "pentium2", 6, true },
	{ "pentium3", 6, true },
	{ "qemu32", 6, true },
	{ "kvm32", 6, true },
	{ "coreduo", 6, true },
	{ "n270", 6, true },
	{ "athlon", 6, true },
};

static const struct cpu_model *cpu_model_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cpu_models); i++)
		if (strcmp(name, cpu_models[i].name) == 0)
			return &cpu_models[i];
	return NULL;
}

int cpu_setup_family(const struct cpu_setup *c)
{
	const struct cpu_model *m = c->board ? NULL : cpu_model_find(c->model);

	return m ? m->family : 0;
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

	if (cpu[0] == '@') {
		if (!valid_name(cpu + 1))
			err = error_set(ERR_USAGE, "cpu setup '%s': expected @BOARD[:PARAMS]", spec);
		out->board = xstrdup(cpu + 1);
		out->model = xstrdup(cpu + 1);
		goto out;
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
	free(c->board);
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
	if (c->board)
		return c->board_fsave || cmdline_has(c->cmdline, "nofxsr");
	const struct cpu_model *m = cpu_model_find(c->model);
	bool fxsr = !m || m->fxsr;

	for (size_t i = 0; i < c->nfeatures; i++)
		if (strcmp(c->features[i].name, "fxsr") == 0)
			fxsr = c->features[i].enable;
	return !fxsr || cmdline_has(c->cmdline, "nofxsr");
}
