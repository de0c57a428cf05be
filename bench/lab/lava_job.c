#include "lava_job.h"

#include "lib/error.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* The emitter and whether an event failed (only memory can make it fail). */
struct out {
	yaml_emitter_t e;
	bool failed;
};

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	strbuf_add(data, buffer, size);
	return 1;
}

static void emit(struct out *o, yaml_event_t *ev, int made)
{
	if (!made || !yaml_emitter_emit(&o->e, ev))
		o->failed = true;
}

static void scalar(struct out *o, const char *s)
{
	yaml_event_t ev;

	emit(o, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, -1, 1, 1,
						   YAML_ANY_SCALAR_STYLE));
}

/* A string that must stay a string ("6.1" or "true" would not), and a plain word. */
static void quoted(struct out *o, const char *s)
{
	yaml_event_t ev;

	emit(o, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, -1, 0, 1,
						   YAML_SINGLE_QUOTED_SCALAR_STYLE));
}

static void map_begin(struct out *o)
{
	yaml_event_t ev;

	emit(o, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
}

static void map_end(struct out *o)
{
	yaml_event_t ev;

	emit(o, &ev, yaml_mapping_end_event_initialize(&ev));
}

static void seq_begin(struct out *o)
{
	yaml_event_t ev;

	emit(o, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							   YAML_BLOCK_SEQUENCE_STYLE));
}

static void seq_end(struct out *o)
{
	yaml_event_t ev;

	emit(o, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void pair(struct out *o, const char *key, const char *value)
{
	scalar(o, key);
	quoted(o, value);
}

/* key: {seconds: N}, N whole and at least 1 (LAVA's schema) */
static void timeout(struct out *o, const char *key, double seconds)
{
	char n[32];

	snprintf(n, sizeof(n), "%.0f", seconds < 1 ? 1 : ceil(seconds));
	scalar(o, key);
	map_begin(o);
	scalar(o, "seconds");
	scalar(o, n);
	map_end(o);
}

char *lava_job_qemu_cpu(const struct cpu_setup *cpu)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, cpu->model);
	for (size_t i = 0; i < cpu->nfeatures; i++)
		strbuf_addf(&sb, ",%s=%s", cpu->features[i].name, cpu->features[i].enable ? "on" : "off");
	return strbuf_detach(&sb);
}

bool lava_board_boot_known(const char *method)
{
	static const char *const boots[] = { "ipxe", "grub", "grub-efi" };

	for (size_t i = 0; i < sizeof(boots) / sizeof(*boots); i++)
		if (strcmp(method, boots[i]) == 0)
			return true;
	return false;
}

const struct lava_board *lava_board_find(const struct lava_board *boards, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(boards[i].name, name) == 0)
			return &boards[i];
	return NULL;
}

void lava_job_use_board(struct lava_job *j, const struct lava_board *b)
{
	j->device_type = b->device_type;
	j->boot_method = b->boot_method;
	j->tags = b->tags;
	j->ntags = b->ntags;
}

static void header(struct out *o, const struct lava_job *j)
{
	/* Each action gets whole seconds, rounded up (timeout()): the job holds them all. */
	double total = LAVA_JOB_DEPLOY_S + 2 * ceil(j->timeout_s);

	pair(o, "job_name", j->name);
	pair(o, "device_type", j->device_type);
	scalar(o, "timeouts");
	map_begin(o);
	timeout(o, "job", total);
	timeout(o, "action", j->timeout_s > LAVA_JOB_DEPLOY_S ? j->timeout_s : LAVA_JOB_DEPLOY_S);
	timeout(o, "connection", j->timeout_s);
	map_end(o);
	scalar(o, "priority");
	scalar(o, "medium");
	scalar(o, "visibility");
	scalar(o, "public");
	if (j->ntags) {
		scalar(o, "tags");
		seq_begin(o);
		for (size_t i = 0; i < j->ntags; i++)
			quoted(o, j->tags[i]);
		seq_end(o);
	}
	scalar(o, "metadata");
	map_begin(o);
	pair(o, "fpubench.run", j->run_id);
	pair(o, "fpubench.variant", j->variant);
	pair(o, "fpubench.setup", j->setup);
	pair(o, "fpubench.version", j->version ? j->version : "");
	pair(o, "fpubench.commit", j->commit ? j->commit : "");
	map_end(o);
}

/* arch i386 without KVM: the setup's CPU model is the point, and the host's would replace it. */
static void qemu_context(struct out *o, const struct lava_job *j)
{
	char mem[16], *cpu = lava_job_qemu_cpu(j->cpu), *opt = xasprintf("-cpu %s", cpu);

	snprintf(mem, sizeof(mem), "%u", j->memory_mib);
	scalar(o, "context");
	map_begin(o);
	scalar(o, "arch");
	scalar(o, "i386");
	scalar(o, "no_kvm");
	scalar(o, "true");
	scalar(o, "memory");
	scalar(o, mem);
	/* A panic's reboot would boot the kernel again until the time limit: stop instead. */
	scalar(o, "extra_options");
	seq_begin(o);
	quoted(o, opt);
	quoted(o, "-no-reboot");
	seq_end(o);
	map_end(o);
	free(cpu);
	free(opt);
}

