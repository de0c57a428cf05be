#include "options.h"

#include "lib/error.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


const struct command_def *options_command_def(enum cmd cmd)
{
	for (size_t i = 0; command_defs[i]; i++)
		if (command_defs[i]->cmd == cmd)
			return command_defs[i];
	return NULL;
}

enum cmd options_command(const char *name)
{
	for (size_t i = 0; command_defs[i]; i++)
		if (strcmp(command_defs[i]->name, name) == 0)
			return command_defs[i]->cmd;
	return 0;
}

/* Every command's -h and --help. */
static const struct opt help_row = { "help", 'h', NULL, OPT_FLAG, 0, 0, 0, "show this help" };

void optlist_push(struct optlist *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = s;
}

int options_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!(*s >= '0' && *s <= '9') && !(*s == '-' && min < 0))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!(*s >= '0' && *s <= '9') && *s != '.')
		return -1;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int opt_store(struct options *o, const struct opt *opt, const char *value)
{
	void *field = (char *)o + opt->offset;

	switch (opt->type) {
	case OPT_STRING:
		*(const char **)field = value;
		return 0;
	case OPT_LIST:
		optlist_push(field, value);
		return 0;
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_LONG:
		if (options_parse_long(value, opt->min, opt->max, field) < 0)
			return error_set(ERR_USAGE, "bad --%s '%s' (a whole number from %ld to %ld)",
					 opt->name, value, opt->min, opt->max);
		return 0;
	case OPT_SECONDS:
		if (parse_seconds(value, (double)opt->max, field) < 0)
			return error_set(ERR_USAGE, "bad --%s '%s' (seconds, above 0 and at most %ld)",
					 opt->name, value, opt->max);
		return 0;
	}
	return 0;
}

/* Whether another command has an option of that long name (len bytes) or short name. */
static bool another_has(const char *name, size_t len, char short_name)
{
	for (size_t i = 0; command_defs[i]; i++)
		for (const struct opt *opt = command_defs[i]->opts; opt->name; opt++)
			if (name ? strlen(opt->name) == len && strncmp(opt->name, name, len) == 0
				 : opt->short_name == short_name)
				return true;
	return false;
}

static int not_this_commands(const struct options *o, const char *spelled)
{
	return error_set(ERR_USAGE, "'%s' takes no %s (see 'fpubench %s --help')",
			 o->command_name, spelled, o->command_name);
}

/* The command's row of a long name or of a unique prefix of one; ERR_USAGE otherwise. */
static int opt_find_long(const struct options *o, const struct command_def *def, const char *name,
			 size_t len, const struct opt **out)
{
	const struct opt *found = NULL;
	struct strbuf all = STRBUF_INIT;
	size_t matches = 0;
	int err;

	if (len == 4 && strncmp(name, "help", 4) == 0) {
		*out = &help_row;
		return 0;
	}
	for (const struct opt *opt = def->opts; opt->name; opt++) {
		if (strncmp(opt->name, name, len) != 0)
			continue;
		if (strlen(opt->name) == len) {
			*out = opt;
			strbuf_release(&all);
			return 0;
		}
		strbuf_addf(&all, "%s--%s", matches ? ", " : "", opt->name);
		found = opt;
		matches++;
	}
	if (matches == 1) {
		*out = found;
		strbuf_release(&all);
		return 0;
	}
	if (matches) {
		err = error_set(ERR_USAGE, "ambiguous option '--%.*s' (%s)", (int)len, name, all.buf);
	} else if (another_has(name, len, 0)) {
		char spelled[64];

		snprintf(spelled, sizeof(spelled), "--%.*s", (int)len, name);
		err = not_this_commands(o, spelled);
	} else {
		err = error_set(ERR_USAGE, "unknown option '--%.*s'", (int)len, name);
	}
	strbuf_release(&all);
	return err;
}

static int opt_find_short(const struct options *o, const struct command_def *def, char c,
			  const struct opt **out)
{
	char spelled[3] = { '-', c, '\0' };

	if (c == 'h') {
		*out = &help_row;
		return 0;
	}
	for (const struct opt *opt = def->opts; opt->name; opt++)
		if (opt->short_name && opt->short_name == c) {
			*out = opt;
			return 0;
		}
	if (another_has(NULL, 0, c))
		return not_this_commands(o, spelled);
	return error_set(ERR_USAGE, "unknown option '-%c'", c);
}

