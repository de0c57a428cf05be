#include "conf_lab.h"

#include "conf.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define TOKEN_MAX 4096	/* bytes of a token file read */

bool conf_jobs_parse(const char *value, int *out)
{
	size_t n = strlen(value);

	/* Four digits at most, so atoi cannot overflow. */
	if (n == 0 || n > 4 || strspn(value, "0123456789") != n || atoi(value) < 1 ||
	    atoi(value) > CONF_JOBS_MAX)
		return false;
	*out = atoi(value);
	return true;
}

bool conf_lab_key_is_path(const char *key)
{
	return strcmp(key, "token-file") == 0 || strcmp(key, "artefacts") == 0;
}

/* Sets a single-valued string once. */
static char *set_once(char **field, const char *key, const char *label, const char *value)
{
	if (*field)
		return xasprintf("key '%s' given twice in %s", key, label);
	*field = xstrdup(value);
	return NULL;
}

/* tags = A B C: each a word of LAVA's tag names. */
static char *set_tags(char ***tags, size_t *n, const char *label, const char *value)
{
	struct strbuf word = STRBUF_INIT;

	if (*n)
		return xasprintf("key 'tags' given twice in %s", label);
	for (const char *p = value;; p++) {
		if (*p && *p != ' ' && *p != '\t') {
			strbuf_addch(&word, *p);
			continue;
		}
		if (word.len) {
			*tags = xrealloc(*tags, (*n + 1) * sizeof(**tags));
			(*tags)[(*n)++] = strbuf_detach(&word);
		}
		if (!*p)
			break;
	}
	strbuf_release(&word);
	return NULL;
}

static char *lab_label(const struct conf_lab *lab)
{
	return xasprintf("[lab %s]", lab->name);
}

static char *lab_engine(struct conf_lab *lab, const char *label, const char *value)
{
	if (lab->engine != CONF_LAB_UNSET)
		return xasprintf("key 'engine' given twice in %s", label);
	if (strcmp(value, "lava-run") == 0)
		lab->engine = CONF_LAB_LAVA_RUN;
	else if (strcmp(value, "rest") == 0)
		lab->engine = CONF_LAB_REST;
	else
		return xasprintf("unknown engine '%s' in %s (expected lava-run or rest)", value, label);
	return NULL;
}

static char *lab_value(struct conf_lab *lab, const char *label, const char *key, const char *value)
{
	if (strcmp(key, "engine") == 0)
		return lab_engine(lab, label, value);
	if (strcmp(key, "url") == 0) {
		if (strncmp(value, "http://", 7) != 0 && strncmp(value, "https://", 8) != 0)
			return xasprintf("url '%s' in %s is not http:// or https://", value, label);
		return set_once(&lab->url, key, label, value);
	}
	if (strcmp(key, "token-file") == 0)
		return set_once(&lab->token_file, key, label, value);
	if (strcmp(key, "token-env") == 0)
		return set_once(&lab->token_env, key, label, value);
	if (strcmp(key, "artefacts") == 0)
		return set_once(&lab->artefacts, key, label, value);
	if (strcmp(key, "artefacts-url") == 0)
		return set_once(&lab->artefacts_url, key, label, value);
	if (strcmp(key, "device-type") == 0)
		return set_once(&lab->device_type, key, label, value);
	if (strcmp(key, "tags") == 0)
		return set_tags(&lab->tags, &lab->ntags, label, value);
	if (strcmp(key, "jobs") == 0) {
		if (lab->jobs)
			return xasprintf("key 'jobs' given twice in %s", label);
		if (!conf_jobs_parse(value, &lab->jobs))
			return xasprintf("bad jobs '%s' in %s (expected 1 to %d)", value, label,
					 CONF_JOBS_MAX);
		return NULL;
	}
	if (strcmp(key, "queue-timeout") == 0) {
		char *end;
		double s = strtod(value, &end);

		if (lab->queue_s > 0)
			return xasprintf("key 'queue-timeout' given twice in %s", label);
		if (*end || end == value || !(s >= 1) || s > 86400)
			return xasprintf("bad queue-timeout '%s' in %s (seconds, 1 to 86400)", value,
					 label);
		lab->queue_s = s;
		return NULL;
	}
	if (strcmp(key, "board") == 0) {
		for (size_t i = 0; i < lab->nboards; i++)
			if (strcmp(lab->boards[i], value) == 0)
				return xasprintf("board '%s' listed twice in %s", value, label);
		lab->boards = xrealloc(lab->boards, (lab->nboards + 1) * sizeof(*lab->boards));
		lab->boards[lab->nboards++] = xstrdup(value);
		return NULL;
	}
	return xasprintf("unknown key '%s' in %s", key, label);
}

