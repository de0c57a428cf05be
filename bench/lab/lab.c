#include "lab.h"

#include "lab_rest.h"
#include "lava_job.h"
#include "lava_log.h"

#include "boot/guest.h"
#include "judge/console.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAVA_RUN "lava-run"
/* lava-run needs one where the host has no default route, and any address does. */
#define DISPATCHER_IP "127.0.0.1"

static volatile int lab_stop;

struct lab {
	struct matrix_lab ops;
	char *name;
	enum lab_engine engine;
	struct lab_rest *rest;
	char *artefacts;
	char *artefacts_url;
	char *device_type;
	char **tags;
	size_t ntags;
	struct lava_board *boards;	/* their strings owned, each in one strv below */
	char ***board_strs;
	size_t nboards;
	char *dir;		/* RUN/lab */
};

/* One boot's paths and what came back. */
struct boot {
	struct lab *lab;
	const struct guest_spec *spec;
	char *dir;		/* RUN/lab/NAME */
	struct strbuf job;	/* the job's YAML */
	struct strbuf log;	/* LAVA's log */
};

void lab_interrupt(void)
{
	lab_stop = 1;
}

/* The URL the lab fetches `path` from, copying it into the artefacts directory first. */
static int artefact_url(struct lab *l, const char *path, const char *sha256, char **url)
{
	if (!l->artefacts) {
		*url = xasprintf("file://%s", path);
		return 0;
	}
	/* Named by content: each kernel is copied once, whichever boot needs it first. */
	char *name = xasprintf("%.16s-%s", sha256, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	char *to = xasprintf("%s/%s", l->artefacts, name);
	struct stat st;
	int err = 0;

	if (!file_exists(to)) {
		struct file_atomic f;

		if (stat(path, &st) < 0) {
			err = error_set_errno(ERR_NOTFOUND, "cannot read '%s'", path);
		} else {
			file_atomic_begin(&f, to, 0644);
			file_atomic_add_file(&f, path, (size_t)st.st_size);
			err = file_atomic_commit(&f);
		}
	}
	*url = l->artefacts_url ? xasprintf("%s/%s", l->artefacts_url, name)
				: xasprintf("file://%s", to);
	free(name);
	free(to);
	return err;
}

static int write_job(struct boot *b, double timeout_s)
{
	struct lab *l = b->lab;
	const struct guest_spec *spec = b->spec;
	char kernel_sum[65], initrd_sum[65], *kernel_url = NULL, *initrd_url = NULL;
	int err;

	if ((err = file_sha256(spec->kernel, kernel_sum)) < 0 ||
	    (err = file_sha256(spec->initrd, initrd_sum)) < 0 ||
	    (err = artefact_url(l, spec->kernel, kernel_sum, &kernel_url)) < 0 ||
	    (err = artefact_url(l, spec->initrd, initrd_sum, &initrd_url)) < 0)
		goto out;
	/* The guest's name tells apart the boots of a run; the rest says what it boots. */
	char *name = xasprintf("%s %s %s", spec->name, spec->variant, spec->cpu->spec);
	struct lava_job job = {
		.name = name, .device_type = l->device_type ? l->device_type : "qemu",
		.tags = (const char *const *)l->tags, .ntags = l->ntags, .cpu = spec->cpu,
		.memory_mib = spec->memory_mib, .cmdline = spec->cmdline,
		.kernel_url = kernel_url, .kernel_sha256 = kernel_sum,
		.initrd_url = initrd_url, .initrd_sha256 = initrd_sum, .timeout_s = timeout_s,
		.run_id = spec->run_id, .variant = spec->variant, .setup = spec->cpu->spec,
		.version = spec->version, .commit = spec->commit,
	};
	const struct lava_board *board =
		spec->cpu->board ? lava_board_find(l->boards, l->nboards, spec->cpu->board) : NULL;

	if (board)
		lava_job_use_board(&job, board);
	err = spec->cpu->board && !board
		? error_set(ERR_LAB_JOB, "lab '%s' holds no board '%s'", l->name, spec->cpu->board)
		: lava_job_write(&job, &b->job);
	free(name);
	if (err < 0)
		err = error_set(ERR_LAB_JOB, "%s", error_last());
out:
	free(kernel_url);
	free(initrd_url);
	return err;
}

/* The device lava-run boots: what LAVA's qemu.jinja2 renders for i386, the setup's CPU, no KVM. */
static void device_file(struct strbuf *sb, const struct guest_spec *spec)
{
	char *cpu = lava_job_qemu_cpu(spec->cpu);

	strbuf_addf(sb, "constants:\n  failure_retry: 1\n  boot_retry: 1\n"
		    "parameters: {}\navailable_architectures: [i386]\n"
		    "actions:\n  deploy:\n    connections: {serial: }\n    methods: {image: {parameters: {}}}\n"
		    "  boot:\n    connections: {serial: }\n    methods:\n      qemu:\n        parameters:\n"
		    "          command: qemu-system-i386\n          boot_options: {}\n"
		    "          options:\n          - '-cpu %s'\n          - -nographic\n"
		    "          - -m %u\n          - -monitor none\n          - -net none\n"
		    "          - -no-reboot\n"
		    "timeouts: {actions: {}, connections: {}}\n", cpu, spec->memory_mib);
	free(cpu);
}

static int run_lava_run(struct boot *b)
{
	char *job = xasprintf("%s/job.yaml", b->dir), *device = xasprintf("%s/device.yaml", b->dir);
	char *disp = xasprintf("%s/dispatcher.yaml", b->dir), *out = xasprintf("%s/output", b->dir);
	char *log = xasprintf("%s/lava.log", b->dir);
	struct strbuf dev = STRBUF_INIT;
	const char *argv[] = { LAVA_RUN, "--job-id", b->spec->name, "--output-dir", out, "--device",
			       device, "--dispatcher", disp, job, NULL };
	struct spawn_watch watch = { .stdin_fd = -1, .stop = &lab_stop };
	int err;

	device_file(&dev, b->spec);
	unlink(log);
	if ((err = file_write_atomic(job, b->job.buf, b->job.len)) == 0 &&
	    (err = file_write_atomic(device, dev.buf, dev.len)) == 0 &&
	    (err = file_write_atomic(disp, "dispatcher_ip: " DISPATCHER_IP "\n",
				     strlen("dispatcher_ip: " DISPATCHER_IP "\n"))) == 0) {
		/* Its exit status says only whether the job was complete: the log says the rest. */
		err = spawn_run_watched(argv, b->dir, log, NULL, &watch);
		err = err < 0 ? error_set(ERR_LAB, "lab: cannot run lava-run: %s", error_last())
			      : file_read_capped(log, CONSOLE_MAX * 4, &b->log, NULL);
	}
	strbuf_release(&dev);
	free(job);
	free(device);
	free(disp);
	free(out);
	free(log);
	return err;
}

/* For the lab's sake: LAVA blames the infrastructure and the kernel said nothing. */
static bool lab_failure(const struct lava_log *l)
{
	return l->error_type && !l->console_lines &&
	       (strcmp(l->error_type, "Infrastructure") == 0 || strcmp(l->error_type, "Canceled") == 0);
}

/* The log -> the console file and the outcome; a lab's failure or a bad log is an error. */
static int judge_log(struct boot *b, struct guest_outcome *out, const char *job_id)
{
	struct lava_log l = LAVA_LOG_INIT;
	int err = lava_log_parse(&l, job_id, b->log.buf, b->log.len);

	if (err < 0 && lab_failure(&l))
		err = error_set(ERR_LAB, "LAVA job '%s' failed for the lab's sake: %s", job_id,
				l.error_msg ? l.error_msg : l.error_type);
	else if (err < 0 && l.error_msg)
		err = error_set(ERR_LAB_JOB, "LAVA job '%s': %s (%s)", job_id, l.error_msg,
				l.error_type ? l.error_type : "no error type");
	else if (err < 0)
		err = error_set(ERR_LAB_JOB, "%s", error_last());
	if (!err)
		err = file_write_atomic(b->spec->console, l.console.buf, l.console.len);
	out->timed_out = l.error_type && strcmp(l.error_type, "LAVATimeout") == 0;
	out->flooded = l.console.len >= CONSOLE_MAX;
	lava_log_release(&l);
	return err;
}

static int lab_boot(void *arg, const struct guest_spec *spec, double timeout_s,
		    struct guest_outcome *out, struct matrix_job *job)
{
	struct boot b = { .lab = arg, .spec = spec, .job = STRBUF_INIT, .log = STRBUF_INIT };
	double start = clock_seconds();
	int err;

	*out = (struct guest_outcome){ 0 };
	b.dir = xasprintf("%s/%s", b.lab->dir, spec->name);
	if ((err = dir_create(b.dir, ERR_GENERIC)) < 0 || (err = write_job(&b, timeout_s)) < 0)
		goto done;
	if (b.lab->engine == LAB_LAVA_RUN) {
		char *log = xasprintf("%s/lava.log", b.dir);

		job->id = xstrdup(spec->name);
		err = run_lava_run(&b);
		/* No server: the job's page is its log, linked relative to the run directory. */
		if (file_exists(log))
			job->url = xasprintf(LAB_DIR "/%s/lava.log", spec->name);
		free(log);
	} else {
		err = lab_rest_run(b.lab->rest, b.job.buf, LAVA_JOB_DEPLOY_S + 2 * timeout_s, &lab_stop,
				   &b.log, &job->id, &job->url);
	}
	out->interrupted = lab_stop != 0;
	if (!err && !out->interrupted)
		err = judge_log(&b, out, job->id);
done:
	out->seconds = clock_seconds() - start;
	strbuf_release(&b.job);
	strbuf_release(&b.log);
	free(b.dir);
	return err;
}

static int check_lava_run(void)
{
	const char *argv[] = { LAVA_RUN, "--help", NULL };

	if (geteuid() != 0)
		return error_set(ERR_LAB, "engine = lava-run runs jobs as root only, and we are not");
	if (spawn_run(argv, NULL, "/dev/null", NULL) != 0)
		return error_set(ERR_LAB, "cannot run '" LAVA_RUN "' (install lava-dispatcher: "
					  "FPUBENCH_DEPS_LAVA=1 scripts/install-deps.sh)");
	return 0;
}

/* Each board's strings in one NULL-ended vector: name, device type, boot method, tags. */
static void lab_copy_boards(struct lab *l, const struct lab_spec *spec)
{
	l->boards = xcalloc(spec->nboards + 1, sizeof(*l->boards));
	l->board_strs = xcalloc(spec->nboards + 1, sizeof(*l->board_strs));
	for (size_t i = 0; i < spec->nboards; i++) {
		const struct lava_board *b = &spec->boards[i];
		char **own = xcalloc(4 + b->ntags, sizeof(*own));

		own[0] = xstrdup(b->name);
		own[1] = xstrdup(b->device_type);
		own[2] = xstrdup(b->boot_method);
		for (size_t t = 0; t < b->ntags; t++)
			own[3 + t] = xstrdup(b->tags[t]);
		l->board_strs[i] = own;
		l->boards[i] = (struct lava_board){ .name = own[0], .device_type = own[1],
						    .boot_method = own[2],
						    .tags = (const char *const *)own + 3,
						    .ntags = b->ntags };
	}
	l->nboards = spec->nboards;
}

int lab_open(struct lab **out, const struct lab_spec *spec)
{
	struct lab *l = xcalloc(1, sizeof(*l));
	int err;

	l->ops = (struct matrix_lab){ .arg = l, .boot = lab_boot };
	l->name = xstrdup(spec->name);
	l->engine = spec->engine;
	l->artefacts = spec->artefacts ? xstrdup(spec->artefacts) : NULL;
	l->artefacts_url = spec->artefacts_url ? xstrdup(spec->artefacts_url) : NULL;
	l->device_type = spec->device_type ? xstrdup(spec->device_type) : NULL;
	l->tags = xcalloc(spec->ntags + 1, sizeof(*l->tags));
	for (size_t i = 0; i < spec->ntags; i++)
		l->tags[l->ntags++] = xstrdup(spec->tags[i]);
	lab_copy_boards(l, spec);
	err = spec->engine == LAB_LAVA_RUN ? check_lava_run()
					   : lab_rest_open(&l->rest, spec->name, spec->url, spec->token,
								 spec->queue_s);
	if (!err && l->artefacts)
		err = dir_create(l->artefacts, ERR_GENERIC);
	if (err) {
		lab_free(l);
		return err;
	}
	*out = l;
	return 0;
}

void lab_use_dir(struct lab *l, const char *run_dir)
{
	free(l->dir);
	l->dir = xasprintf("%s/" LAB_DIR, run_dir);
}

const struct matrix_lab *lab_matrix(struct lab *l)
{
	return &l->ops;
}

void lab_free(struct lab *l)
{
	if (!l)
		return;
	lab_rest_free(l->rest);
	for (size_t i = 0; i < l->ntags; i++)
		free(l->tags[i]);
	free(l->tags);
	for (size_t i = 0; i < l->nboards; i++) {
		for (char **p = l->board_strs[i]; *p; p++)
			free(*p);
		free(l->board_strs[i]);
	}
	free(l->board_strs);
	free(l->boards);
	free(l->name);
	free(l->artefacts);
	free(l->artefacts_url);
	free(l->device_type);
	free(l->dir);
	free(l);
}