/* An image; `as_is`: a board's ramdisk, which is the bench's /init and gets no LAVA overlay. */
static void image(struct out *o, const char *key, const char *arg, const char *url,
		  const char *sha256, bool as_is)
{
	scalar(o, key);
	map_begin(o);
	if (arg)
		pair(o, "image_arg", arg);
	pair(o, "url", url);
	pair(o, "sha256sum", sha256);
	if (as_is) {
		scalar(o, "install_overlay");
		scalar(o, "false");
		scalar(o, "install_modules");
		scalar(o, "false");
	}
	map_end(o);
}

static void deploy(struct out *o, const struct lava_job *j)
{
	bool qemu = !j->boot_method;
	char *kernel_arg = qemu ? xasprintf("-kernel {kernel} -append \"%s\"", j->cmdline) : NULL;

	map_begin(o);
	scalar(o, "deploy");
	map_begin(o);
	scalar(o, "to");
	scalar(o, qemu ? "tmpfs" : "tftp");
	timeout(o, "timeout", LAVA_JOB_DEPLOY_S);
	if (!qemu) {
		/* A bzImage has no kernel type of its own in LAVA's TFTP schema: none is given. */
		image(o, "kernel", NULL, j->kernel_url, j->kernel_sha256, false);
		image(o, "ramdisk", NULL, j->initrd_url, j->initrd_sha256, true);
	} else {
		scalar(o, "images");
		map_begin(o);
		image(o, "kernel", kernel_arg, j->kernel_url, j->kernel_sha256, false);
		image(o, "ramdisk", "-initrd {ramdisk}", j->initrd_url, j->initrd_sha256, false);
		map_end(o);
	}
	map_end(o);
	map_end(o);
	free(kernel_arg);
}

static void boot(struct out *o, const struct lava_job *j)
{
	map_begin(o);
	scalar(o, "boot");
	map_begin(o);
	scalar(o, "method");
	scalar(o, j->boot_method ? j->boot_method : "qemu");
	if (j->boot_method) {
		scalar(o, "commands");
		scalar(o, "ramdisk");
	} else {
		scalar(o, "media");
		scalar(o, "tmpfs");
	}
	timeout(o, "timeout", j->timeout_s);
	map_end(o);
	map_end(o);
}

/* init's top-level KTAP (guest-tests/PROTOCOL.md): from its header to "# fpubench: done". */
static void test(struct out *o, const struct lava_job *j)
{
	map_begin(o);
	scalar(o, "test");
	map_begin(o);
	timeout(o, "timeout", j->timeout_s);
	scalar(o, "monitors");
	seq_begin(o);
	map_begin(o);
	pair(o, "name", "fpubench");
	pair(o, "start", "KTAP version 1");
	pair(o, "end", "# fpubench: done");
	pair(o, "pattern", "(?P<result>ok|not ok) \\d+ (?P<test_case_id>[A-Za-z0-9_]+)");
	scalar(o, "fixupdict");
	map_begin(o);
	pair(o, "ok", "pass");
	pair(o, "not ok", "fail");
	map_end(o);
	map_end(o);
	seq_end(o);
	map_end(o);
	map_end(o);
}

static int check_cmdline(const struct lava_job *j)
{
	if (!j->boot_method && strpbrk(j->cmdline, "\"{}"))
		return error_set(ERR_INPUT,
				 "kernel command line '%s' holds '\"', '{' or '}', which a LAVA "
				 "QEMU job cannot pass", j->cmdline);
	return 0;
}

int lava_job_write(const struct lava_job *j, struct strbuf *out)
{
	struct out o = { .failed = false };
	yaml_event_t ev;
	int err;

	if ((err = check_cmdline(j)) < 0)
		return err;
	if (!yaml_emitter_initialize(&o.e))
		return error_set(ERR_GENERIC, "cannot start the YAML emitter");
	yaml_emitter_set_output(&o.e, write_handler, out);
	yaml_emitter_set_unicode(&o.e, 1);
	yaml_emitter_set_width(&o.e, -1);
	emit(&o, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(&o, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	map_begin(&o);
	header(&o, j);
	if (!j->boot_method)
		qemu_context(&o, j);
	else {
		scalar(&o, "context");
		map_begin(&o);
		pair(&o, "extra_kernel_args", j->cmdline);
		map_end(&o);
	}
	scalar(&o, "actions");
	seq_begin(&o);
	deploy(&o, j);
	boot(&o, j);
	test(&o, j);
	seq_end(&o);
	map_end(&o);
	emit(&o, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(&o, &ev, yaml_stream_end_event_initialize(&ev));
	if (o.failed)
		err = error_set(ERR_GENERIC, "cannot write LAVA job '%s': %s", j->name,
				o.e.problem ? o.e.problem : "out of memory");
	yaml_emitter_delete(&o.e);
	return err;
}
