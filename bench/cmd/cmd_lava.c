#include "cmd.h"

#include "lab/lava_emit.h"
#include "lib/error.h"
#include "run/conf.h"
#include "run/conf_lab.h"

#include <stdio.h>
#include <stdlib.h>

/*
 * The config's boards are setups too ("@NAME") unless --cpu chose, each
 * held by the config's labs: a job per (kernel, board) beside QEMU's.
 */
static void use_config_boards(struct options *o, const struct conf *c, bool chose_cpus,
			      struct session *s, const struct conf_lab **labs, struct lava_board *boards)
{
	for (size_t i = 0; i < c->nlabs; i++)
		labs[i] = &c->labs[i];
	for (size_t i = 0; i < c->nboards; i++) {
		boards[i] = conf_board_lava(&c->boards[i]);
		if (!chose_cpus)
			cmd_add_board_setup(o, c->boards[i].name);
	}
	s->cfg.labs = labs;
	s->cfg.nlabs = c->nlabs;
	s->cfg.boards = c->boards;
	s->cfg.nboards = c->nboards;
}

static int emit(struct options *o, const struct conf *c)
{
	const struct conf_lab **labs = xcalloc(c->nlabs + 1, sizeof(*labs));
	struct lava_board *boards = xcalloc(c->nboards + 1, sizeof(*boards));
	struct session s = { 0 };
	bool chose_cpus = o->cpus.n > 0;
	size_t njobs = 0;
	int err;

	/* The config names the boards, not the build: no lab is opened, no token read. */
	if ((err = cmd_prepare(o, NULL)) < 0)
		goto out;
	s.cfg = cmd_session_config(o, NULL);
	use_config_boards(o, c, chose_cpus, &s, labs, boards);
	if ((err = cmd_build(&s, o, NULL)) == 0 && (err = session_use_dir(&s, o->emit)) == 0 &&
	    (err = session_build_payloads(&s)) == 0) {
		struct lava_emit e = {
			.dir = s.run_dir, .url = o->url, .run_id = s.run_id,
			.timeout_s = s.cfg.timeout_s, .tests = s.cfg.tests, .ntests = s.cfg.ntests,
			.kernels = s.kernels, .nkernels = s.nkernels,
			.setups = s.setups, .nsetups = s.nsetups,
			.boards = boards, .nboards = c->nboards,
		};
		if ((err = lava_emit_write(&e, &njobs)) == 0)
			printf("%zu LAVA job%s in %s/jobs, artefacts and SHA256SUMS in %s\n", njobs,
			       njobs == 1 ? "" : "s", s.run_dir, s.run_dir);
	}
out:
	session_release(&s);
	free(labs);
	free(boards);
	return err;
}

int cmd_lava(struct options *o)
{
	struct conf *c = NULL;
	int err;

	if (!o->emit)
		return error_set(ERR_USAGE, "'lava' needs --emit DIR");
	if ((err = cmd_data_default(o, &o->conf_path, RUNTIME_CONF)) == 0 &&
	    (err = conf_load(&c, o->conf_path)) == 0)
		err = emit(o, c);
	conf_free(c);
	return err;
}

static const struct opt lava_options[] = {
	{ "emit", 0, "DIR", OPT_STRING, OPT_FIELD(emit), 0, 0,
	  "write the jobs, the kernels, the initramfs files and SHA256SUMS to DIR" },
	{ "url", 0, "PREFIX", OPT_STRING, OPT_FIELD(url), 0, 0,
	  "the URL the lab fetches DIR's files from, as PREFIX/NAME (default: file://DIR)" },
	{ "config", 0, "FILE", OPT_STRING, OPT_FIELD(conf_path), 0, 0,
	  "the config whose [board]s get jobs too (default: the fpubench.conf that comes with fpubench)" },
	OPT_ROW_CPU,
	OPT_ROW_APPEND,
	{ "variant", 0, "NAME", OPT_LIST, OPT_FIELD(variants), 0, 0,
	  "build only this variant of patches/variants; repeatable" },
	OPT_ROW_TEST,
	OPT_ROW_CACHE, OPT_ROW_PATCHES, OPT_ROW_TARBALL, OPT_ROW_GUEST_DIR, OPT_ROW_JOBS,
	OPT_ROW_TIMEOUT,
	OPT_END,
};

const struct command_def cmd_lava_def = {
	CMD_LAVA, "lava", "fpubench lava --emit DIR [OPTION]...",
	"write the matrix as LAVA job definitions, with what they boot",
	"Builds the variants as run does and writes, for every (kernel, CPU setup) boot\n"
	"of the matrix, a LAVA job that boots the same kernel and initramfs with the same\n"
	"command line on a qemu device (the setup's CPU, no KVM), with a monitors test\n"
	"for the lab's UI, and for every [board] of the config a job for its device\n"
	"type and boot method. A lab admin submits them by hand; the bench judges a\n"
	"job's log (its console) as it judges a libvirt boot.",
	lava_options, cmd_lava, false,
};
