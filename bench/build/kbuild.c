#include "kbuild.h"

#include "apply.h"
#include "kconfig.h"
#include "tree.h"
#include "lib/array.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/notice.h"
#include "lib/progress.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_LOG_TAIL_LINES 20

void kbuild_print_log_tail(const char *log)
{
	struct strbuf text = STRBUF_INIT;
	int lines = 0;
	size_t start;

	if (file_read(log, &text) < 0) {
		strbuf_release(&text);
		return;
	}
	for (start = text.len; start > 0; start--)
		if (text.buf[start - 1] == '\n' && ++lines > BUILD_LOG_TAIL_LINES)
			break;
	notice("last lines of %s\n%s--- end of %s", log, text.buf + start, log);
	strbuf_release(&text);
}

/* On a full disk a child's log may well be empty: the message says why instead. */
const char *kbuild_full_note(const char *dir)
{
	return dir_is_full(dir) ? " (its file system is full)" : "";
}

/* "modules" writes Module.symvers, which out-of-tree test modules link against. */
static const char *const build_targets[] = { "bzImage", "modules" };
#define BUILD_NTARGETS (ARRAY_SIZE(build_targets))

/*
 * Checks the .config the kernel is, or was, built with against the
 * fragment, and reads the lowest CPU it runs on.
 */
static int build_config_check(struct kernel_build *b, const char *fragment, const char *text)
{
	char *config = xasprintf("%s/.config", b->dir);
	struct strbuf final = STRBUF_INIT;
	int err = file_read(config, &final);

	strlist_release(&b->warnings);
	if (!err && (err = kconfig_check(fragment, text, final.buf, b->version, &b->warnings)) == 0)
		b->min_family = kconfig_min_family(final.buf);
	strbuf_release(&final);
	free(config);
	return err;
}

/* The config's warnings on stderr at every use, and in the build log when it was built now. */
static void build_warn(const struct kernel_build *b)
{
	FILE *log = b->rebuilt && b->warnings.n ? fopen(b->log, "a") : NULL;

	for (size_t i = 0; i < b->warnings.n; i++) {
		notice("warning: %s", b->warnings.v[i]);
		if (log)
			fprintf(log, "fpubench: warning: %s\n", b->warnings.v[i]);
	}
	if (log)
		fclose(log);
}

/* tinyconfig plus the fragment, unless the .config there came from this same fragment. */
static int build_configure(struct kernel_tree *t, struct kernel_build *b, const char *text,
			   const char *hash)
{
	char *odir = xasprintf("O=%s", b->dir);
	char *config = xasprintf("%s/.config", b->dir);
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", t->path);
	char *stamp = xasprintf("%s/fpubench.config", b->dir);
	char *fragment = xasprintf("%s/fpubench.fragment", b->dir);
	const char *tiny[] = { "make", "ARCH=i386", odir, "tinyconfig", NULL };
	const char *merge_argv[] = { merge, "-m", "-O", b->dir, config, fragment, NULL };
	const char *olddef[] = { "make", "ARCH=i386", odir, "olddefconfig", NULL };
	int err = 0;

	if (file_holds(stamp, hash) && file_exists(config))
		goto out;
	/* A configure that fails half way must not leave the stamp of the .config it replaces. */
	if (unlink(stamp) < 0 && errno != ENOENT) {
		err = error_set_errno(ERR_CACHE, "cannot remove '%s'", stamp);
		goto out;
	}
	if ((err = file_write_atomic_mode(fragment, text, strlen(text), KERNEL_CACHE_FILE_MODE)) < 0)
		goto out;
	if (spawn_run(tiny, t->path, b->log, NULL) != 0 ||
	    spawn_run(merge_argv, t->path, b->log, NULL) != 0 ||
	    spawn_run(olddef, t->path, b->log, NULL) != 0) {
		err = error_set(ERR_BUILD, "cannot configure variant '%s'%s; see '%s'", b->variant,
				kbuild_full_note(b->dir), b->log);
		kbuild_print_log_tail(b->log);
		goto out;
	}
	err = file_write_atomic_mode(stamp, hash, strlen(hash), KERNEL_CACHE_FILE_MODE);
out:
	free(odir);
	free(config);
	free(merge);
	free(stamp);
	free(fragment);
	return err;
}

/* What the build log says so far: kbuild's quiet lines, "  CC      path.o". */
struct build_progress {
	const char *variant;
	const char *log;
	off_t offset;		/* the log up to here is counted */
	size_t objects;
	char current[80];
	struct progress progress;
};

