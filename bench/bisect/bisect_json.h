/*
 * bisect_json: bisect.json, what `fpubench bisect` found, for programs.
 *
 *   good, bad           the ends, as steps
 *   steps               every step in the order it ran
 *   step_count          how many
 *   search              "regression", or "fix" (`bisect --fixed`)
 *   culprit             the first bad commit, or null (always in a fix search)
 *   fix                 the first fixed commit of a fix search, or null
 *   culprit_provenance  its provenance (provenance.h), or null
 *   range               when skips left several candidates: them, newest first
 *   verification        reverts_cleanly (null without a culprit), and
 *                       parent_passes, culprit_fails, revert_passes (a fix
 *                       search: parent_fails, fix_passes, revert_fails):
 *                       each null when not run, else {"ok", "step"}
 *
 * A step is {commit, subject, verdict ("good", "bad", "skip"), runs,
 * failed_runs, mixed, build_s, test_s, note (or null)}, and a good one has
 * a confidence (bisect_confidence() at the bug's failure rate; 0 in a
 * verification).  A nightly run reads the culprit and the good end's
 * confidence back with bisect_json_read().
 */
#ifndef FPUBENCH_BISECT_JSON_H
#define FPUBENCH_BISECT_JSON_H

#include "bisect.h"

/*
 * Writes bisect.json to path, atomically.  culprit_provenance is
 * provenance_commit_json()'s text, or NULL.  0 or the error of writing.
 */
int bisect_json_write(const char *path, const struct bisect *b, const struct bisect_step *good_end,
		      const struct bisect_step *bad_end, const struct bisect_verification *v,
		      const char *culprit_provenance);

/* What a nightly run keeps of a bisect.json. */
struct bisect_json_summary {
	char culprit[GIT_OID_HEXSZ + 1];	/* "" when none was found */
	double confidence;			/* the good end's; 0 when it has none */
};

/*
 * Reads the bisect.json at path.  0, ERR_NOTFOUND when there is none, or
 * ERR_INPUT when it is malformed; *out is all zero unless it returns 0.
 */
int bisect_json_read(struct bisect_json_summary *out, const char *path);

#endif
