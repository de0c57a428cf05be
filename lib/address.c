#include "address.h"

#include "str.h"
#include "strbuf.h"
#include "xalloc.h"

#include <string.h>

void address_split(const char *value, char **name, char **email)
{
	const char *lt = strchr(value, '<');
	const char *gt = lt ? strchr(lt, '>') : NULL;
	struct strbuf sb = STRBUF_INIT;

	if (lt && gt) {
		*email = xstrndup_trimmed(lt + 1, gt);
		for (const char *p = value; p < lt; p++) {
			if (*p == '"')
				continue;
			if (*p == '\\' && p + 1 < lt)
				p++;
			strbuf_addch(&sb, *p);
		}
	} else {
		const char *start = value + strspn(value, " \t");
		const char *open = strchr(start, '(');
		const char *close = open ? strchr(open, ')') : NULL;

		*email = xstrndup_trimmed(start, start + strcspn(start, " \t#("));
		if (open && close)
			strbuf_add(&sb, open + 1, (size_t)(close - open - 1));
	}
	*name = xstrndup_trimmed(sb.buf, sb.buf + sb.len);
	strbuf_release(&sb);
}

bool address_is_plain(const char *email)
{
	return strchr(email, '@') && !strpbrk(email, " \t\n,<>\"");
}
