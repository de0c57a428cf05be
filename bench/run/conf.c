#include "conf.h"

#include "boot/cpu.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/str.h"
#include "lib/strbuf.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CONF_SIZE_MAX (1u << 20)
#define CONF_LINE_MAX 4096
#define CONF_TIMEOUT_MAX_S 86400.0	/* a boot that may take longer is a typo */
#define CONF_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

enum section {
	SEC_NONE, SEC_RUN, SEC_TREE, SEC_CPU, SEC_TESTS, SEC_EXPECT, SEC_HOST, SEC_REPORT, SEC_LAB,
	SEC_BOARD, SEC_COUNT
};

static const struct {
	const char *name;
	bool named;
} sections[SEC_COUNT] = {
	[SEC_RUN] = { "run", false },
	[SEC_TREE] = { "tree", true },
	[SEC_CPU] = { "cpu", false },
	[SEC_TESTS] = { "tests", false },
	[SEC_EXPECT] = { "expect", false },
	[SEC_HOST] = { "host", true },
	[SEC_REPORT] = { "report", false },
	[SEC_LAB] = { "lab", true },
	[SEC_BOARD] = { "board", true },
};

enum key {
	KEY_RESULTS, KEY_CACHE, KEY_SERIES, KEY_JOBS, KEY_TIMEOUT, KEY_BISECT, KEY_BISECT_BUDGET,
	KEY_SOURCE, KEY_TARBALL, KEY_REPO, KEY_BRANCH,
	KEY_SETUP, KEY_TEST, KEY_URI, KEY_HOST_JOBS, KEY_STAGE, KEY_FROM, KEY_ARCHIVE, KEY_COUNT
};

/* [expect] has no fixed keys: each key is a rule. */
static const struct {
	enum section section;
	const char *name;
	bool list;		/* repeatable */
} keys[KEY_COUNT] = {
	[KEY_RESULTS] = { SEC_RUN, "results", false },
	[KEY_CACHE] = { SEC_RUN, "cache", false },
	[KEY_SERIES] = { SEC_RUN, "series", false },
	[KEY_JOBS] = { SEC_RUN, "jobs", false },
	[KEY_TIMEOUT] = { SEC_RUN, "timeout", false },
	[KEY_BISECT] = { SEC_RUN, "bisect", false },
	[KEY_BISECT_BUDGET] = { SEC_RUN, "bisect-budget", false },
	[KEY_SOURCE] = { SEC_TREE, "source", false },
	[KEY_TARBALL] = { SEC_TREE, "tarball", false },
	[KEY_REPO] = { SEC_TREE, "repo", false },
	[KEY_BRANCH] = { SEC_TREE, "branch", false },
	[KEY_SETUP] = { SEC_CPU, "setup", true },
	[KEY_TEST] = { SEC_TESTS, "test", true },
	[KEY_URI] = { SEC_HOST, "uri", false },
	[KEY_HOST_JOBS] = { SEC_HOST, "jobs", false },
	[KEY_STAGE] = { SEC_HOST, "stage", false },
	[KEY_FROM] = { SEC_REPORT, "from", false },
	[KEY_ARCHIVE] = { SEC_REPORT, "archive", true },
};

struct parser {
	struct conf *c;
	int line;
	enum section section;
	int section_line;	/* the current section's header */
	char *label;		/* "[run]", "[tree debian]" */
	int key_line[KEY_COUNT];	/* where the current section set each key; 0: not set */
	bool seen[SEC_COUNT];	/* unnamed sections already given */
};

static int conf_error(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int conf_error(struct parser *p, int line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "'%s' line %d: ", p->c->path, line);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error_set(ERR_INPUT, "%s", sb.buf);
	strbuf_release(&sb);
	return ERR_INPUT;
}

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

