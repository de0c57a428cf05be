/*
 * conf: fpubench.conf, the file that drives nightly runs (`fpubench run
 * --config FILE`).  bench/fpubench.conf is the default and documents
 * every key; it reproduces the default matrix.
 *
 * INI style: `[section]` or `[section NAME]` headers, `key = value` lines,
 * `#` or `;` comments on lines of their own, keys repeatable where a list
 * is meant.  Each section appears once (named ones once per name); a
 * single-valued key once per section.  Relative paths are taken from the
 * config file's directory, `~/` from $HOME.  Lines may end in CRLF; a
 * line is at most 4096 bytes, the file at most 1 MiB, and control bytes
 * other than tab are errors.
 *
 *   [run]        results = DIR, cache = DIR, jobs = N (1..1024),
 *                timeout = SECONDS (above 0, at most a day),
 *                series = DIR (series, variants, fpu.config),
 *                bisect = yes|no (a git tree's new failure is bisected;
 *                default yes), bisect-budget = SECONDS (default 3600)
 *   [tree NAME]  source = debian (the cached linux-source-6.1, with
 *                tarball = FILE) or source = git (repo = DIR, branch = REF);
 *                each tree is its own run and history line; none: one
 *                tree "debian" from the default tarball
 *   [cpu]        setup = SPEC, repeatable (none: the default setups)
 *   [tests]      test = NAME, repeatable (none: every test)
 *   [expect]     VARIANT FPU TEST = STATUS, repeatable, first match wins;
 *                VARIANT and TEST are fnmatch patterns, FPU is fsave,
 *                fxsave or any; STATUS a verdict name.  A cell no rule
 *                matches is expected to pass.
 *   [host NAME]  uri = URI, jobs = N (1..1024), stage = DIR (an absolute
 *                path on that host: kernels, initramfs and consoles go
 *                there through libvirt, see stage.h; the default for a URI
 *                naming a remote host); repeatable sections (none: the
 *                embedded driver in the cache, two guests per core)
 *   [lab NAME], [board NAME]: a LAVA lab and its boards (conf_lab.h)
 *   [report]     from = "Name <email>", the sender of regression.eml
 *                (none: git's user.name and user.email); archive = PATH,
 *                repeatable: mail archives where bisect finds the posting
 *
 * NAME is letters, digits, '.', '_' and '-'.
 *
 * struct conf owns every string in it; conf_free() accepts NULL.
 */
#ifndef FPUBENCH_CONF_H
#define FPUBENCH_CONF_H

#include "conf_lab.h"
#include "judge/expect.h"
#include "judge/verdict.h"

#include <stdbool.h>
#include <stddef.h>

enum conf_tree_source {
	CONF_TREE_DEBIAN,
	CONF_TREE_GIT,
};

struct conf_tree {
	char *name;
	enum conf_tree_source source;
	char *tarball;		/* debian; NULL: the default tarball */
	char *repo;		/* git */
	char *branch;		/* git; NULL: the repository's HEAD */
};

struct conf_host {
	char *name;
	char *uri;
	int jobs;		/* 0: make jobs one per core, guests two */
	char *stage;		/* a directory on that host to stage files in, or NULL */
};

struct conf {
	char *path;		/* the file it was read from */
	char *results;		/* NULL: not set */
	char *cache;
	char *series;
	int jobs;		/* 0: not set */
	double timeout_s;	/* 0: not set */
	struct conf_tree *trees;	/* at least one */
	size_t ntrees;
	char **setups;
	size_t nsetups;
	char **tests;
	size_t ntests;
	struct expect_rule *expects;
	size_t nexpects;
	struct conf_host *hosts;
	size_t nhosts;
	struct conf_lab *labs;
	size_t nlabs;
	struct conf_board *boards;
	size_t nboards;
	enum { CONF_UNSET, CONF_YES, CONF_NO } bisect;	/* [run] bisect: git trees bisect unless no */
	double bisect_budget_s;	/* [run] bisect-budget; 0: not set */
	char *report_from;	/* [report] from: "Name <email>" of regression mails; NULL: not set */
	char **archives;	/* [report] archive: mail archives where postings are found */
	size_t narchives;
};

/*
 * Parses text (len bytes, not NUL-terminated, may hold any bytes) read
 * from `path`, which names the file in errors and anchors relative paths.
 * A malformed file is ERR_INPUT with a one-line message naming the file
 * and line: "'x.conf' line 3: unknown key 'jbos' in [run]".
 */
int conf_parse(struct conf **out, const char *path, const char *text, size_t len);

/* Reads and parses a file; a missing file is ERR_NOTFOUND. */
int conf_load(struct conf **out, const char *path);

/*
 * Parses a command line's "[JOBS@]URI" into *out (name NULL), e.g.
 * "4@qemu+ssh://big/system".  A scheme cannot start with a digit, so a
 * leading "N@" is a count.  ERR_USAGE names a bad spec.
 */
int conf_host_parse(const char *spec, struct conf_host *out);

void conf_host_release(struct conf_host *h);

void conf_free(struct conf *c);

#endif
