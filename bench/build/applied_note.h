/*
 * applied_note: how git placed the hunks of a patch the bench applied, kept
 * as a JSON git note on the patch's commit (APPLIED_NOTES_REF), so that it
 * is known again when the commit comes from the cache:
 * {"subject", "message", "of", "hunks": [{"file", "hunk", "placed", "offset"}]}.
 */
#ifndef FPUBENCH_APPLIED_NOTE_H
#define FPUBENCH_APPLIED_NOTE_H

#include <git2.h>
#include <json-c/json.h>

struct strbuf;

#define APPLIED_NOTES_REF "refs/notes/fpubench/applied"

/* The note of an applied commit, or NULL. */
struct json_object *applied_note_read(git_repository *repo, const git_oid *commit);

/* Writes (or replaces) the commit's note; ERR_GENERIC when git cannot. */
int applied_note_write(git_repository *repo, const git_oid *commit, struct json_object *note);

/* "exact", or each moved or merged hunk: "core.c hunk 1 at offset -2, …". */
void applied_note_text(struct strbuf *sb, struct json_object *note);

#endif