static void build_count_line(struct build_progress *bp, const char *line, size_t len)
{
	size_t word = 0, n = 0;

	if (len < 4 || line[0] != ' ' || line[1] != ' ')
		return;
	while (2 + word < len && line[2 + word] >= 'A' && line[2 + word] <= 'Z')
		word++;
	if (!word || 2 + word >= len || line[2 + word] != ' ')
		return;
	if ((word == 2 && (memcmp(line + 2, "CC", 2) == 0 || memcmp(line + 2, "AS", 2) == 0)))
		bp->objects++;
	/* The log is make's, but a terminal gets only plain characters from it. */
	for (size_t i = 2; i < len && n + 1 < sizeof(bp->current); i++)
		if (line[i] >= 0x20 && line[i] < 0x7f && !(line[i] == ' ' && n && bp->current[n - 1] == ' '))
			bp->current[n++] = line[i];
	bp->current[n] = '\0';
}

static void build_tick(void *arg)
{
	struct build_progress *bp = arg;
	char buf[65536];
	int fd = open(bp->log, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return;
	while ((got = pread(fd, buf, sizeof(buf), bp->offset)) > 0) {
		char *start = buf, *nl, *end = buf + got;

		/* Whole lines only; the rest is read again next time. */
		while ((nl = memchr(start, '\n', (size_t)(end - start)))) {
			build_count_line(bp, start, (size_t)(nl - start));
			start = nl + 1;
		}
		if (start == buf)
			break;
		bp->offset += start - buf;
	}
	close(fd);
	progress_update(&bp->progress, -1, "%s: %zu objects compiled, %s", bp->variant,
			bp->objects, bp->current);
}

static int build_make(struct kernel_tree *t, struct kernel_build *b, int jobs)
{
	struct build_progress bp = { .variant = b->variant, .log = b->log };
	char *odir = xasprintf("O=%s", b->dir);
	char *jflag = xasprintf("-j%d", jobs);
	char *basedir = xasprintf("CCACHE_BASEDIR=%s", t->path);
	char *ccdir = xasprintf("CCACHE_DIR=%s/ccache", t->cache);
	const char *argv[10] = { "make", "ARCH=i386", odir, jflag, "LOCALVERSION=" };
	size_t argc = 5;
	/* A fixed identity keeps builds reproducible and ccache hits high. */
	const char *env[] = { basedir, ccdir, "KBUILD_BUILD_USER=fpubench",
			      "KBUILD_BUILD_HOST=fpubench", "KBUILD_BUILD_TIMESTAMP=2011-04-06", NULL };
	int err = 0;

	if (access("/usr/bin/ccache", X_OK) == 0)
		argv[argc++] = "CC=ccache gcc";
	for (size_t i = 0; i < BUILD_NTARGETS; i++)
		argv[argc++] = build_targets[i];
	struct stat st;
	/* The log may hold earlier steps (configuring); count from here. */
	bp.offset = stat(b->log, &st) == 0 ? st.st_size : 0;
	progress_init(&bp.progress, stderr, "building");
	struct spawn_watch watch = { .stdin_fd = -1, .tick = build_tick, .arg = &bp };
	int status = spawn_run_watched(argv, t->path, b->log, env, &watch);
	progress_end(&bp.progress);
	if (status != 0) {
		err = error_set(ERR_BUILD, "kernel build of variant '%s' failed%s; see '%s'",
				b->variant, kbuild_full_note(b->dir), b->log);
		kbuild_print_log_tail(b->log);
	}
	free(odir);
	free(jflag);
	free(basedir);
	free(ccdir);
	return err;
}

/* Copies the seed's directory under a temporary name first: a killed copy is never used. */
static int build_dir_seed(struct kernel_build *b, const struct kernel_build *seed)
{
	char *tmp = xasprintf("%s.tmp", b->dir);
	char *stamp = xasprintf("%s/fpubench.stamp", tmp);
	const char *rm_argv[] = { "rm", "-rf", tmp, NULL };
	const char *cp_argv[] = { "cp", "-a", seed->dir, tmp, NULL };
	int err = 0;

	if (spawn_run(rm_argv, NULL, NULL, NULL) != 0 || spawn_run(cp_argv, NULL, NULL, NULL) != 0 ||
	    (unlink(stamp) < 0 && errno != ENOENT) || rename(tmp, b->dir) < 0) {
		err = error_set(ERR_CACHE, "cannot copy build directory '%s' to '%s'%s", seed->dir,
				b->dir, kbuild_full_note(tmp));
		/* A failed copy on a full disk would hold its space until the next build. */
		spawn_run(rm_argv, NULL, NULL, NULL);
	}
	free(tmp);
	free(stamp);
	return err;
}

/* The HEAD commit of a work tree taken as it is, or "" when it has none. */
static void work_tree_head(const char *path, char *hex, size_t size)
{
	git_repository *repo = NULL;
	git_oid head;

	hex[0] = '\0';
	if (git_repository_open_ext(&repo, path, 0, NULL) == 0 &&
	    git_reference_name_to_id(&head, repo, "HEAD") == 0)
		git_oid_tostr(hex, size, &head);
	git_repository_free(repo);
	error_clear();
}

/*
 * The fragment this tree is built with: the user's plus the lowest
 * processor family its Kconfig.cpu offers, unless the user's names one.
 */
static int build_fragment(struct kernel_tree *t, const git_oid *commit, const char *text,
			  char **out)
{
	struct strbuf kconfig = STRBUF_INIT;
	const struct kconfig_family *family = kconfig_family_set(text);
	int err = 0;

	if (!family && (err = kernel_tree_read_file(t, commit, "arch/x86/Kconfig.cpu", &kconfig)) == 0 &&
	    !(family = kconfig_lowest_family(kconfig.buf, kconfig.len))) {
		struct strbuf names = STRBUF_INIT;

		for (size_t i = 0; i < kconfig_families_count; i++)
			strbuf_addf(&names, "%s%s", i ? ", " : "", kconfig_families[i].option + 7);
		err = error_set(ERR_INPUT, "kernel tree '%s' offers none of the processor families fpubench builds for (%s)",
				t->path, names.buf);
		strbuf_release(&names);
	}
	if (!err)
		*out = kconfig_fragment(text, family);
	strbuf_release(&kconfig);
	return err;
}

/* b->build_id from its commit and fitted fragment `text`, whose hash goes to fragment_hash. */
static void build_set_id(struct kernel_build *b, const char *text,
			 char fragment_hash[GIT_OID_HEXSZ + 1])
{
	struct strbuf id_text = STRBUF_INIT;
	char id_hex[GIT_OID_HEXSZ + 1];
	git_oid oid;

	git_odb_hash(&oid, text, strlen(text), GIT_OBJECT_BLOB);
	git_oid_tostr(fragment_hash, GIT_OID_HEXSZ + 1, &oid);
	strbuf_addf(&id_text, "commit %s\nconfig %s\ntargets", b->commit, fragment_hash);
	for (size_t i = 0; i < BUILD_NTARGETS; i++)
		strbuf_addf(&id_text, " %s", build_targets[i]);
	strbuf_addch(&id_text, '\n');
	/*
	 * gcov compiles each profiled object's .gcda path, in this directory,
	 * into the kernel: built elsewhere (a cache moved or copied), its data
	 * would name a directory that is not this one.  Built again here, rather
	 * than mapped: its .gcno files also name the sources by the old tree's
	 * path, which lcov cannot map and a copied cache's original still holds.
	 */
	if (kconfig_sets(text, "CONFIG_GCOV_KERNEL"))
		strbuf_addf(&id_text, "dir %s\n", b->dir);
	git_odb_hash(&oid, id_text.buf, id_text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(id_hex, sizeof(id_hex), &oid);
	memcpy(b->build_id, id_hex, sizeof(b->build_id) - 1);
	strbuf_release(&id_text);
}

/*
 * gcc stamps a gcov object's notes and counters with the time it was
 * compiled, so no two builds of a gcov kernel are alike and its .gcda files
 * fit only its own build's .gcno: its id, once built or found, also hashes
 * the bzImage, so that nothing keyed by the id (a saved guest) outlives the
 * build (a cache moved back to a directory it was built in before).
 */
static int build_seal_id(struct kernel_build *b, const char *text)
{
	char hex[GIT_OID_HEXSZ + 1], *id_text;
	git_oid oid;

	if (!kconfig_sets(text, "CONFIG_GCOV_KERNEL"))
		return 0;
	if (git_odb_hashfile(&oid, b->bzimage, GIT_OBJECT_BLOB) < 0)
		return error_set(ERR_CACHE, "cannot read '%s'", b->bzimage);
	git_oid_tostr(hex, sizeof(hex), &oid);
	id_text = xasprintf("build %s\nbzImage %s\n", b->build_id, hex);
	git_odb_hash(&oid, id_text, strlen(id_text), GIT_OBJECT_BLOB);
	git_oid_tostr(hex, sizeof(hex), &oid);
	memcpy(b->build_id, hex, sizeof(b->build_id) - 1);
	free(id_text);
	return 0;
}

int kbuild_make(struct kernel_tree *t, const char *variant, const git_oid *commit,
		 const char *fragment, int jobs, const struct kernel_build *seed,
		 struct kernel_build **out)
{
	struct kernel_build *b = xcalloc(1, sizeof(*b));
	struct strbuf frag = STRBUF_INIT;
	char *stamp = NULL, *text = NULL, fragment_hash[GIT_OID_HEXSZ + 1];
	double start = clock_seconds();
	int err;

	b->variant = xstrdup(variant);
	b->dir = xasprintf("%s/build/%s/%s", t->cache, t->key, variant);
	b->bzimage = xasprintf("%s/arch/x86/boot/bzImage", b->dir);
	b->log = xasprintf("%s/build.log", b->dir);
	if (commit)
		git_oid_tostr(b->commit, sizeof(b->commit), commit);
	else
		work_tree_head(t->path, b->commit, sizeof(b->commit));
	if ((err = file_read(fragment, &frag)) < 0 ||
	    (err = kernel_tree_version(t, commit, &b->version)) < 0 ||
	    (err = build_fragment(t, commit, frag.buf, &text)) < 0)
		goto out;
	build_set_id(b, text, fragment_hash);

	stamp = xasprintf("%s/fpubench.stamp", b->dir);
	/* A work tree taken as it is may hold any edit: make alone can tell. */
	if (commit && file_holds(stamp, b->build_id) && file_exists(b->bzimage)) {
		if ((err = build_config_check(b, fragment, text)) == 0 && (err = build_seal_id(b, text)) == 0)
			build_warn(b);
		goto out;
	}

	b->rebuilt = true;
	notice("building variant '%s' of Linux %s (commit %.12s) in %s", variant,
		b->version, *b->commit ? b->commit : "none", b->dir);
	if (!file_exists(b->dir)) {
		char *parent = xasprintf("%s/build/%s", t->cache, t->key);

		err = dir_create_mode(parent, KERNEL_CACHE_DIR_MODE, ERR_CACHE);
		free(parent);
		if (err < 0 || (seed && (err = build_dir_seed(b, seed)) < 0))
			goto out;
		if ((err = dir_create_mode(b->dir, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
			goto out;
	}
	/* Gone before the directory changes and written last, so a failed build never looks done. */
	if (unlink(stamp) < 0 && errno != ENOENT) {
		err = error_set_errno(ERR_CACHE, "cannot remove '%s'", stamp);
		goto out;
	}
	unlink(b->log);
	if ((commit && (err = apply_checkout(t, commit)) < 0) ||
	    (err = build_configure(t, b, text, fragment_hash)) < 0 ||
	    (err = build_config_check(b, fragment, text)) < 0 ||
	    (err = build_make(t, b, jobs)) < 0 ||
	    /* make reruns Kconfig when a Kconfig file changed since the configure, and may drop an option. */
	    (err = build_config_check(b, fragment, text)) < 0)
		goto out;
	build_warn(b);
	if ((err = file_write_atomic_mode(stamp, b->build_id, strlen(b->build_id), KERNEL_CACHE_FILE_MODE)) == 0)
		err = build_seal_id(b, text);
	b->seconds = clock_seconds() - start;
out:
	strbuf_release(&frag);
	free(stamp);
	free(text);
	if (err < 0) {
		kbuild_free(b);
		return err;
	}
	*out = b;
	return 0;
}

struct kernel_build *kbuild_existing(const struct kernel_tree *t, const char *variant)
{
	struct kernel_build *b = xcalloc(1, sizeof(*b));
	char *stamp;

	/* Build directories are per tree, so one with a stamp was built from this one. */
	b->dir = xasprintf("%s/build/%s/%s", t->cache, t->key, variant);
	stamp = xasprintf("%s/fpubench.stamp", b->dir);
	if (!file_exists(stamp)) {
		kbuild_free(b);
		b = NULL;
	}
	free(stamp);
	return b;
}

void kbuild_free(struct kernel_build *b)
{
	if (!b)
		return;
	free(b->variant);
	free(b->dir);
	free(b->bzimage);
	free(b->log);
	free(b->version);
	strlist_release(&b->warnings);
	free(b);
}