char *conf_lab_set(struct conf_lab *lab, const char *key, const char *value)
{
	char *label = lab_label(lab), *why = lab_value(lab, label, key, value);

	free(label);
	return why;
}

char *conf_lab_check(const struct conf_lab *lab)
{
	const char *n = lab->name;

	if (lab->engine == CONF_LAB_UNSET)
		return xasprintf("lab '%s' has no engine (lava-run or rest)", n);
	if (lab->engine == CONF_LAB_REST && !lab->url)
		return xasprintf("lab '%s' has engine = rest but no url", n);
	if (lab->engine == CONF_LAB_REST && !lab->token_file == !lab->token_env)
		return xasprintf("lab '%s' needs one of token-file and token-env", n);
	if (lab->engine == CONF_LAB_LAVA_RUN && (lab->url || lab->token_file || lab->token_env))
		return xasprintf("lab '%s' has engine = lava-run, which takes no url nor token", n);
	if (lab->artefacts_url && !lab->artefacts)
		return xasprintf("lab '%s' has artefacts-url but no artefacts directory", n);
	return NULL;
}

char *conf_board_set(struct conf_board *b, const char *key, const char *value)
{
	char *label = xasprintf("[board %s]", b->name), *why = NULL;

	if (strcmp(key, "device-type") == 0)
		why = set_once(&b->device_type, key, label, value);
	else if (strcmp(key, "boot") == 0 && !lava_board_boot_known(value))
		why = xasprintf("unknown boot method '%s' in %s (expected " LAVA_BOARD_BOOTS ")", value,
				label);
	else if (strcmp(key, "boot") == 0)
		why = set_once(&b->boot, key, label, value);
	else if (strcmp(key, "console") == 0)
		why = set_once(&b->console, key, label, value);
	else if (strcmp(key, "tags") == 0)
		why = set_tags(&b->tags, &b->ntags, label, value);
	else if (strcmp(key, "fpu") == 0 && b->fpu != EXPECT_FPU_ANY)
		why = xasprintf("key 'fpu' given twice in %s", label);
	else if (strcmp(key, "fpu") == 0 && strcmp(value, "fsave") == 0)
		b->fpu = EXPECT_FPU_FSAVE;
	else if (strcmp(key, "fpu") == 0 && strcmp(value, "fxsave") == 0)
		b->fpu = EXPECT_FPU_FXSAVE;
	else if (strcmp(key, "fpu") == 0)
		why = xasprintf("unknown fpu '%s' in %s (expected fsave or fxsave)", value, label);
	else
		why = xasprintf("unknown key '%s' in %s", key, label);
	free(label);
	return why;
}

char *conf_board_check(const struct conf_board *b)
{
	if (!b->device_type)
		return xasprintf("board '%s' has no device-type", b->name);
	if (!b->boot)
		return xasprintf("board '%s' has no boot method", b->name);
	if (b->fpu == EXPECT_FPU_ANY)
		return xasprintf("board '%s' has no fpu (fsave or fxsave)", b->name);
	return NULL;
}

void conf_lab_section_add(struct conf *c, bool board, const char *name, int line)
{
	if (board) {
		c->boards = xrealloc(c->boards, (c->nboards + 1) * sizeof(*c->boards));
		c->boards[c->nboards++] = (struct conf_board){ .name = xstrdup(name), .line = line };
	} else {
		c->labs = xrealloc(c->labs, (c->nlabs + 1) * sizeof(*c->labs));
		c->labs[c->nlabs++] = (struct conf_lab){ .name = xstrdup(name), .line = line };
	}
}

const struct conf_lab *conf_lab_find(const struct conf_lab *labs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(labs[i].name, name) == 0)
			return &labs[i];
	return NULL;
}

