/*
 * fpubench: the command line.  Each subcommand parses its options and
 * wires the modules together; the work is done in the modules.
 */
#include "cpu.h"
#include "error.h"
#include "fileutil.h"
#include "guest.h"
#include "kernel.h"
#include "matrix.h"
#include "payload.h"
#include "results.h"
#include "series.h"
#include "spawn.h"
#include "strbuf.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FPUBENCH_SRCDIR
#define FPUBENCH_SRCDIR "."
#endif
#ifndef FPUBENCH_GUEST_DIR
#define FPUBENCH_GUEST_DIR FPUBENCH_SRCDIR "/build/guest"
#endif

#define DEFAULT_TARBALL "/usr/src/linux-source-6.1.tar.xz"
#define DEFAULT_BOOT_TIMEOUT_S 60.0
#define TEST_VARIANT_BASE "patched"
#define TEST_VARIANT "test"

static volatile sig_atomic_t stop_signal;

static const char usage_text[] =
	"usage: fpubench run  [options] [--variant NAME]...\n"
	"       fpubench test [options] [--patch FILE]...\n"
	"\n"
	"  run   builds every variant of patches/variants and runs the reproducers on\n"
	"        every CPU setup; exits 0 when every cell met its expectation\n"
	"  test  builds \"patched\" with the given patches on top and runs the\n"
	"        reproducers; exits 0 pass, 1 fail, 125 untestable, 128+ error\n"
	"\n"
	"options:\n"
	"  --cpu SETUP      MODEL[,-FEATURE]...[:KERNEL-PARAMS]; repeatable (default: 6 setups)\n"
	"  --uri URI        libvirt URI (default: qemu:///embed?root=CACHE/libvirt)\n"
	"  --cache DIR      kernel tree and build cache (default: $FPUBENCH_CACHE,\n"
	"                   $XDG_CACHE_HOME/fpubench or ~/.cache/fpubench)\n"
	"  --patches DIR    series, variants and fpu.config (default: the repository's)\n"
	"  --results DIR    where run directories go (default: results)\n"
	"  --tarball FILE   the kernel source (default: " DEFAULT_TARBALL ")\n"
	"  --jobs N         guests at once and make jobs (default: the number of cores)\n"
	"  --timeout S      limit for one boot in seconds (default: 60)\n";

struct options {
	const char *command;
	const char *cache;
	const char *uri;
	const char *patches;
	const char *results;
	const char *tarball;
	int jobs;
	double timeout_s;
	const char **cpus;
	size_t ncpus;
	const char **variants;
	size_t nvariants;
	const char **extra_patches;
	size_t nextra_patches;
};

static void on_signal(int sig)
{
	stop_signal = sig;
	guest_interrupt();
	spawn_interrupt();
}

static void push(const char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

static char *default_cache(void)
{
	const char *env = getenv("FPUBENCH_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		return xstrdup(env);
	if (xdg && *xdg)
		return xasprintf("%s/fpubench", xdg);
	return xasprintf("%s/.cache/fpubench", home && *home ? home : "/tmp");
}

static int parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "uri", required_argument, NULL, 'u' },
		{ "cache", required_argument, NULL, 'C' },
		{ "patches", required_argument, NULL, 'P' },
		{ "results", required_argument, NULL, 'r' },
		{ "tarball", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "variant", required_argument, NULL, 'v' },
		{ "patch", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool is_test = strcmp(o->command, "test") == 0;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': push(&o->cpus, &o->ncpus, optarg); break;
		case 'u': o->uri = optarg; break;
		case 'C': o->cache = optarg; break;
		case 'P': o->patches = optarg; break;
		case 'r': o->results = optarg; break;
		case 't': o->tarball = optarg; break;
		case 'j':
			o->jobs = (int)strtol(optarg, &end, 10);
			if (*end || o->jobs < 1)
				return error_set(ERR_USAGE, "bad --jobs '%s'", optarg);
			break;
		case 'T':
			o->timeout_s = strtod(optarg, &end);
			if (*end || o->timeout_s <= 0)
				return error_set(ERR_USAGE, "bad --timeout '%s'", optarg);
			break;
		case 'v':
			if (is_test)
				return error_set(ERR_USAGE, "'test' takes no --variant");
			push(&o->variants, &o->nvariants, optarg);
			break;
		case 'p':
			if (!is_test)
				return error_set(ERR_USAGE, "'run' takes no --patch");
			push(&o->extra_patches, &o->nextra_patches, optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		default:
			return error_set(ERR_USAGE, "bad option (see 'fpubench --help')");
		}
	}
	if (optind < argc)
		return error_set(ERR_USAGE, "unexpected argument '%s'", argv[optind]);
	return 0;
}

