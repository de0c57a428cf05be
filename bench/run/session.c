#include "session.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "boot/cpu_check.h"
#include "boot/embed.h"
#include "boot/guest.h"
#include "boot/virt_log.h"
#include "build/payload.h"
#include "lab/lab.h"
#include "provenance/provenance.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/repository.h>

/* A lab of this run that holds the board, or NULL. */
static const struct conf_lab *board_lab(const struct session *s, const char *board)
{
	for (size_t l = 0; l < s->cfg.nlabs; l++)
		for (size_t b = 0; b < s->cfg.labs[l]->nboards; b++)
			if (strcmp(s->cfg.labs[l]->boards[b], board) == 0)
				return s->cfg.labs[l];
	return NULL;
}

/*
 * A board setup takes its FPU claim and console from its [board], and
 * must be in a lab of this run: it boots nowhere else.
 */
static int setup_board(struct session *s, struct cpu_setup *c)
{
	const struct conf_board *b = conf_board_find(s->cfg.boards, s->cfg.nboards, c->board);
	char *cmdline;

	if (!b)
		return error_set(ERR_USAGE, "cpu setup '%s': no [board %s] in the config", c->spec,
				 c->board);
	if (!board_lab(s, c->board))
		return error_set(ERR_USAGE, "board '%s' is in no lab of this run: a board boots only "
					    "in a lab that lists it (board = %s) and is picked (--lab)",
				 c->board, c->board);
	c->board_fsave = b->fpu == EXPECT_FPU_FSAVE;
	/* The last console= is the one init writes to; its speed is the board's. */
	cmdline = xasprintf("console=%s%s%s", b->console ? b->console : CONF_BOARD_CONSOLE,
			    *c->cmdline ? " " : "", c->cmdline);
	free(c->cmdline);
	c->cmdline = cmdline;
	return 0;
}

int session_parse_setups(struct session *s, const char *const *specs, size_t n)
{
	if (!n)
		return error_set(ERR_USAGE, "no cpu setup to boot on");
	s->setups = xcalloc(n, sizeof(*s->setups));
	for (size_t i = 0; i < n; i++) {
		int err = cpu_setup_parse(&s->setups[i], specs[i]);
		if (err < 0)
			return err;
		s->nsetups++;
		if (s->setups[i].board && (err = setup_board(s, &s->setups[i])) < 0)
			return err;
		if (s->cfg.append && *s->cfg.append) {
			struct cpu_setup *c = &s->setups[i];
			char *cmdline = xasprintf("%s%s%s", c->cmdline, *c->cmdline ? " " : "",
						  s->cfg.append);

			free(c->cmdline);
			c->cmdline = cmdline;
		}
		/* A cell is named by its setup, and so is its console log. */
		for (size_t j = 0; j < i; j++)
			if (strcmp(specs[j], specs[i]) == 0)
				return error_set(ERR_USAGE, "cpu setup '%s' is given twice", specs[i]);
	}
	/* A misspelt model or feature is refused before the build; remote hosts judge at connect. */
	return s->cfg.nhosts ? 0 : cpu_check_local(s->setups, s->nsetups);
}

/*
 * The tested commit's trailers, lore URL and patch-id for results.json, or
 * NULL; "applied" says how the bench placed each patch below it.
 * Its own handle on the tree's repository, with an empty in-memory
 * index: libgit2 looks up each diffed file's "diff" attribute in the work
 * tree and then in the index, and the kernel's 8 MB index took 70 ms to
 * load (a third of a cell's time before its guest).  The work tree holds
 * the same .gitattributes, and a patch-id does not depend on them.
 */
