#include "jsonw.h"

#include "fileutil.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct json_object *jsonw_string(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *o;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = strbuf_utf8_length(p, SIZE_MAX);

		if (n) {
			strbuf_add(&sb, p, n);
			p += n;
		} else {
			strbuf_addstr(&sb, "\xef\xbf\xbd");	/* U+FFFD */
			p++;
		}
	}
	o = json_object_new_string_len(sb.buf, (int)sb.len);
	strbuf_release(&sb);
	return o;
}

struct json_object *jsonw_fixed(double v, int decimals)
{
	char text[64];

	snprintf(text, sizeof(text), "%.*f", decimals, v);
	return json_object_new_double_s(v, text);
}

const char *jsonw_text(struct json_object *root)
{
	return json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE);
}

int jsonw_write(struct json_object *root, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int err;

	strbuf_addstr(&sb, jsonw_text(root));
	strbuf_addch(&sb, '\n');
	err = file_write_output(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return err;
}
