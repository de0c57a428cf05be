#include "applied_note.h"

#include "tree.h"

#include "lib/error.h"
#include "lib/gitutil.h"
#include "lib/strbuf.h"

#include <string.h>

struct json_object *applied_note_read(git_repository *repo, const git_oid *commit)
{
	git_note *note = NULL;
	struct json_object *o = NULL;

	if (git_note_read(&note, repo, APPLIED_NOTES_REF, commit) < 0) {
		error_clear();
		return NULL;
	}
	o = json_tokener_parse(git_note_message(note));
	git_note_free(note);
	return o;
}

int applied_note_write(git_repository *repo, const git_oid *commit, struct json_object *note)
{
	git_signature *sig = NULL;
	git_oid id;
	int err = 0;

	const char *text = json_object_to_json_string_ext(note, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE);

	if (git_signature_new(&sig, TREE_COMMITTER_NAME, TREE_COMMITTER_EMAIL, 0, 0) < 0 ||
	    git_note_create(&id, repo, APPLIED_NOTES_REF, sig, sig, commit, text, 1) < 0)
		err = error_set(ERR_GENERIC, "cannot write the note of %s: %s",
				git_oid_tostr_s(commit), gitutil_error());
	git_signature_free(sig);
	return err;
}

void applied_note_text(struct strbuf *sb, struct json_object *note)
{
	struct json_object *hunks = NULL;
	size_t n, shown = 0;

	json_object_object_get_ex(note, "hunks", &hunks);
	n = hunks ? json_object_array_length(hunks) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *h = json_object_array_get_idx(hunks, i), *v;
		const char *placed = "", *file = "";
		int hunk = 0, off = 0;

		if (json_object_object_get_ex(h, "placed", &v))
			placed = json_object_get_string(v);
		if (strcmp(placed, "exact") == 0)
			continue;
		if (json_object_object_get_ex(h, "file", &v))
			file = json_object_get_string(v);
		if (json_object_object_get_ex(h, "hunk", &v))
			hunk = json_object_get_int(v);
		if (json_object_object_get_ex(h, "offset", &v))
			off = json_object_get_int(v);
		strbuf_addf(sb, "%s%s hunk %d ", shown++ ? ", " : "", file, hunk);
		if (strcmp(placed, "offset") == 0)
			strbuf_addf(sb, "at offset %+d", off);
		else
			strbuf_addf(sb, "by %s merge", placed);
	}
	if (!shown)
		strbuf_addf(sb, n == 1 ? "its hunk exact" : "all %zu hunks exact", n);
}