static char *commit_provenance(const struct kernel_tree *t, const char *hex)
{
	struct strbuf sb = STRBUF_INIT;
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_oid oid;
	int err = -1;

	if (!*hex || git_oid_fromstr(&oid, hex) < 0)
		return NULL;
	/* A tree taken as it is may still be a git work tree. */
	if (git_repository_open_ext(&repo, t->path, 0, NULL) == 0 && git_index_new(&index) == 0 &&
	    git_repository_set_index(repo, index) == 0)
		err = provenance_commit_json(repo, &oid, &sb);
	git_index_free(index);
	git_repository_free(repo);
	if (err < 0) {
		error_clear();
		strbuf_release(&sb);
		return NULL;
	}
	struct json_object *prov = json_tokener_parse(sb.buf);
	struct json_object *applied = apply_notes_json(t, &oid);
	if (prov && applied) {
		json_object_object_add(prov, "applied", applied);
		strbuf_reset(&sb);
		strbuf_addstr(&sb, json_object_to_json_string_ext(prov, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		json_object_put(applied);
	}
	json_object_put(prov);
	return strbuf_detach(&sb);
}

int session_add_kernel(struct session *s, const char *variant, const git_oid *commit,
		       const char *fragment)
{
	/* One patch away from the last kernel, or the cache's variant from the same tree. */
	struct kernel_build *own_seed = NULL, *b;
	const struct kernel_build *seed = s->nkernels ? s->builds[s->nkernels - 1] : NULL;
	int err;

	if (!seed && s->cfg.seed_variant)
		seed = own_seed = kbuild_existing(s->tree, s->cfg.seed_variant);
	err = kbuild_make(s->tree, variant, commit, fragment, s->cfg.jobs, seed, &b);
	kbuild_free(own_seed);
	if (err < 0)
		return err;
	s->builds = xrealloc(s->builds, (s->nkernels + 1) * sizeof(*s->builds));
	s->kernels = xrealloc(s->kernels, (s->nkernels + 1) * sizeof(*s->kernels));
	s->initrds = xrealloc(s->initrds, (s->nkernels + 1) * sizeof(*s->initrds));
	s->provenance = xrealloc(s->provenance, (s->nkernels + 1) * sizeof(*s->provenance));
	s->builds[s->nkernels] = b;
	s->initrds[s->nkernels] = NULL;
	s->provenance[s->nkernels] = s->cfg.kernel_provenance ? commit_provenance(s->tree, b->commit)
							       : NULL;
	s->kernels[s->nkernels] = (struct matrix_kernel){
		.variant = b->variant,
		.bzimage = b->bzimage,
		.commit = b->commit,
		.build_id = b->build_id,
		.provenance = s->provenance[s->nkernels],
		.version = b->version,
		.min_family = b->min_family,
		.warnings = b->warnings.v,
		.nwarnings = b->warnings.n,
	};
	s->nkernels++;
	return 0;
}

void session_clear_kernels(struct session *s)
{
	for (size_t i = 0; i < s->nkernels; i++) {
		kbuild_free(s->builds[i]);
		free(s->initrds[i]);
		free(s->provenance[i]);
	}
	free(s->builds);
	free(s->kernels);
	free(s->initrds);
	free(s->provenance);
	s->builds = NULL;
	s->kernels = NULL;
	s->initrds = NULL;
	s->provenance = NULL;
	s->nkernels = 0;
}

/* Where a remote host keeps what the bench stages there, unless its [host] says. */
#define DEFAULT_STAGE_DIR "/var/tmp/fpubench"

/* Whether a URI names another machine, as qemu+ssh://host/system does. */
static bool uri_is_remote(const char *uri)
{
	const char *host = strstr(uri, "://");

	if (!host || host[3] == '/' || host[3] == '\0')
		return false;
	host += 3;
	return strncmp(host, "localhost", 9) != 0 || (host[9] != '/' && host[9] != ':' && host[9]);
}

static int host_connect(struct session *s, struct matrix_host *h, const char *stage)
{
	int err;

	if ((err = guest_conn_open(&h->conn, h->uri)) < 0)
		return err;
	if (!stage && uri_is_remote(h->uri))
		stage = DEFAULT_STAGE_DIR;
	if (stage && (err = guest_conn_stage(h->conn, stage)) < 0)
		return err;
	if (s->cfg.restore) {
		char *saves = xasprintf("%s/" SESSION_SAVES_DIR, s->tree->cache);

		err = guest_conn_restore(h->conn, saves);
		free(saves);
		if (err < 0)
			return err;
	}
	if (!h->jobs)
		h->jobs = guest_conn_capacity(h->conn, MATRIX_GUEST_MEMORY_MIB);
	/* Without [host]s the setups were checked against this machine's libvirt already. */
	return s->cfg.nhosts ? guest_check_cpus(h->conn, s->setups, s->nsetups) : 0;
}

/* The lab as a host of the matrix: its jobs at once (one unless it says). */
static int lab_connect(struct session *s, const struct conf_lab *c)
{
	char *token = NULL;
	struct lab *l;
	struct lab_spec spec = {
		.name = c->name, .engine = c->engine == CONF_LAB_REST ? LAB_REST : LAB_LAVA_RUN,
		.url = c->url, .artefacts = c->artefacts, .artefacts_url = c->artefacts_url,
		.device_type = c->device_type, .tags = (const char *const *)c->tags,
		.ntags = c->ntags, .queue_s = c->queue_s,
	};
	struct lava_board *boards = xcalloc(c->nboards + 1, sizeof(*boards));
	int err = c->engine == CONF_LAB_REST ? conf_lab_token(c, &token) : 0;

	/* conf.c made sure each has its [board]. */
	for (size_t i = 0; i < c->nboards; i++)
		boards[i] = conf_board_lava(conf_board_find(s->cfg.boards, s->cfg.nboards, c->boards[i]));
	spec.token = token;
	spec.boards = boards;
	spec.nboards = c->nboards;
	if (!err)
		err = lab_open(&l, &spec);
	free(token);
	free(boards);
	if (err < 0)
		return err;
	s->labs[s->nlabs++] = l;
	s->uris[s->nhosts] = xasprintf("lab %s", c->name);
	s->hosts[s->nhosts] = (struct matrix_host){
		.lab = lab_matrix(l), .uri = s->uris[s->nhosts], .jobs = c->jobs ? c->jobs : 1,
		.boards = (const char *const *)c->boards, .nboards = c->nboards,
	};
	s->nhosts++;
	return 0;
}

int session_connect(struct session *s)
{
	size_t n = s->cfg.nhosts ? s->cfg.nhosts : s->cfg.nlabs ? 0 : 1;
	int err;

	s->hosts = xcalloc(n + s->cfg.nlabs + 1, sizeof(*s->hosts));
	s->uris = xcalloc(n + s->cfg.nlabs + 1, sizeof(*s->uris));
	s->labs = xcalloc(s->cfg.nlabs + 1, sizeof(*s->labs));
	for (size_t i = 0; i < n; i++) {
		struct matrix_host *h = &s->hosts[s->nhosts];

		if (s->cfg.nhosts) {
			s->uris[i] = xstrdup(s->cfg.hosts[i].uri);
			h->jobs = s->cfg.hosts[i].jobs ? s->cfg.hosts[i].jobs : s->cfg.guests;
		} else {
			char *root = xasprintf("%s/libvirt", s->tree->cache);
			s->uris[i] = embed_uri(root);
			h->jobs = s->cfg.guests;
			free(root);
		}
		h->uri = s->uris[i];
		s->nhosts++;
		if ((err = host_connect(s, h, s->cfg.nhosts ? s->cfg.hosts[i].stage : NULL)) < 0)
			return err;
	}
	for (size_t i = 0; i < s->cfg.nlabs; i++)
		if ((err = lab_connect(s, s->cfg.labs[i])) < 0)
			return err;
	return 0;
}

/* The run's id: when it started, and the process. */
static char *run_id_new(void)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	return xasprintf("%s-%ld", stamp, (long)getpid());
}

int session_use_dir(struct session *s, const char *dir)
{
	s->run_id = run_id_new();
	s->run_dir = path_absolute(dir);
	return dir_create(s->run_dir, ERR_GENERIC);
}

int session_create_run_dir(struct session *s)
{
	char *log;
	int err;

	s->run_id = run_id_new();
	char *results = path_absolute(s->cfg.results);
	s->run_dir = xasprintf("%s/%s", results, s->run_id);
	free(results);
	if ((err = dir_create(s->run_dir, ERR_GENERIC)) < 0)
		return err;
	for (size_t i = 0; i < s->nlabs; i++)
		lab_use_dir(s->labs[i], s->run_dir);
	log = xasprintf("%s/" SESSION_VIRT_LOG, s->run_dir);
	err = virt_log_redirect(log);
	free(log);
	return err;
}

/*
 * One initramfs per kernel: init, the selftests and the module built for
 * it.  The module takes 2.3 s to build for each new kernel, which a
 * bisection judging other tests need not pay.
 */
static int build_payload(struct session *s, size_t k)
{
	char *init = xasprintf("%s/init", s->cfg.guest_dir);
	char *ko = NULL;
	int err;

	if (!file_exists(init)) {
		err = error_set(ERR_NOTFOUND, "guest init '%s' is missing (run 'make')", init);
		goto out;
	}
	if (!s->selftests && (err = payload_build_selftests(s->tree, &s->selftests)) < 0)
		goto out;
	if (strv_selects(s->cfg.tests, s->cfg.ntests, PAYLOAD_KMOD_TEST) &&
	    (err = payload_build_kmod(s->builds[k], s->cfg.kmod_src, &ko)) < 0)
		goto out;
	s->initrds[k] = xasprintf("%s/initramfs-%s.cpio", s->run_dir, s->kernels[k].variant);
	s->kernels[k].initrd = s->initrds[k];
	err = payload_write_initramfs(s->initrds[k], init, s->selftests, ko);
out:
	free(init);
	free(ko);
	return err;
}

int session_build_payloads(struct session *s)
{
	int err = 0;

	for (size_t k = 0; k < s->nkernels && !err; k++)
		if (!s->initrds[k])
			err = build_payload(s, k);
	return err;
}

static void matrix_append(struct matrix *into, struct matrix *from)
{
	into->cells = xrealloc(into->cells, (into->ncells + from->ncells) * sizeof(*into->cells));
	memcpy(into->cells + into->ncells, from->cells, from->ncells * sizeof(*from->cells));
	into->ncells += from->ncells;
	into->interrupted |= from->interrupted;
	into->stopped_early |= from->stopped_early;
	free(from->cells);
	free(from);
}

int session_boot(struct session *s, int repeat, struct matrix **out)
{
	struct matrix *all = xcalloc(1, sizeof(*all));
	int err = 0;

	err = session_build_payloads(s);
	for (int r = 0; r < repeat && !err && !all->interrupted && !all->stopped_early; r++) {
		struct matrix_options mo = {
			.hosts = s->hosts,
			.nhosts = s->nhosts,
			.run_id = s->run_id,
			.round = ++s->rounds,
			.run_dir = s->run_dir,
			.boot_timeout_s = s->cfg.timeout_s,
			.expects = s->cfg.expects,
			.nexpects = s->cfg.nexpects,
			.tests = s->cfg.tests,
			.ntests = s->cfg.ntests,
			.on_boot = s->cfg.on_boot,
			.on_boot_arg = s->cfg.on_boot_arg,
			.fail_fast = s->cfg.fail_fast,
		};
		struct matrix *m;

		err = matrix_run(&mo, s->kernels, s->nkernels, s->setups, s->nsetups, &m);
		if (!err)
			matrix_append(all, m);
	}
	if (err) {
		matrix_free(all);
		return err;
	}
	*out = all;
	return 0;
}

int session_mark_latest(struct session *s)
{
	char *latest = xasprintf("%s/latest", s->cfg.results);
	int err = file_symlink_atomic(s->run_id, latest);

	free(latest);
	return err;
}

static void disconnect(struct session *s)
{
	for (size_t i = 0; i < s->nhosts; i++) {
		guest_conn_free(s->hosts[i].conn);
		free(s->uris[i]);
	}
	for (size_t i = 0; i < s->nlabs; i++)
		lab_free(s->labs[i]);
	free(s->labs);
	s->labs = NULL;
	s->nlabs = 0;
	free(s->hosts);
	free(s->uris);
	s->hosts = NULL;
	s->uris = NULL;
	s->nhosts = 0;
}

void session_hand_over(struct session *s)
{
	disconnect(s);
	kernel_tree_unlock(s->tree);
}

void session_release(struct session *s)
{
	/* What libvirt wrote last goes to this run's log, not to the next one's. */
	if (s->run_dir)
		virt_log_redirect(NULL);
	session_clear_kernels(s);
	disconnect(s);
	kernel_tree_free(s->tree);
	for (size_t i = 0; i < s->nsetups; i++)
		cpu_setup_release(&s->setups[i]);
	free(s->setups);
	free(s->run_id);
	free(s->run_dir);
	free(s->selftests);
	memset(s, 0, sizeof(*s));
}
