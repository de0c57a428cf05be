#include "lava_log.h"

#include "judge/console.h"
#include "lib/error.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define END_MARKER "# fpubench: done"	/* init's last line, the monitor's end string */
/* LAVA's word that its monitor matched the end string: what it reads next is feedback. */
#define MONITOR_END "ok: end string found"

struct reader {
	struct lava_log *out;
	const char *job;
	size_t line;
	bool ended;	/* the end marker was seen: feedback lines count from here */
};

/* The value of `key` in the mapping, or NULL. */
static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE && strlen(key) == k->data.scalar.length &&
		    memcmp(k->data.scalar.value, key, k->data.scalar.length) == 0)
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

static bool scalar_is(yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && strlen(s) == n->data.scalar.length &&
	       memcmp(n->data.scalar.value, s, n->data.scalar.length) == 0;
}

static char *scalar_dup(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE
		       ? console_text_dup((const char *)n->data.scalar.value, n->data.scalar.length)
		       : NULL;
}

/* The length of the terminal escape at p (p[0] is ESC), at most n. */
static size_t escape_length(const unsigned char *p, size_t n)
{
	size_t i = 2;

	if (n < 2 || p[1] != '[')
		return n < 2 ? n : 2;
	/* CSI: parameter and intermediate bytes, then one final byte in 0x40..0x7e. */
	while (i < n && (p[i] < 0x40 || p[i] > 0x7e))
		i++;
	return i < n ? i + 1 : n;
}

static void console_add(struct reader *r, yaml_node_t *msg)
{
	struct strbuf *c = &r->out->console;
	const unsigned char *p = msg->data.scalar.value;
	size_t n = msg->data.scalar.length;

	if (c->len >= CONSOLE_MAX)
		return;
	for (size_t i = 0; i < n && c->len < CONSOLE_MAX;) {
		if (p[i] == 0x1b) {
			i += escape_length(p + i, n - i);
			continue;
		}
		if (p[i] != '\r')
			strbuf_addch(c, (char)p[i]);
		i++;
	}
	strbuf_addch(c, '\n');
	r->out->console_lines++;
	if (n == strlen(END_MARKER) && memcmp(p, END_MARKER, n) == 0)
		r->ended = true;
}

static void job_result(struct reader *r, yaml_document_t *doc, yaml_node_t *msg)
{
	struct lava_log *l = r->out;

	if (!scalar_is(map_get(doc, msg, "case"), "job") ||
	    !scalar_is(map_get(doc, msg, "definition"), "lava"))
		return;
	free(l->result);
	free(l->error_type);
	free(l->error_msg);
	l->result = scalar_dup(map_get(doc, msg, "result"));
	l->error_type = scalar_dup(map_get(doc, msg, "error_type"));
	l->error_msg = scalar_dup(map_get(doc, msg, "error_msg"));
	l->has_result = l->result != NULL;
}

static int not_mapping(struct reader *r)
{
	return error_set(ERR_INPUT, "LAVA job '%s' log line %zu is not a YAML mapping", r->job,
			 r->line);
}

/* One line: a flow mapping, or a block sequence's item holding one. */
static int read_line(struct reader *r, const char *p, size_t n)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	int err = 0;

	if (n >= 2 && p[0] == '-' && p[1] == ' ') {
		p += 2;
		n -= 2;
	}
	if (n > LAVA_LOG_LINE_MAX || !yaml_parser_initialize(&parser))
		return not_mapping(r);
	yaml_parser_set_input_string(&parser, (const unsigned char *)p, n);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_parser_delete(&parser);
		return not_mapping(r);
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	yaml_node_t *lvl = map_get(&doc, root, "lvl"), *msg = map_get(&doc, root, "msg");

	if (!lvl || lvl->type != YAML_SCALAR_NODE)
		err = not_mapping(r);
	else if (msg && msg->type == YAML_SCALAR_NODE &&
		 (scalar_is(lvl, "target") || (r->ended && scalar_is(lvl, "feedback"))))
		console_add(r, msg);
	else if (scalar_is(lvl, "results"))
		job_result(r, &doc, msg);
	else if (scalar_is(lvl, "info") && msg && msg->type == YAML_SCALAR_NODE &&
		 msg->data.scalar.length >= strlen(MONITOR_END) &&
		 memcmp(msg->data.scalar.value, MONITOR_END, strlen(MONITOR_END)) == 0)
		r->ended = true;
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return err;
}

int lava_log_parse(struct lava_log *out, const char *job, const char *text, size_t len)
{
	struct reader r = { .out = out, .job = job };

	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int err;

		r.line++;
		/* A blank line (the end of a server's answer) carries nothing. */
		if (strspn(text + pos, " \t\r") < n && (err = read_line(&r, text + pos, n)) < 0)
			return err;
		pos += n + 1;
	}
	if (!out->has_result)
		return error_set(ERR_INPUT, "LAVA job '%s' log has no job result (truncated)", job);
	if (!out->console_lines)
		return error_set(ERR_INPUT, "LAVA job '%s' log has no console output", job);
	return 0;
}

void lava_log_release(struct lava_log *l)
{
	strbuf_release(&l->console);
	free(l->result);
	free(l->error_type);
	free(l->error_msg);
	*l = (struct lava_log)LAVA_LOG_INIT;
}
