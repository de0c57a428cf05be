#include "cmd.h"

#include "lab/lava_emit.h"
#include "lib/error.h"

#include <stdio.h>

int cmd_lava(struct options *o)
{
	struct session s = { 0 };
	size_t njobs = 0;
	int err;

	if (!o->emit)
		return error_set(ERR_USAGE, "'lava' needs --emit DIR");
	if ((err = cmd_prepare(o, NULL)) < 0)
		return err;
	s.cfg = cmd_session_config(o, NULL);
	if ((err = cmd_build(&s, o, NULL)) == 0 && (err = session_use_dir(&s, o->emit)) == 0 &&
	    (err = session_build_payloads(&s)) == 0) {
		struct lava_emit e = {
			.dir = s.run_dir, .url = o->url, .run_id = s.run_id,
			.timeout_s = s.cfg.timeout_s, .tests = s.cfg.tests, .ntests = s.cfg.ntests,
			.kernels = s.kernels, .nkernels = s.nkernels,
			.setups = s.setups, .nsetups = s.nsetups,
		};
		if ((err = lava_emit_write(&e, &njobs)) == 0)
			printf("%zu LAVA job%s in %s/jobs, artefacts and SHA256SUMS in %s\n", njobs,
			       njobs == 1 ? "" : "s", s.run_dir, s.run_dir);
	}
	session_release(&s);
	return err;
}

static const struct opt lava_options[] = {
	{ "emit", 0, "DIR", OPT_STRING, OPT_FIELD(emit), 0, 0,
	  "write the jobs, the kernels, the initramfs files and SHA256SUMS to DIR" },
	{ "url", 0, "PREFIX", OPT_STRING, OPT_FIELD(url), 0, 0,
	  "the URL the lab fetches DIR's files from, as PREFIX/NAME (default: file://DIR)" },
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
	"for the lab's UI. A lab admin submits them by hand; the bench judges a job's\n"
	"log (its console) as it judges a libvirt boot.",
	lava_options, cmd_lava, false,
};