static bool list_has(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static void list_add(char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

static int resolve_path(struct parser *p, const char *value, char **out)
{
	const char *path = p->c->path, *slash = strrchr(path, '/');
	const char *home = getenv("HOME");

	if (value[0] == '/') {
		*out = xstrdup(value);
	} else if (strncmp(value, "~/", 2) == 0) {
		if (!home || !*home)
			return conf_error(p, p->line, "cannot expand '%s': $HOME is not set", value);
		*out = xasprintf("%s/%s", home, value + 2);
	} else if (slash) {
		*out = xasprintf("%.*s/%s", (int)(slash - path), path, value);
	} else {
		*out = xstrdup(value);
	}
	return 0;
}

static int parse_jobs(struct parser *p, const char *value, int *out)
{
	if (!conf_jobs_parse(value, out))
		return conf_error(p, p->line, "bad jobs '%s' in %s (expected 1 to %d)", value,
				  p->label, CONF_JOBS_MAX);
	return 0;
}

static int parse_timeout(struct parser *p, const char *value, double *out)
{
	char *end;
	double t = strtod(value, &end);

	/* !(t > 0) also catches NaN; the maximum catches infinity. */
	if (*end || !(t > 0) || t > CONF_TIMEOUT_MAX_S)
		return conf_error(p, p->line,
				  "bad timeout '%s' in %s (expected seconds above 0, at most %.0f)",
				  value, p->label, CONF_TIMEOUT_MAX_S);
	*out = t;
	return 0;
}

static int parse_setup(struct parser *p, const char *value)
{
	struct cpu_setup setup;
	char *why;
	int err;

	if (cpu_setup_parse(&setup, value) < 0) {
		/* The cpu module's message names the spec; this one adds the line. */
		why = xstrdup(error_last());
		err = conf_error(p, p->line, "%s", why);
		free(why);
		return err;
	}
	cpu_setup_release(&setup);
	/* Cells are keyed by (variant, setup, test): a repeat would collide. */
	if (list_has(p->c->setups, p->c->nsetups, value))
		return conf_error(p, p->line, "cpu setup '%s' listed twice in %s", value, p->label);
	list_add(&p->c->setups, &p->c->nsetups, value);
	return 0;
}

static int parse_test(struct parser *p, const char *value)
{
	if (list_has(p->c->tests, p->c->ntests, value))
		return conf_error(p, p->line, "test '%s' listed twice in %s", value, p->label);
	list_add(&p->c->tests, &p->c->ntests, value);
	return 0;
}

static int parse_expect(struct parser *p, char *key, const char *value)
{
	static const char *const fpus[] = {
		[EXPECT_FPU_ANY] = "any", [EXPECT_FPU_FSAVE] = "fsave", [EXPECT_FPU_FXSAVE] = "fxsave",
	};
	struct expect_rule e = { 0 };
	struct strbuf names = STRBUF_INIT;
	char *words[3];
	size_t fpu = 0;
	int err;

	if (str_split_words(key, words, 3) != 3)
		return conf_error(p, p->line, "expected 'VARIANT FPU TEST = STATUS' in %s", p->label);
	while (fpu < ARRAY_SIZE(fpus) && strcmp(words[1], fpus[fpu]) != 0)
		fpu++;
	if (fpu == ARRAY_SIZE(fpus))
		return conf_error(p, p->line,
				  "unknown fpu '%s' in %s (expected fsave, fxsave or any)",
				  words[1], p->label);
	if (verdict_parse(value, &e.status) < 0) {
		for (int v = 0; v < VERDICT_COUNT; v++)
			strbuf_addf(&names, "%s%s", v == 0 ? "" : v == VERDICT_COUNT - 1 ? " or " : ", ",
				    verdict_name(v));
		err = conf_error(p, p->line, "unknown verdict '%s' in %s (expected %s)", value,
				 p->label, names.buf);
		strbuf_release(&names);
		return err;
	}
	e.variant = xstrdup(words[0]);
	e.fpu = (enum expect_fpu)fpu;
	e.test = xstrdup(words[2]);
	p->c->expects = xrealloc(p->c->expects, (p->c->nexpects + 1) * sizeof(*p->c->expects));
	p->c->expects[p->c->nexpects++] = e;
	return 0;
}

static int parse_value(struct parser *p, enum key k, const char *value)
{
	struct conf *c = p->c;
	struct conf_tree *tree = c->ntrees ? &c->trees[c->ntrees - 1] : NULL;
	struct conf_host *host = c->nhosts ? &c->hosts[c->nhosts - 1] : NULL;

	switch (k) {
	case KEY_RESULTS: return resolve_path(p, value, &c->results);
	case KEY_CACHE: return resolve_path(p, value, &c->cache);
	case KEY_SERIES: return resolve_path(p, value, &c->series);
	case KEY_JOBS: return parse_jobs(p, value, &c->jobs);
	case KEY_TIMEOUT: return parse_timeout(p, value, &c->timeout_s);
	case KEY_BISECT:
		if (strcmp(value, "yes") != 0 && strcmp(value, "no") != 0)
			return conf_error(p, p->line, "bisect must be yes or no, not '%s'", value);
		c->bisect = strcmp(value, "yes") == 0 ? CONF_YES : CONF_NO;
		return 0;
	case KEY_BISECT_BUDGET: {
		char *end;
		double s = strtod(value, &end);
		if (*end || end == value || !(s > 0))
			return conf_error(p, p->line, "bad bisect-budget '%s' (seconds, above 0)", value);
		c->bisect_budget_s = s;
		return 0;
	}
	case KEY_SOURCE:
		if (strcmp(value, "debian") == 0)
			tree->source = CONF_TREE_DEBIAN;
		else if (strcmp(value, "git") == 0)
			tree->source = CONF_TREE_GIT;
		else
			return conf_error(p, p->line, "unknown source '%s' in %s (expected debian or git)",
					  value, p->label);
		return 0;
	case KEY_TARBALL: return resolve_path(p, value, &tree->tarball);
	case KEY_REPO: return resolve_path(p, value, &tree->repo);
	case KEY_BRANCH: tree->branch = xstrdup(value); return 0;
	case KEY_FROM:
		if (!strchr(value, '@'))
			return conf_error(p, p->line, "'from' in [report] is no mail address: '%s'", value);
		c->report_from = xstrdup(value);
		return 0;
	case KEY_SETUP: return parse_setup(p, value);
	case KEY_TEST: return parse_test(p, value);
	case KEY_ARCHIVE: {
		char *path;
		int err = resolve_path(p, value, &path);
		if (err == 0) {
			list_add(&c->archives, &c->narchives, path);
			free(path);
		}
		return err;
	}
	case KEY_URI: host->uri = xstrdup(value); return 0;
	case KEY_HOST_JOBS: return parse_jobs(p, value, &host->jobs);
	case KEY_STAGE:
		/* A path on that host: nothing here to resolve it against. */
		if (value[0] != '/')
			return conf_error(p, p->line, "stage '%s' in %s is not an absolute path",
					  value, p->label);
		host->stage = xstrdup(value);
		return 0;
	case KEY_COUNT: break;
	}
	return 0;
}

/* [lab] and [board] keys are conf_lab's; the file and line are ours. */
static int parse_lab_key(struct parser *p, const char *key, const char *value)
{
	struct conf *c = p->c;
	char *path = NULL, *why;
	int err = 0;

	if (p->section == SEC_LAB && conf_lab_key_is_path(key) &&
	    (err = resolve_path(p, value, &path)) < 0)
		return err;
	why = p->section == SEC_LAB ? conf_lab_set(&c->labs[c->nlabs - 1], key, path ? path : value)
				    : conf_board_set(&c->boards[c->nboards - 1], key, value);
	if (why)
		err = conf_error(p, p->line, "%s", why);
	free(why);
	free(path);
	return err;
}

static int parse_key(struct parser *p, char *s)
{
	char *eq = strchr(s, '='), *key, *value;
	int k = 0;

	if (p->section == SEC_NONE)
		return conf_error(p, p->line, "'%s' is before any [section]", s);
	if (!eq && p->section == SEC_EXPECT)
		return conf_error(p, p->line, "expected 'VARIANT FPU TEST = STATUS' in %s", p->label);
	if (!eq)
		return conf_error(p, p->line, "expected 'KEY = VALUE' in %s, not '%s'", p->label, s);
	*eq = '\0';
	key = trim(s);
	value = trim(eq + 1);
	if (!*key)
		return conf_error(p, p->line, "no key before '=' in %s", p->label);
	if (!*value)
		return conf_error(p, p->line, "key '%s' in %s has no value", key, p->label);
	if (p->section == SEC_EXPECT)
		return parse_expect(p, key, value);
	if (p->section == SEC_LAB || p->section == SEC_BOARD)
		return parse_lab_key(p, key, value);
	while (k < KEY_COUNT && !(keys[k].section == p->section && strcmp(keys[k].name, key) == 0))
		k++;
	if (k == KEY_COUNT)
		return conf_error(p, p->line, "unknown key '%s' in %s", key, p->label);
	if (!keys[k].list && p->key_line[k])
		return conf_error(p, p->line, "key '%s' given twice in %s (first on line %d)", key,
				  p->label, p->key_line[k]);
	p->key_line[k] = p->line;
	return parse_value(p, (enum key)k, value);
}

/* Checks what a section needs once all its keys are read. */
static int section_end(struct parser *p)
{
	const struct conf_tree *tree = p->c->ntrees ? &p->c->trees[p->c->ntrees - 1] : NULL;
	const struct conf_host *host = p->c->nhosts ? &p->c->hosts[p->c->nhosts - 1] : NULL;
	static const enum key git_only[] = { KEY_REPO, KEY_BRANCH };

	if (p->section == SEC_TREE) {
		if (!p->key_line[KEY_SOURCE])
			return conf_error(p, p->section_line, "tree '%s' has no source (debian or git)",
					  tree->name);
		if (tree->source == CONF_TREE_GIT && !tree->repo)
			return conf_error(p, p->section_line, "tree '%s' has source = git but no repo",
					  tree->name);
		if (tree->source == CONF_TREE_GIT && p->key_line[KEY_TARBALL])
			return conf_error(p, p->key_line[KEY_TARBALL],
					  "key 'tarball' in %s is for source = debian", p->label);
		for (size_t i = 0; i < ARRAY_SIZE(git_only); i++)
			if (tree->source == CONF_TREE_DEBIAN && p->key_line[git_only[i]])
				return conf_error(p, p->key_line[git_only[i]],
						  "key '%s' in %s is for source = git",
						  keys[git_only[i]].name, p->label);
	}
	if (p->section == SEC_HOST && !host->uri)
		return conf_error(p, p->section_line, "host '%s' has no uri", host->name);
	char *why = p->section == SEC_LAB ? conf_lab_check(&p->c->labs[p->c->nlabs - 1])
		    : p->section == SEC_BOARD ? conf_board_check(&p->c->boards[p->c->nboards - 1])
					       : NULL;
	int err = why ? conf_error(p, p->section_line, "%s", why) : 0;
	free(why);
	return err;
}

static bool name_taken(const struct conf *c, enum section sec, const char *name)
{
	for (size_t i = 0; sec == SEC_TREE && i < c->ntrees; i++)
		if (strcmp(c->trees[i].name, name) == 0)
			return true;
	for (size_t i = 0; sec == SEC_HOST && i < c->nhosts; i++)
		if (strcmp(c->hosts[i].name, name) == 0)
			return true;
	if (sec == SEC_LAB || sec == SEC_BOARD)
		return sec == SEC_LAB ? conf_lab_find(c->labs, c->nlabs, name) != NULL
				      : conf_board_find(c->boards, c->nboards, name) != NULL;
	return false;
}

static int parse_header(struct parser *p, char *s)
{
	char *close = strchr(s, ']'), *words[2] = { NULL, NULL };
	struct conf *c = p->c;
	size_t n;
	int sec = SEC_RUN, err;

	if (!close)
		return conf_error(p, p->line, "missing ']' in '%s'", s);
	if (close[1])
		return conf_error(p, p->line, "text after ']' in '%s'", s);
	if ((err = section_end(p)) < 0)
		return err;
	*close = '\0';
	n = str_split_words(s + 1, words, 2);
	if (n == 0)
		return conf_error(p, p->line, "no section name in '[]'");
	while (sec < SEC_COUNT && strcmp(sections[sec].name, words[0]) != 0)
		sec++;
	if (sec == SEC_COUNT)
		return conf_error(p, p->line, "unknown section '[%s]'", words[0]);
	if (sections[sec].named && n != 2)
		return conf_error(p, p->line, "expected '[%s NAME]'", sections[sec].name);
	if (!sections[sec].named && n != 1)
		return conf_error(p, p->line, "expected '[%s]'", sections[sec].name);
	if (n == 2 && strspn(words[1], CONF_NAME_CHARS) != strlen(words[1]))
		return conf_error(p, p->line, "bad %s name '%s' (letters, digits, '.', '_' and '-')",
				  sections[sec].name, words[1]);
	if (n == 2 && name_taken(c, (enum section)sec, words[1]))
		return conf_error(p, p->line, "%s '%s' defined twice", sections[sec].name, words[1]);
	if (n == 1 && p->seen[sec])
		return conf_error(p, p->line, "section [%s] defined twice", sections[sec].name);

	p->seen[sec] = true;
	p->section = (enum section)sec;
	p->section_line = p->line;
	memset(p->key_line, 0, sizeof(p->key_line));
	free(p->label);
	p->label = n == 2 ? xasprintf("[%s %s]", words[0], words[1]) : xasprintf("[%s]", words[0]);
	if (sec == SEC_TREE) {
		c->trees = xrealloc(c->trees, (c->ntrees + 1) * sizeof(*c->trees));
		c->trees[c->ntrees++] = (struct conf_tree){ .name = xstrdup(words[1]) };
	} else if (sec == SEC_HOST) {
		c->hosts = xrealloc(c->hosts, (c->nhosts + 1) * sizeof(*c->hosts));
		c->hosts[c->nhosts++] = (struct conf_host){ .name = xstrdup(words[1]) };
	} else if (sec == SEC_LAB || sec == SEC_BOARD) {
		conf_lab_section_add(c, sec == SEC_BOARD, words[1], p->line);
	}
	return 0;
}

static int parse_line(struct parser *p, const char *raw, size_t len)
{
	char buf[CONF_LINE_MAX + 1], *s;

	if (len && raw[len - 1] == '\r')
		len--;
	if (len > CONF_LINE_MAX)
		return conf_error(p, p->line, "line longer than %d bytes", CONF_LINE_MAX);
	/* Values end up in XML, JSON and command lines; NUL would cut them short. */
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)raw[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return conf_error(p, p->line, "control character 0x%02x", ch);
	}
	memcpy(buf, raw, len);
	buf[len] = '\0';
	s = trim(buf);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	return *s == '[' ? parse_header(p, s) : parse_key(p, s);
}

/* Every board a lab names has its [board] section, wherever in the file. */
static int check_lab_boards(struct parser *p)
{
	int line = 0;
	char *why = conf_labs_check_boards(p->c->labs, p->c->nlabs, p->c->boards, p->c->nboards,
					   &line);
	int err = why ? conf_error(p, line, "%s", why) : 0;

	free(why);
	return err;
}

int conf_parse(struct conf **out, const char *path, const char *text, size_t len)
{
	struct parser p = { .c = xcalloc(1, sizeof(struct conf)) };
	size_t pos = 0;
	int err = 0;

	p.c->path = xstrdup(path);
	if (len > CONF_SIZE_MAX) {
		err = error_set(ERR_INPUT, "'%s' is larger than 1 MiB", path);
		goto out;
	}
	/* Some editors start UTF-8 files with a byte order mark. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		p.line++;
		if ((err = parse_line(&p, text + pos, n)) < 0)
			goto out;
		pos += n + 1;
	}
	if ((err = section_end(&p)) < 0 || (err = check_lab_boards(&p)) < 0)
		goto out;
	if (!p.c->ntrees) {
		p.c->trees = xcalloc(1, sizeof(*p.c->trees));
		p.c->trees[0].name = xstrdup("debian");
		p.c->ntrees = 1;
	}
	*out = p.c;
	p.c = NULL;
out:
	free(p.label);
	conf_free(p.c);
	return err;
}

int conf_load(struct conf **out, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	int err;

	/* One byte past the limit is enough for conf_parse to refuse the file. */
	if ((err = file_read_capped(path, CONF_SIZE_MAX + 1, &text, NULL)) == 0)
		err = conf_parse(out, path, text.buf, text.len);
	strbuf_release(&text);
	return err;
}

int conf_host_parse(const char *spec, struct conf_host *out)
{
	const char *uri = spec, *at = strchr(spec, '@');
	size_t digits = strspn(spec, "0123456789");
	int jobs = 0;

	if (at && digits > 0 && spec + digits == at) {
		jobs = atoi(spec);
		uri = at + 1;
		if (digits > 4 || jobs < 1 || jobs > CONF_JOBS_MAX)
			return error_set(ERR_USAGE, "bad number of guests in '%s'", spec);
	}
	if (!strstr(uri, ":/"))
		return error_set(ERR_USAGE, "bad libvirt URI '%s'", spec);
	*out = (struct conf_host){ .uri = xstrdup(uri), .jobs = jobs };
	return 0;
}

void conf_host_release(struct conf_host *h)
{
	free(h->name);
	free(h->uri);
	free(h->stage);
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntrees; i++) {
		free(c->trees[i].name);
		free(c->trees[i].tarball);
		free(c->trees[i].repo);
		free(c->trees[i].branch);
	}
	for (size_t i = 0; i < c->nsetups; i++)
		free(c->setups[i]);
	for (size_t i = 0; i < c->ntests; i++)
		free(c->tests[i]);
	for (size_t i = 0; i < c->narchives; i++)
		free(c->archives[i]);
	free(c->archives);
	for (size_t i = 0; i < c->nexpects; i++) {
		free(c->expects[i].variant);
		free(c->expects[i].test);
	}
	for (size_t i = 0; i < c->nhosts; i++)
		conf_host_release(&c->hosts[i]);
	for (size_t i = 0; i < c->nlabs; i++)
		conf_lab_release(&c->labs[i]);
	for (size_t i = 0; i < c->nboards; i++)
		conf_board_release(&c->boards[i]);
	free(c->labs);
	free(c->boards);
	free(c->trees);
	free(c->setups);
	free(c->tests);
	free(c->expects);
	free(c->hosts);
	free(c->path);
	free(c->results);
	free(c->report_from);
	free(c->cache);
	free(c->series);
	free(c);
}