const struct conf_board *conf_board_find(const struct conf_board *boards, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(boards[i].name, name) == 0)
			return &boards[i];
	return NULL;
}

struct lava_board conf_board_lava(const struct conf_board *b)
{
	return (struct lava_board){ .name = b->name, .device_type = b->device_type,
				    .boot_method = b->boot, .tags = (const char *const *)b->tags,
				    .ntags = b->ntags };
}

char *conf_labs_check_boards(const struct conf_lab *labs, size_t nlabs,
			     const struct conf_board *boards, size_t nboards, int *line)
{
	for (size_t l = 0; l < nlabs; l++) {
		for (size_t b = 0; b < labs[l].nboards; b++) {
			const char *name = labs[l].boards[b];

			*line = labs[l].line;
			if (!conf_board_find(boards, nboards, name))
				return xasprintf("lab '%s' names board '%s', which has no [board %s]",
						 labs[l].name, name, name);
			/* lava-run boots the device file the bench writes, a QEMU one. */
			if (labs[l].engine != CONF_LAB_REST)
				return xasprintf("lab '%s' has engine = lava-run, which boots QEMU only: "
						 "board '%s' needs a server (engine = rest)",
						 labs[l].name, name);
		}
	}
	for (size_t b = 0; b < nboards; b++) {
		bool held = false;

		for (size_t l = 0; l < nlabs && !held; l++)
			for (size_t i = 0; i < labs[l].nboards && !held; i++)
				held = strcmp(labs[l].boards[i], boards[b].name) == 0;
		if (!held) {
			*line = boards[b].line;
			return xasprintf("board '%s' is in no lab: a [lab] lists it with board = %s",
					 boards[b].name, boards[b].name);
		}
	}
	return NULL;
}

static int token_from_file(const struct conf_lab *lab, char **token)
{
	struct strbuf sb = STRBUF_INIT;
	bool truncated;

	if (file_read_capped(lab->token_file, TOKEN_MAX, &sb, &truncated) < 0) {
		strbuf_release(&sb);
		return error_set(ERR_NOTFOUND, "cannot read the token of lab '%s' from '%s'",
				 lab->name, lab->token_file);
	}
	if (truncated) {
		strbuf_release(&sb);
		return error_set(ERR_INPUT, "the token file '%s' of lab '%s' is larger than %d bytes",
				 lab->token_file, lab->name, TOKEN_MAX);
	}
	*token = strbuf_detach(&sb);
	return 0;
}

int conf_lab_token(const struct conf_lab *lab, char **token)
{
	const char *env = lab->token_env ? getenv(lab->token_env) : NULL;
	int err;

	*token = NULL;
	if (lab->token_file && (err = token_from_file(lab, token)) < 0)
		return err;
	if (lab->token_env && (!env || !*env))
		return error_set(ERR_NOTFOUND, "no token for lab '%s': $%s is not set", lab->name,
				 lab->token_env);
	if (!*token)
		*token = xstrdup(env ? env : "");
	size_t n = strlen(*token);
	while (n && strchr(" \t\r\n", (*token)[n - 1]))
		(*token)[--n] = '\0';
	/* It goes into an HTTP header: no line breaks, nothing but printable ASCII. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)(*token)[i] < 0x21 || (unsigned char)(*token)[i] > 0x7e)
			n = 0;
	if (!n) {
		free(*token);
		*token = NULL;
		return error_set(ERR_INPUT, "the token of lab '%s' (%s%s) is empty or not one word",
				 lab->name, lab->token_file ? "" : "$",
				 lab->token_file ? lab->token_file : lab->token_env);
	}
	return 0;
}

static void words_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void conf_lab_release(struct conf_lab *lab)
{
	free(lab->name);
	free(lab->url);
	free(lab->token_file);
	free(lab->token_env);
	free(lab->artefacts);
	free(lab->artefacts_url);
	free(lab->device_type);
	words_free(lab->tags, lab->ntags);
	words_free(lab->boards, lab->nboards);
}

void conf_board_release(struct conf_board *b)
{
	free(b->name);
	free(b->device_type);
	free(b->boot);
	free(b->console);
	words_free(b->tags, b->ntags);
}