int options_parse(struct options *o, enum cmd command, int argc, char **argv)
{
	const struct command_def *def = options_command_def(command);
	bool operands_only = false;
	int err;

	o->command = command;
	o->command_name = def->name;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *value = NULL, *eq;
		const struct opt *opt = NULL;
		char spelled[64];

		if (operands_only || a[0] != '-' || strcmp(a, "-") == 0) {
			optlist_push(&o->operands, a);
			continue;
		}
		if (strcmp(a, "--") == 0) {
			operands_only = true;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			if ((err = opt_find_long(o, def, a + 2,
						 eq ? (size_t)(eq - a - 2) : strlen(a + 2), &opt)) < 0)
				return err;
			snprintf(spelled, sizeof(spelled), "--%s", opt->name);
			if (eq)
				value = eq + 1;
		} else {
			if ((err = opt_find_short(o, def, a[1], &opt)) < 0)
				return err;
			snprintf(spelled, sizeof(spelled), "-%c", a[1]);
			if (a[2])
				value = a + 2;
		}
		if (opt == &help_row) {
			options_print_help(stdout, command);
			return 1;
		}
		if (opt->type == OPT_FLAG) {
			if (value)
				return error_set(ERR_USAGE, "option '%s' takes no value", spelled);
		} else if (!value) {
			if (i + 1 >= argc)
				return error_set(ERR_USAGE, "option '%s' needs a value", spelled);
			value = argv[++i];
		}
		if ((err = opt_store(o, opt, value)) < 0)
			return err;
	}
	return 0;
}

/* Writes text from column `indent` on, wrapped before `width`. */
static void print_wrapped(FILE *out, const char *text, int indent, int column, int width)
{
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " ");

		if (column > indent && column + 1 + (int)word > width) {
			fprintf(out, "\n%*s", indent, "");
			column = indent;
		} else if (column > indent) {
			fputc(' ', out);
			column++;
		}
		fprintf(out, "%.*s", (int)word, p);
		column += (int)word;
		p += word;
		p += strspn(p, " ");
	}
	fputc('\n', out);
}

void options_print_help(FILE *out, enum cmd command)
{
	const struct command_def *c = options_command_def(command);

	fprintf(out, "usage: %s\n\n%s\n\noptions:\n", c->usage, c->what);
	for (const struct opt *opt = c->opts;; opt++) {
		char head[64];
		int n;

		if (!opt->name)
			opt = &help_row;
		if (opt->short_name)
			n = snprintf(head, sizeof(head), "  -%c, --%s%s%s", opt->short_name, opt->name,
				     opt->arg ? " " : "", opt->arg ? opt->arg : "");
		else
			n = snprintf(head, sizeof(head), "      --%s%s%s", opt->name,
				     opt->arg ? " " : "", opt->arg ? opt->arg : "");
		fputs(head, out);
		if (n >= 26) {
			fprintf(out, "\n%*s", 26, "");
			n = 26;
		} else {
			fprintf(out, "%*s", 26 - n, "");
			n = 26;
		}
		print_wrapped(out, opt->help, 26, n, 79);
		if (opt == &help_row)
			break;
	}
}

void options_print_commands(FILE *out)
{
	fputs("usage: fpubench [--version] [--help] COMMAND [OPTION]...\n\ncommands:\n", out);
	for (size_t i = 0; command_defs[i]; i++)
		fprintf(out, "  %-12s%s\n", command_defs[i]->name, command_defs[i]->summary);
	fputs("\n'fpubench help COMMAND' or 'fpubench COMMAND --help' shows a command's options.\n",
	      out);
}

void options_dump(FILE *out)
{
	for (size_t i = 0; command_defs[i]; i++) {
		const struct command_def *c = command_defs[i];
		const char *u = c->usage;

		fprintf(out, "command\t%s\t%s\n", c->name, c->summary);
		while (*u) {
			size_t n = strcspn(u, "\n");

			fprintf(out, "usage\t%s\t%.*s\n", c->name, (int)n, u);
			u += n;
			u += strspn(u, "\n");
			u += strncmp(u, "   or: ", 7) == 0 ? 7 : 0;
		}
		for (const struct opt *opt = c->opts;; opt++) {
			char short_name[3];

			if (!opt->name)
				opt = &help_row;
			short_name[0] = '-';
			short_name[1] = opt->short_name;
			short_name[2] = '\0';
			fprintf(out, "option\t%s\t%s\t--%s\t%s\t%s\n", c->name,
				opt->short_name ? short_name : "", opt->name, opt->arg ? opt->arg : "",
				opt->help);
			if (opt == &help_row)
				break;
		}
	}
}

void options_release(struct options *o)
{
	free(o->cpus.v);
	free(o->variants.v);
	free(o->patch_files.v);
	free(o->tests.v);
	free(o->archives.v);
	free(o->uris.v);
	free(o->labs.v);
	free(o->operands.v);
}
