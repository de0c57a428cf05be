#include "coverage.h"

#include "boot/guest.h"
#include "judge/gcda.h"
#include "record/lcov.h"
#include "record/unreached.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GCOV_PATCH "gcov/profile-fpu.patch"
#define GCOV_FRAGMENT "gcov/gcov.config"
#define GCOV_UNREACHED "gcov/unreached.list"
#define VARIANT_SUFFIX "-gcov"

char *coverage_append(const char *append)
{
	return append && *append ? xasprintf("%s %s", COVERAGE_CMDLINE, append)
				 : xstrdup(COVERAGE_CMDLINE);
}

/*
 * fpu.config and gcov.config as one fragment in the cache, named by its
 * content: kbuild_make() takes one file, and its build id hashes the text.
 */
static int merged_fragment(const struct session *s, const char *fragment, const char *gcov,
			   char **out)
{
	struct strbuf text = STRBUF_INIT;
	char *dir = xasprintf("%s/coverage", s->tree->cache), hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	int err;

	if ((err = file_read(fragment, &text)) < 0)
		goto out;
	strbuf_addch(&text, '\n');
	if ((err = file_read(gcov, &text)) < 0 ||
	    (err = dir_create_mode(dir, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
		goto out;
	git_odb_hash(&oid, text.buf, text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(hex, sizeof(hex), &oid);
	*out = xasprintf("%s/fragment-%.12s.config", dir, hex);
	if (!file_holds(*out, text.buf) &&
	    (err = file_write_atomic_mode(*out, text.buf, text.len, KERNEL_CACHE_FILE_MODE)) < 0) {
		free(*out);
		*out = NULL;
	}
out:
	strbuf_release(&text);
	free(dir);
	return err;
}

/* The options gcov needs, in the built .config: kconfig_check() only warns of them. */
static int check_config(const struct kernel_build *b, const char *fragment)
{
	static const char *const needed[] = { "CONFIG_DEBUG_FS=y", "CONFIG_GCOV_KERNEL=y" };
	char *path = xasprintf("%s/.config", b->dir);
	struct strbuf config = STRBUF_INIT;
	int err = file_read(path, &config);

	for (size_t i = 0; i < ARRAY_SIZE(needed) && !err; i++) {
		char *line = xasprintf("\n%s\n", needed[i]);

		if (!strstr(config.buf, line))
			err = error_set(ERR_CONFIG, "config option '%s' from '%s' was dropped by Linux %s (not in the final .config)",
					needed[i], fragment, b->version);
		free(line);
	}
	strbuf_release(&config);
	free(path);
	return err;
}

int coverage_add_kernel(struct session *s, const char *patches, const char *fragment,
			const char *variant, const git_oid *commit)
{
	char *patch = xasprintf("%s/" GCOV_PATCH, patches);
	char *gcov = xasprintf("%s/" GCOV_FRAGMENT, patches);
	char *name = xasprintf("%s" VARIANT_SUFFIX, variant), *merged = NULL;
	git_oid with_gcov;
	bool fsave = false;
	int err = 0;

	for (size_t i = 0; i < s->nsetups; i++)
		fsave |= cpu_setup_uses_fsave(&s->setups[i]);
	/* Checked before the build: the figures are the FSAVE setups'. */
	if (!fsave)
		err = error_set(ERR_USAGE, "--coverage needs an FSAVE setup among the --cpu setups");
	else if (!file_exists(patch))
		err = error_set(ERR_NOTFOUND, "coverage patch '%s' is missing", patch);
	else if (!file_exists(gcov))
		err = error_set(ERR_NOTFOUND, "config fragment '%s' is missing", gcov);
	if (err || (err = apply_patch_file(s->tree, commit, patch, NULL, &with_gcov)) < 0 ||
	    (err = merged_fragment(s, fragment, gcov, &merged)) < 0 ||
	    (err = session_add_kernel(s, name, &with_gcov, merged)) < 0)
		goto out;
	err = check_config(s->builds[s->nkernels - 1], gcov);
out:
	free(patch);
	free(gcov);
	free(name);
	free(merged);
	return err;
}

/* What coverage_write() works with. */
struct cov {
	const struct session *s;
	char *dir;		/* absolute */
	char *log;		/* lcov's and genhtml's output */
	char *gcov_tool;
	char *tree;		/* the tree's real path: the .gcno files name sources by it */
	const char *patches;	/* where GCOV_UNREACHED is */
	struct strbuf notes;	/* setups left out or partial, and why */
};

/* The gcov of the gcc that built the kernel (CONFIG_GCC_VERSION=120200: gcov-12). */
static int find_gcov(struct cov *c, const struct kernel_build *b)
{
	char *path = xasprintf("%s/.config", b->dir);
	struct strbuf config = STRBUF_INIT;
	const char *v;
	int err = file_read(path, &config);

	if (!err && !(v = strstr(config.buf, "\nCONFIG_GCC_VERSION=")))
		err = error_set(ERR_INPUT, "kernel config '%s' names no CONFIG_GCC_VERSION", path);
	if (!err) {
		const char *dirs = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
		long major = strtol(v + strlen("\nCONFIG_GCC_VERSION="), NULL, 10) / 10000;
		bool found = false;

		c->gcov_tool = xasprintf("gcov-%ld", major);
		for (const char *p = dirs; *p && !found; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
			char *candidate = xasprintf("%.*s/%s", (int)strcspn(p, ":"), p, c->gcov_tool);

			found = access(candidate, X_OK) == 0;
			free(candidate);
		}
		if (!found)
			err = error_set(ERR_NOTFOUND, "no '%s' in PATH for the kernel's gcc %ld (apt-get install gcc-%ld)",
					c->gcov_tool, major, major);
	}
	strbuf_release(&config);
	free(path);
	return err;
}

static int run_tool(struct cov *c, const char *const argv[], const char *cwd)
{
	int status = spawn_run(argv, cwd, c->log, NULL);

	if (status != 0)
		return error_set(ERR_GENERIC, "%s failed (status %d); see '%s'", argv[0], status, c->log);
	return 0;
}

/* Source paths relative to the tree, so the tracefiles hold for any checkout of it. */
static int relative_sources(struct cov *c, const char *info)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	char *prefix = xasprintf("SF:%s/", c->tree);
	int err = file_read(info, &in);

	for (const char *p = in.buf; !err && *p;) {
		size_t n = strcspn(p, "\n");

		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			strbuf_addstr(&out, "SF:");
			strbuf_add(&out, p + strlen(prefix), n - strlen(prefix));
		} else {
			strbuf_add(&out, p, n);
		}
		strbuf_addch(&out, '\n');
		p += n + (p[n] == '\n');
	}
	if (!err)
		err = file_write_atomic(info, out.buf, out.len);
	strbuf_release(&in);
	strbuf_release(&out);
	free(prefix);
	return err;
}

/*
 * Puts each file of `set` beside a link to its .gcno under `stage`, as the
 * build directory has it, and captures them into `info`.  A path outside
 * the build, or without its .gcno, is refused: the console is untrusted.
 */
static int capture(struct cov *c, const struct kernel_build *b, const char *console,
		   const struct gcda_set *set, const char *stage, const char *info)
{
	const char *rm[] = { "rm", "-rf", stage, NULL };
	int err = spawn_run(rm, NULL, NULL, NULL) == 0 ? 0
		: error_set(ERR_GENERIC, "cannot remove '%s'", stage);

	for (size_t i = 0; i < set->nfiles && !err; i++) {
		const struct gcda_file *f = &set->files[i];
		const char *rel = gcda_path_in(f, b->dir);
		char *gcno, *to, *link, *parent;

		if (!rel) {
			err = error_set(ERR_INPUT, "console '%s': gcda '%s' is not in the build directory '%s'",
					console, f->path, b->dir);
			continue;
		}
		gcno = xasprintf("%.*s.gcno", (int)(strlen(f->path) - 5), f->path);
		to = xasprintf("%s/%s", stage, rel);
		link = xasprintf("%.*s.gcno", (int)(strlen(to) - 5), to);
		parent = xstrndup(to, (size_t)(strrchr(to, '/') - to));
		if (!file_exists(gcno))
			err = error_set(ERR_INPUT, "console '%s': gcda '%s' has no '%s' in the build",
					console, f->path, gcno);
		else if ((err = dir_create(parent, ERR_GENERIC)) == 0 &&
			 (err = file_write_atomic(to, f->data, f->len)) == 0 && symlink(gcno, link) < 0)
			err = error_set_errno(ERR_GENERIC, "cannot link '%s'", link);
		free(gcno);
		free(to);
		free(link);
		free(parent);
	}
	if (!err) {
		const char *argv[] = { "lcov", "--quiet", "--capture", "--directory", stage,
				       "--gcov-tool", c->gcov_tool, "--output-file", info, NULL };

		if ((err = run_tool(c, argv, NULL)) == 0)
			err = relative_sources(c, info);
	}
	return err;
}

/* lcov --add-tracefile of each input into out. */
static int merge(struct cov *c, const struct strlist *inputs, const char *out)
{
	const char **argv = xcalloc(2 * inputs->n + 6, sizeof(*argv));
	size_t n = 0;
	int err;

	argv[n++] = "lcov";
	argv[n++] = "--quiet";
	for (size_t i = 0; i < inputs->n; i++) {
		argv[n++] = "--add-tracefile";
		argv[n++] = inputs->v[i];
	}
	argv[n++] = "--output-file";
	argv[n++] = out;
	err = run_tool(c, argv, NULL);
	free(argv);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Leaves the setup out of the figures, saying why on stderr and in the summary. */
static void leave_out(struct cov *c, const struct cpu_setup *cpu, const char *why)
{
	strbuf_addf(&c->notes, "  %s: left out: %s\n", cpu->spec, why);
	fprintf(stderr, "fpubench: coverage of '%s' left out: %s\n", cpu->spec, why);
}

/*
 * The setup's tracefile `info` from its boots' consoles: 1 when it was
 * written, 0 when the setup is left out, or a negative error.
 */
static int setup_trace(struct cov *c, const struct matrix *m, size_t si, const char *info)
{
	const struct session *s = c->s;
	const struct cpu_setup *cpu = &s->setups[si];
	struct strlist consoles = STRLIST_INIT, infos = STRLIST_INIT;
	const struct kernel_build *b = NULL;
	char *slug = matrix_setup_slug(cpu->spec);
	bool damaged = false;
	size_t silent = 0;	/* boots that sent nothing */
	int err = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *cell = &m->cells[i];

		if (cell->cpu != cpu || !cell->console)
			continue;
		strlist_push_unique(&consoles, cell->console);
		for (size_t k = 0; k < s->nkernels; k++)
			if (cell->kernel == &s->kernels[k])
				b = s->builds[k];
	}
	qsort(consoles.v, consoles.n, sizeof(*consoles.v), cmp_str);
	for (size_t i = 0; i < consoles.n && !err && !damaged; i++) {
		char *path = xasprintf("%s/%s", s->run_dir, consoles.v[i]);
		char *stage = xasprintf("%s/data/%s.%zu", c->dir, slug, i + 1);
		char *boot_info = xasprintf("%s.info", stage);
		struct strbuf text = STRBUF_INIT;
		struct gcda_set *set = NULL;
		bool truncated;

		if ((err = file_read_capped(path, CONSOLE_MAX, &text, &truncated)) == 0 &&
		    (err = gcda_scan(consoles.v[i], text.buf, text.len, &set)) == 0 && !set->sent)
			silent++;
		else if (!err && (err = capture(c, b, consoles.v[i], set, stage, boot_info)) == 0)
			strlist_push(&infos, xstrdup(boot_info));
		/* A boot whose data is damaged would make the setup's figure a guess. */
		if (err == ERR_INPUT) {
			leave_out(c, cpu, error_last());
			error_clear();
			damaged = true;
			err = 0;
		}
		gcda_set_free(set);
		strbuf_release(&text);
		free(path);
		free(stage);
		free(boot_info);
	}
	if (!err && !damaged && !infos.n) {
		leave_out(c, cpu, "no boot sent coverage data (see its cells)");
	} else if (!err && !damaged && (err = merge(c, &infos, info)) == 0) {
		/* A boot that a test took down sends nothing: what it ran is missing. */
		if (silent) {
			strbuf_addf(&c->notes, "  %s: partial: %zu of %zu boots sent no coverage data (see its cells)\n",
				    cpu->spec, silent, consoles.n);
			fprintf(stderr, "fpubench: coverage of '%s' is partial: %zu of %zu boots sent no coverage data\n",
				cpu->spec, silent, consoles.n);
		}
		err = 1;
	}
	strlist_release(&consoles);
	strlist_release(&infos);
	free(slug);
	return err;
}

/* The files the summary reports on one by one: the objects the gcov patch profiles and the FPU headers. */
static bool is_fpu_code(const char *path)
{
	return strncmp(path, "arch/x86/kernel/", 16) == 0 ||
	       strncmp(path, "arch/x86/include/asm/fpu", 24) == 0 || strcmp(path, "fs/binfmt_elf.c") == 0;
}

static int html(struct cov *c, const char *info, const char *out, const char *title)
{
	const char *argv[] = { "genhtml", "--quiet", "--legend", "--ignore-errors", "source", "--title", title,
			       "--output-directory", out, info, NULL };

	/* The tracefiles name sources relative to the tree. */
	return run_tool(c, argv, c->tree);
}

/*
 * The FSAVE setups' unreached lines, sorted by GCOV_UNREACHED against the
 * sources as the kernel was built, into the summary and into
 * html/fsave/unreached.html beside genhtml's pages.  A list that cannot be read leaves every
 * line unexplained; one that is not a list is an error.
 */
static int explain_unreached(struct cov *c, const struct lcov_trace *fsave, struct strbuf *out)
{
	char *name = xasprintf("%s/%s", c->patches, GCOV_UNREACHED);
	struct unreached_source *src = xcalloc(fsave->nfiles + 1, sizeof(*src));
	struct strbuf *texts = xcalloc(fsave->nfiles + 1, sizeof(*texts));
	struct unreached_list *list = NULL;
	struct strbuf text = STRBUF_INIT;
	int err = 0;

	if (file_read(name, &text) == 0)
		err = unreached_parse(name, text.buf, &list);
	for (size_t i = 0; i < fsave->nfiles && !err; i++) {
		char *path = xasprintf("%s/%s", c->tree, fsave->files[i].path);

		strbuf_init(&texts[i]);
		src[i].path = fsave->files[i].path;
		if (is_fpu_code(src[i].path) && file_read(path, &texts[i]) == 0)
			src[i].text = texts[i].buf;
		free(path);
	}
	if (!err) {
		char *page = NULL, *path = xasprintf("%s/html/fsave/unreached.html", c->dir);

		unreached_summary(out, fsave, list, name, src, fsave->nfiles, is_fpu_code);
		err = unreached_html(fsave, list, name, src, fsave->nfiles, is_fpu_code, &page);
		if (!err)
			err = file_write_atomic(path, page, strlen(page));
		free(page);
		free(path);
	}
	for (size_t i = 0; i < fsave->nfiles; i++)
		strbuf_release(&texts[i]);
	free(texts);
	free(src);
	strbuf_release(&text);
	unreached_list_free(list);
	free(name);
	return err;
}

static int summary(struct cov *c, struct strlist *titles, struct strlist *infos, const char *path)
{
	const struct session *s = c->s;
	struct lcov_named *named = xcalloc(infos->n, sizeof(*named));
	struct strbuf out = STRBUF_INIT;
	int err = 0;
	size_t n = 0;

	for (; n < infos->n && !err; n++) {
		struct strbuf text = STRBUF_INIT;
		struct lcov_trace *t = NULL;

		if ((err = file_read(infos->v[n], &text)) == 0 &&
		    (err = lcov_parse(infos->v[n], text.buf, &t)) == 0)
			named[n] = (struct lcov_named){ .title = titles->v[n], .trace = t };
		strbuf_release(&text);
		if (err)
			break;
	}
	if (!err) {
		const struct kernel_build *b = s->builds[0];

		strbuf_addf(&out, "Line coverage of the FPU code: Linux %s, variant %s, commit %.12s\n"
			    "Sources are relative to %s.\n"
			    "Each table: lines executed / lines with code, functions executed / functions.\n",
			    b->version, b->variant, b->commit, c->tree);
		if (c->notes.len)
			strbuf_addf(&out, "\nSetups left out or partial:\n%s", c->notes.buf);
		/* The last two are the FSAVE setups' and every setup's. */
		lcov_summary(&out, named, n - 2, &named[n - 2], &named[n - 1], is_fpu_code);
		err = explain_unreached(c, named[n - 2].trace, &out);
	}
	if (!err) {
		err = file_write_atomic(path, out.buf, out.len);
	}
	for (size_t i = 0; i < n; i++)
		lcov_trace_free((struct lcov_trace *)named[i].trace);
	free(named);
	strbuf_release(&out);
	return err;
}

/*
 * What an earlier run left in DIR: its tracefiles, data/, html/, the
 * summary and the log.  A tracefile of a setup this run does not boot
 * would pass for one of this run's.
 */
static int clear_dir(struct cov *c)
{
	char *data = xasprintf("%s/data", c->dir), *html = xasprintf("%s/html", c->dir);
	char *summary = xasprintf("%s/summary.txt", c->dir);
	const char *rm[] = { "rm", "-rf", data, html, summary, c->log, NULL };
	DIR *d = opendir(c->dir);
	struct dirent *e;
	int err = 0;

	if (!d)
		err = error_set_errno(ERR_GENERIC, "cannot read directory '%s'", c->dir);
	while (!err && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *path;

		if (n <= 5 || strcmp(e->d_name + n - 5, ".info") != 0)
			continue;
		path = xasprintf("%s/%s", c->dir, e->d_name);
		if (unlink(path) < 0)
			err = error_set_errno(ERR_GENERIC, "cannot remove '%s'", path);
		free(path);
	}
	if (d)
		closedir(d);
	if (!err && spawn_run(rm, NULL, NULL, NULL) != 0)
		err = error_set(ERR_GENERIC, "cannot clear '%s'", c->dir);
	free(data);
	free(html);
	free(summary);
	return err;
}

/*
 * Each setup's tracefile, named in fsave or fxsave by how it saves the FPU,
 * and in titles/infos for the summary.  ERR_GENERIC when no FSAVE setup
 * sent data: the figures are the FSAVE setups'.
 */
static int setups_trace(struct cov *c, const struct matrix *m, struct strlist *fsave,
			struct strlist *fxsave, struct strlist *titles, struct strlist *infos)
{
	const struct session *s = c->s;
	int err = 0;

	for (size_t i = 0; i < s->nsetups && err >= 0; i++) {
		char *slug = matrix_setup_slug(s->setups[i].spec);
		char *info = xasprintf("%s/%s.info", c->dir, slug);
		bool uses_fsave = cpu_setup_uses_fsave(&s->setups[i]);

		if ((err = setup_trace(c, m, i, info)) == 1) {
			strlist_push(uses_fsave ? fsave : fxsave, xstrdup(info));
			strlist_push(titles, xasprintf("%s (%s)", s->setups[i].spec,
						       uses_fsave ? "FSAVE" : "FXSAVE"));
			strlist_push(infos, xstrdup(info));
		}
		free(slug);
		free(info);
	}
	if (err < 0)
		return err;
	if (!fsave->n && !fxsave->n)
		return error_set(ERR_GENERIC, "no setup sent coverage data (see the cells and '%s')",
				 s->run_dir);
	if (!fsave->n)
		return error_set(ERR_GENERIC, "no FSAVE setup sent coverage data (see the cells and '%s')",
				 s->run_dir);
	return 0;
}

int coverage_write(const struct session *s, const struct matrix *m, const char *dir,
		   const char *patches)
{
	struct cov c = { .s = s, .dir = path_absolute(dir), .patches = patches,
			 .notes = STRBUF_INIT };
	struct strlist fsave = STRLIST_INIT, all = STRLIST_INIT, titles = STRLIST_INIT,
		       infos = STRLIST_INIT;
	char real[PATH_MAX], *fsave_info = NULL, *all_info = NULL, *out = NULL;
	git_oid commit;
	int err;

	c.log = xasprintf("%s/lcov.log", c.dir);
	if (!realpath(s->tree->path, real)) {
		err = error_set_errno(ERR_GENERIC, "cannot resolve '%s'", s->tree->path);
		goto out;
	}
	c.tree = xstrdup(real);
	if ((err = dir_create(c.dir, ERR_GENERIC)) < 0 || (err = find_gcov(&c, s->builds[0])) < 0)
		goto out;
	if ((err = clear_dir(&c)) < 0)
		goto out;
	if ((err = setups_trace(&c, m, &fsave, &all, &titles, &infos)) < 0)
		goto out;
	/* `all` so far holds the FXSAVE setups'. */
	for (size_t i = 0; i < fsave.n; i++)
		strlist_push(&all, xstrdup(fsave.v[i]));
	/* genhtml shows the sources as the kernel was built: another variant may be checked out. */
	if (git_oid_fromstr(&commit, s->builds[0]->commit) == 0 &&
	    (err = apply_checkout(s->tree, &commit)) < 0)
		goto out;
	fsave_info = xasprintf("%s/fsave.info", c.dir);
	all_info = xasprintf("%s/all.info", c.dir);
	out = xasprintf("%s/html", c.dir);
	if ((err = merge(&c, &fsave, fsave_info)) < 0 || (err = merge(&c, &all, all_info)) < 0 ||
	    (err = html(&c, all_info, out, "FPU code, every setup")) < 0)
		goto out;
	free(out);
	out = xasprintf("%s/html/fsave", c.dir);
	if ((err = html(&c, fsave_info, out, "FPU code, FSAVE setups")) < 0)
		goto out;
	strlist_push(&titles, xstrdup("FSAVE setups together"));
	strlist_push(&infos, xstrdup(fsave_info));
	strlist_push(&titles, xstrdup("every setup"));
	strlist_push(&infos, xstrdup(all_info));
	free(out);
	out = xasprintf("%s/summary.txt", c.dir);
	err = summary(&c, &titles, &infos, out);
out:
	free(c.dir);
	free(c.log);
	free(c.gcov_tool);
	free(c.tree);
	strbuf_release(&c.notes);
	strlist_release(&fsave);
	strlist_release(&all);
	strlist_release(&titles);
	strlist_release(&infos);
	free(fsave_info);
	free(all_info);
	free(out);
	return err;
}
