/*
 * str: small helpers on plain C strings that the parsers share.  Nothing
 * here allocates except xstrndup_trimmed(), whose result the caller frees.
 */
#ifndef FPUBENCH_STR_H
#define FPUBENCH_STR_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a and b are equal strings, or both NULL. */
bool str_equal(const char *a, const char *b);

/*
 * Splits s in place into words separated by blanks (space, tab, CR) and
 * stores at most max of them.  Returns how many there were, or max + 1
 * when there were more than max.
 */
size_t str_split_words(char *s, char **words, size_t max);

/* Whether the len bytes at p (no NUL needed) begin with prefix. */
bool str_has_prefix(const char *p, size_t len, const char *prefix);

/* A copy of [p, end) without the white space (ctype_is_space) at either end. */
char *xstrndup_trimmed(const char *p, const char *end);

/*
 * The name of names[0..n) nearest to `word` in edit distance, when it is
 * near enough to be what was meant (at most a third of its length, and at
 * most 3 edits); NULL otherwise.  For "did you mean" hints.
 */
const char *str_nearest(const char *word, const char *const *names, size_t n);

#endif
