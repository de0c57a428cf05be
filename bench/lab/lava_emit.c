#include "lava_emit.h"

#include "lava_job.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <sys/stat.h>

/* Copies the kernel to DIR/bzImage-VARIANT; its name relative to DIR in *name. */
static int copy_kernel(const struct lava_emit *e, const struct matrix_kernel *k, char **name)
{
	struct file_atomic f;
	struct stat st;
	char *to;
	int err;

	if (stat(k->bzimage, &st) < 0)
		return error_set_errno(ERR_NOTFOUND, "cannot read kernel '%s'", k->bzimage);
	*name = xasprintf("bzImage-%s", k->variant);
	to = xasprintf("%s/%s", e->dir, *name);
	file_atomic_begin(&f, to, 0644);
	file_atomic_add_file(&f, k->bzimage, (size_t)st.st_size);
	err = file_atomic_commit(&f);
	free(to);
	return err;
}

/* Adds "HASH  NAME" of DIR/name to sums, and the hash to hex. */
static int sum_add(const struct lava_emit *e, const char *name, struct strbuf *sums, char hex[65])
{
	char *path = xasprintf("%s/%s", e->dir, name);
	int err = file_sha256(path, hex);

	if (!err)
		strbuf_addf(sums, "%s  %s\n", hex, name);
	free(path);
	return err;
}

static int write_job(const struct lava_emit *e, const struct matrix_kernel *k,
		     const struct cpu_setup *cpu, const char *kernel, const char *kernel_sum,
		     const char *initrd, const char *initrd_sum, struct strbuf *sums)
{
	struct strbuf cmdline = STRBUF_INIT, yaml = STRBUF_INIT;
	char *slug = matrix_setup_slug(cpu->spec), *url = e->url ? xstrdup(e->url)
								  : xasprintf("file://%s", e->dir);
	char *name = xasprintf("fpubench %s %s %s", e->run_id, k->variant, cpu->spec);
	char *kernel_url = xasprintf("%s/%s", url, kernel), *initrd_url = xasprintf("%s/%s", url, initrd);
	char *rel = xasprintf("jobs/%s-%s.yaml", k->variant, slug), *path = xasprintf("%s/%s", e->dir, rel);
	char hex[65];
	int err;

	matrix_boot_cmdline(&cmdline, cpu, e->tests, e->ntests, 1);
	struct lava_job job = {
		.name = name, .device_type = "qemu", .cpu = cpu, .memory_mib = MATRIX_GUEST_MEMORY_MIB,
		.cmdline = cmdline.buf, .kernel_url = kernel_url, .kernel_sha256 = kernel_sum,
		.initrd_url = initrd_url, .initrd_sha256 = initrd_sum, .timeout_s = e->timeout_s,
		.run_id = e->run_id, .variant = k->variant, .setup = cpu->spec,
		.version = k->version, .commit = k->commit,
	};
	const struct lava_board *board =
		cpu->board ? lava_board_find(e->boards, e->nboards, cpu->board) : NULL;

	if (board)
		lava_job_use_board(&job, board);
	if (cpu->board && !board)
		err = error_set(ERR_USAGE, "cpu setup '%s': no [board %s] in the config", cpu->spec,
				cpu->board);
	else if ((err = lava_job_write(&job, &yaml)) == 0 &&
		 (err = file_write_atomic(path, yaml.buf, yaml.len)) == 0)
		err = sum_add(e, rel, sums, hex);
	strbuf_release(&cmdline);
	strbuf_release(&yaml);
	free(slug);
	free(url);
	free(name);
	free(kernel_url);
	free(initrd_url);
	free(rel);
	free(path);
	return err;
}

/* The kernel's artefacts and its jobs. */
static int emit_kernel(const struct lava_emit *e, const struct matrix_kernel *k,
		       struct strbuf *sums, size_t *njobs)
{
	char kernel_sum[65], initrd_sum[65], *kernel = NULL;
	char *initrd = xasprintf("initramfs-%s.cpio", k->variant);
	int err;

	if ((err = copy_kernel(e, k, &kernel)) < 0 ||
	    (err = sum_add(e, kernel, sums, kernel_sum)) < 0 ||
	    (err = sum_add(e, initrd, sums, initrd_sum)) < 0)
		goto out;
	for (size_t s = 0; s < e->nsetups && !err; s++) {
		/* The matrix does not boot it (a `skip` cell), so no lab should. */
		if (!matrix_pair_boots(k, &e->setups[s]))
			continue;
		err = write_job(e, k, &e->setups[s], kernel, kernel_sum, initrd, initrd_sum, sums);
		*njobs += !err;
	}
out:
	free(kernel);
	free(initrd);
	return err;
}

int lava_emit_write(const struct lava_emit *e, size_t *njobs)
{
	struct strbuf sums = STRBUF_INIT;
	char *jobs = xasprintf("%s/jobs", e->dir), *path = xasprintf("%s/SHA256SUMS", e->dir);
	int err = dir_create(jobs, ERR_GENERIC);

	*njobs = 0;
	for (size_t k = 0; k < e->nkernels && !err; k++)
		err = emit_kernel(e, &e->kernels[k], &sums, njobs);
	if (!err)
		err = file_write_atomic(path, sums.buf, sums.len);
	strbuf_release(&sums);
	free(jobs);
	free(path);
	return err;
}
