#include "bisect_json.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/jsonw.h"
#include "lib/strbuf.h"

#include <string.h>

static struct json_object *oid_json(const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];

	return json_object_new_string(git_oid_tostr(hex, sizeof(hex), id));
}

static struct json_object *step_json(const struct bisect_step *st, double confidence)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "commit", oid_json(&st->commit));
	json_object_object_add(o, "subject", jsonw_string(st->subject ? st->subject : ""));
	json_object_object_add(o, "verdict", json_object_new_string(bisect_verdict_name(st->verdict, false)));
	json_object_object_add(o, "runs", json_object_new_int(st->runs));
	json_object_object_add(o, "failed_runs", json_object_new_int(st->failed_runs));
	json_object_object_add(o, "mixed",
			       json_object_new_boolean(st->failed_runs && st->failed_runs < st->runs));
	json_object_object_add(o, "build_s", jsonw_fixed(st->build_s, 1));
	json_object_object_add(o, "test_s", jsonw_fixed(st->test_s, 1));
	json_object_object_add(o, "note", jsonw_string(st->note));
	if (st->verdict == BISECT_GOOD)
		json_object_object_add(o, "confidence", jsonw_fixed(confidence, 4));
	return o;
}

/* A verification check: null when it did not run, else whether the step gave `want`. */
static struct json_object *check_json(bool ran, const struct bisect_step *st,
				      enum bisect_verdict want)
{
	struct json_object *o;

	if (!ran)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "ok", json_object_new_boolean(st->verdict == want));
	json_object_object_add(o, "step", step_json(st, 0));
	return o;
}

static struct json_object *verification_json(const struct bisect *b,
					     const struct bisect_verification *v)
{
	struct json_object *o = json_object_new_object();

	/* A fix is checked the other way round: its parent fails, it passes, GOOD without it fails. */
	enum bisect_verdict old = b->fixed ? BISECT_BAD : BISECT_GOOD;
	enum bisect_verdict new = b->fixed ? BISECT_GOOD : BISECT_BAD;

	json_object_object_add(o, "reverts_cleanly",
			       b->found ? json_object_new_boolean(v->reverts_cleanly) : NULL);
	json_object_object_add(o, b->fixed ? "parent_fails" : "parent_passes",
			       check_json(v->have_parent, &v->parent, old));
	json_object_object_add(o, b->fixed ? "fix_passes" : "culprit_fails",
			       check_json(b->found, &v->culprit, new));
	json_object_object_add(o, b->fixed ? "revert_fails" : "revert_passes",
			       check_json(v->have_revert, &v->revert, old));
	return o;
}

int bisect_json_write(const char *path, const struct bisect *b, const struct bisect_step *good_end,
		      const struct bisect_step *bad_end, const struct bisect_verification *v,
		      const char *culprit_provenance)
{
	struct json_object *o = json_object_new_object(), *steps = json_object_new_array();
	struct json_object *range = json_object_new_array();
	int failed, total, err;

	bisect_fail_rate(b, bad_end, &failed, &total);
	for (size_t i = 0; i < b->nsteps; i++)
		json_object_array_add(steps, step_json(&b->steps[i],
						       bisect_confidence(b->steps[i].runs, failed, total)));
	for (size_t i = 0; i < b->nrange; i++)
		json_object_array_add(range, oid_json(&b->range[i]));
	json_object_object_add(o, "good", step_json(good_end, bisect_confidence(good_end->runs, failed,
										 total)));
	json_object_object_add(o, "bad", step_json(bad_end, 0));
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "step_count", json_object_new_int64((int64_t)b->nsteps));
	json_object_object_add(o, "search", json_object_new_string(b->fixed ? "fix" : "regression"));
	json_object_object_add(o, "culprit", b->found && !b->fixed ? oid_json(&b->culprit) : NULL);
	json_object_object_add(o, "fix", b->found && b->fixed ? oid_json(&b->culprit) : NULL);
	json_object_object_add(o, "culprit_provenance",
			       culprit_provenance ? json_tokener_parse(culprit_provenance) : NULL);
	json_object_object_add(o, "range", range);
	json_object_object_add(o, "verification", verification_json(b, v));
	err = jsonw_write(o, path);
	json_object_put(o);
	return err;
}

static bool is_commit(struct json_object *o)
{
	const char *s = json_object_get_string(o);

	return json_object_is_type(o, json_type_string) && strlen(s) == GIT_OID_HEXSZ &&
	       strspn(s, "0123456789abcdef") == GIT_OID_HEXSZ;
}

/* Why the document is not a bisect.json, or NULL when it is one. */
static const char *summary_take(struct bisect_json_summary *out, struct json_object *root)
{
	struct json_object *culprit, *good, *confidence;

	if (!json_object_is_type(root, json_type_object))
		return "not a JSON object";
	if (!json_object_object_get_ex(root, "culprit", &culprit))
		return "no culprit";
	if (culprit && !is_commit(culprit))
		return "the culprit is neither a commit nor null";
	if (!json_object_object_get_ex(root, "good", &good) ||
	    !json_object_is_type(good, json_type_object))
		return "no good end";
	/* Only a good verdict has a confidence: the good end may have failed. */
	if (json_object_object_get_ex(good, "confidence", &confidence)) {
		if (!json_object_is_type(confidence, json_type_double) &&
		    !json_object_is_type(confidence, json_type_int))
			return "the good end's confidence is not a number";
		out->confidence = json_object_get_double(confidence);
	}
	if (culprit)
		memcpy(out->culprit, json_object_get_string(culprit), GIT_OID_HEXSZ + 1);
	return NULL;
}

int bisect_json_read(struct bisect_json_summary *out, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct json_object *root = NULL;
	enum json_tokener_error parse_error;
	const char *why;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = file_read(path, &text)) < 0)
		goto out;
	root = json_tokener_parse_verbose(text.buf, &parse_error);
	why = parse_error != json_tokener_success ? json_tokener_error_desc(parse_error)
						  : summary_take(out, root);
	if (why) {
		memset(out, 0, sizeof(*out));
		err = error_set(ERR_INPUT, "malformed bisect result '%s': %s", path, why);
	}
out:
	json_object_put(root);
	strbuf_release(&text);
	return err;
}
