/*
 * address: one e-mail address as people write it, in a mail's From, To or
 * Cc and in a commit's trailers: "Name <a@b>", "\"Last, First\" <a@b>",
 * "a@b (Name)", "a@b # 5.10+" (a trailer's comment) or "a@b".
 */
#ifndef FPUBENCH_ADDRESS_H
#define FPUBENCH_ADDRESS_H

#include <stdbool.h>

/*
 * The display name (its quotes and backslash escapes undone, or the
 * parenthesised comment of a bare address; "" when none) and the address
 * (between the angle brackets, else the first word), both trimmed and
 * allocated.  Never fails; the address may still be no address at all.
 */
void address_split(const char *value, char **name, char **email);

/* Whether email looks like one address: an '@', and no blank, comma, quote or angle bracket. */
bool address_is_plain(const char *email);

#endif