static void iso_time(char *buf, size_t size, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Everything one invocation holds, freed in one place. */
struct session {
	struct options o;
	char *cache;
	struct cpu_setup *setups;
	size_t nsetups;
	struct kernel_tree *tree;
	struct series *series;
	struct kernel_build **builds;
	struct matrix_kernel *kernels;
	size_t nkernels;
	char *run_id;
	char *run_dir;
	char *selftests;
	char **initrds;
	char *uri;
	struct guest_conn *conn;
	struct matrix *matrix;
};

static void session_release(struct session *s)
{
	matrix_free(s->matrix);
	guest_conn_free(s->conn);
	for (size_t i = 0; i < s->nkernels; i++)
		kernel_build_free(s->builds[i]);
	free(s->builds);
	free(s->kernels);
	series_free(s->series);
	kernel_tree_free(s->tree);
	for (size_t i = 0; i < s->nsetups; i++)
		cpu_setup_release(&s->setups[i]);
	free(s->setups);
	free(s->cache);
	free(s->run_id);
	free(s->run_dir);
	free(s->selftests);
	for (size_t i = 0; s->initrds && i < s->nkernels; i++)
		free(s->initrds[i]);
	free(s->initrds);
	free(s->uri);
	free(s->o.cpus);
	free(s->o.variants);
	free(s->o.extra_patches);
}

static int parse_setups(struct session *s)
{
	const char *const *specs = s->o.ncpus ? s->o.cpus : (const char *const *)cpu_default_setups;
	size_t n = s->o.ncpus ? s->o.ncpus : cpu_default_setups_count;

	s->setups = xcalloc(n, sizeof(*s->setups));
	for (size_t i = 0; i < n; i++) {
		int err = cpu_setup_parse(&s->setups[i], specs[i]);
		if (err < 0)
			return err;
		s->nsetups++;
	}
	return 0;
}

static int add_kernel(struct session *s, const char *variant, const git_oid *commit,
		      const char *fragment)
{
	struct kernel_build *seed = s->nkernels ? s->builds[s->nkernels - 1] : NULL;
	struct kernel_build *b;
	int err = kernel_build(s->tree, variant, commit, fragment, s->o.jobs, seed, &b);

	if (err < 0)
		return err;
	s->builds = xrealloc(s->builds, (s->nkernels + 1) * sizeof(*s->builds));
	s->kernels = xrealloc(s->kernels, (s->nkernels + 1) * sizeof(*s->kernels));
	s->builds[s->nkernels] = b;
	s->nkernels++;
	/* Pointers into builds stay valid: each build is its own allocation. */
	for (size_t i = 0; i < s->nkernels; i++)
		s->kernels[i] = (struct matrix_kernel){
			.variant = s->builds[i]->variant,
			.bzimage = s->builds[i]->bzimage,
			.commit = s->builds[i]->commit,
			.build_id = s->builds[i]->build_id,
		};
	return 0;
}

static int build_kernels(struct session *s)
{
	char *fragment = xasprintf("%s/fpu.config", s->o.patches);
	int err;

	if ((err = series_load(&s->series, s->o.patches)) < 0)
		goto out;
	if (!file_exists(fragment)) {
		err = error_set(ERR_NOTFOUND, "config fragment '%s' is missing", fragment);
		goto out;
	}
	for (size_t i = 0; i < s->o.nextra_patches; i++) {
		if (!file_exists(s->o.extra_patches[i])) {
			err = error_set(ERR_NOTFOUND, "patch '%s' is missing", s->o.extra_patches[i]);
			goto out;
		}
	}
	if ((err = kernel_tree_open(&s->tree, s->cache, s->o.tarball)) < 0)
		goto out;

	if (strcmp(s->o.command, "test") == 0) {
		const struct series_variant *v = series_find_variant(s->series, TEST_VARIANT_BASE);
		git_oid commit;

		if (!v) {
			err = error_set(ERR_INPUT, "no variant '%s' in '%s/variants'", TEST_VARIANT_BASE,
					s->o.patches);
			goto out;
		}
		if ((err = kernel_tree_apply_series(s->tree, s->series, v->npatches, &commit)) < 0)
			goto out;
		for (size_t i = 0; i < s->o.nextra_patches; i++) {
			git_oid parent = commit;
			if ((err = kernel_tree_apply(s->tree, &parent, s->o.extra_patches[i], &commit)) < 0)
				goto out;
		}
		err = add_kernel(s, s->o.nextra_patches ? TEST_VARIANT : TEST_VARIANT_BASE, &commit,
				 fragment);
		goto out;
	}

	for (size_t i = 0; i < s->series->nvariants; i++) {
		const struct series_variant *v = &s->series->variants[i];
		bool wanted = s->o.nvariants == 0;
		git_oid commit;

		for (size_t j = 0; j < s->o.nvariants; j++)
			wanted |= strcmp(s->o.variants[j], v->name) == 0;
		if (!wanted)
			continue;
		if ((err = kernel_tree_apply_series(s->tree, s->series, v->npatches, &commit)) < 0 ||
		    (err = add_kernel(s, v->name, &commit, fragment)) < 0)
			goto out;
	}
	for (size_t j = 0; j < s->o.nvariants; j++) {
		if (!series_find_variant(s->series, s->o.variants[j])) {
			err = error_set(ERR_USAGE, "unknown variant '%s' (see '%s/variants')",
					s->o.variants[j], s->o.patches);
			goto out;
		}
	}
out:
	free(fragment);
	return err;
}

/* One initramfs per variant: init, the selftests and the module built for it. */
static int prepare_run_dir(struct session *s)
{
	char stamp[32], *init = xasprintf("%s/init", FPUBENCH_GUEST_DIR);
	char *kmod_src = xasprintf("%s/guest-tests/kmod", FPUBENCH_SRCDIR);
	time_t now = time(NULL);
	struct tm tm;
	int err;

	if (!file_exists(init)) {
		err = error_set(ERR_NOTFOUND, "guest init '%s' is missing (run 'make')", init);
		goto out;
	}
	if ((err = payload_build_selftests(s->tree, &s->selftests)) < 0)
		goto out;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	s->run_id = xasprintf("%s-%ld", stamp, (long)getpid());
	char *results = path_absolute(s->o.results);
	s->run_dir = xasprintf("%s/%s", results, s->run_id);
	free(results);
	if ((err = dir_create(s->run_dir, ERR_GENERIC)) < 0)
		goto out;
	s->initrds = xcalloc(s->nkernels, sizeof(*s->initrds));
	for (size_t i = 0; i < s->nkernels; i++) {
		char *ko = NULL;

		s->initrds[i] = xasprintf("%s/initramfs-%s.cpio", s->run_dir, s->builds[i]->variant);
		s->kernels[i].initrd = s->initrds[i];
		err = payload_build_kmod(s->builds[i], kmod_src, &ko);
		if (!err)
			err = payload_write_initramfs(s->initrds[i], init, s->selftests, ko);
		free(ko);
		if (err)
			goto out;
	}
out:
	free(init);
	free(kmod_src);
	return err;
}

static int connect_libvirt(struct session *s)
{
	int err;

	if (s->o.uri) {
		s->uri = xstrdup(s->o.uri);
	} else {
		char *root = xasprintf("%s/libvirt", s->tree->cache);
		s->uri = guest_embed_uri(root);
		free(root);
	}
	if ((err = guest_conn_open(&s->conn, s->uri)) < 0)
		return err;
	/* Only an embedded root is ours alone; a daemon's domains may be another bench's. */
	if (!s->o.uri && (err = guest_destroy_stale(s->conn)) < 0)
		return err;
	for (size_t i = 0; i < s->nsetups; i++)
		if ((err = guest_check_cpu(s->conn, &s->setups[i])) < 0)
			return err;
	return 0;
}

static int exit_status_for(const struct session *s)
{
	bool is_test = strcmp(s->o.command, "test") == 0;
	bool all_ok = true, error_cell = false;

	for (size_t i = 0; i < s->matrix->ncells; i++) {
		const struct matrix_cell *c = &s->matrix->cells[i];

		error_cell |= c->status == VERDICT_ERROR;
		all_ok &= is_test ? verdict_meets(c->status, VERDICT_PASS) : c->met;
	}
	if (is_test && error_cell)
		return EXIT_LIBVIRT;	/* the bench, not the kernel, failed: abort a bisect */
	return all_ok ? EXIT_OK : EXIT_FAILED;
}

static int run_matrix(struct session *s)
{
	char started[32], finished[32];
	int err;

	iso_time(started, sizeof(started), time(NULL));
	s->cache = s->o.cache ? xstrdup(s->o.cache) : default_cache();
	/* The run directory comes last: a run that cannot boot leaves none. */
	if ((err = parse_setups(s)) < 0 || (err = build_kernels(s)) < 0 ||
	    (err = connect_libvirt(s)) < 0 || (err = prepare_run_dir(s)) < 0)
		return err;

	struct matrix_options mo = {
		.conn = s->conn,
		.run_id = s->run_id,
		.run_dir = s->run_dir,
		.boot_timeout_s = s->o.timeout_s,
		.jobs = s->o.jobs,
		.check_expectations = strcmp(s->o.command, "run") == 0,
	};
	if ((err = matrix_run(&mo, s->kernels, s->nkernels, s->setups, s->nsetups, &s->matrix)) < 0)
		return err;

	iso_time(finished, sizeof(finished), time(NULL));
	struct results_run run = {
		.id = s->run_id, .command = s->o.command, .started = started,
		.finished = finished, .uri = s->uri,
	};
	if ((err = results_write(s->run_dir, &run, s->matrix)) < 0)
		return err;
	results_print_matrix(stdout, s->matrix);
	if (s->matrix->interrupted)
		return ERR_INTERRUPTED;

	char *latest = xasprintf("%s/latest", s->o.results);
	err = file_symlink_atomic(s->run_id, latest);
	free(latest);
	if (err < 0)
		return err;
	printf("results: %s\n", s->run_dir);
	return exit_status_for(s);
}

int main(int argc, char **argv)
{
	struct session s = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int status;

	if (argc < 2 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "test") != 0)) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		fprintf(stderr, "fpubench: %s\n%s", argc < 2 ? "no command" : "unknown command",
			usage_text);
		return EXIT_USAGE;
	}
	s.o = (struct options){
		.command = argv[1],
		.patches = FPUBENCH_SRCDIR "/patches",
		.results = "results",
		.tarball = getenv("FPUBENCH_TARBALL") ? getenv("FPUBENCH_TARBALL") : DEFAULT_TARBALL,
		.jobs = cores > 0 ? (int)cores : 1,
		.timeout_s = DEFAULT_BOOT_TIMEOUT_S,
	};
	status = parse_options(&s.o, argc - 1, argv + 1);
	if (status == 0) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		git_libgit2_init();
		status = run_matrix(&s);
	}
	if (status < 0) {
		if (stop_signal)
			status = 128 + stop_signal;
		else {
			fprintf(stderr, "fpubench: %s\n", error_last());
			status = error_exit_status(status);
		}
	}
	session_release(&s);
	git_libgit2_shutdown();
	return status;
}
