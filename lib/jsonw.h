/*
 * jsonw: the bench's JSON documents through json-c, so quoting and
 * escaping are json-c's, never ours.
 *
 * json-c passes string bytes through as they are, so jsonw_string() first
 * makes a string valid UTF-8 (each byte of a broken sequence becomes
 * U+FFFD): a document built from console text or file names is always
 * valid JSON.  Objects follow json-c's ownership: adding a value to an
 * object or array hands it over, and json_object_put() on the root frees
 * the whole tree.
 */
#ifndef FPUBENCH_JSONW_H
#define FPUBENCH_JSONW_H

#include <json-c/json.h>

/* A new string value, or NULL (JSON null) for a NULL s. */
struct json_object *jsonw_string(const char *s);

/* A number written as printf's "%.*f" writes it: "1.50", not 1.5. */
struct json_object *jsonw_fixed(double v, int decimals);

/* The document as the bench writes it: two-space indentation, "/" unescaped, a final newline. */
const char *jsonw_text(struct json_object *root);

/*
 * Writes the document to `path` (atomically, or to stdout for "-"),
 * followed by a newline.  0 or the error of writing it.
 */
int jsonw_write(struct json_object *root, const char *path);

#endif
