/*
 * mailinfo: a patch mail read as `git am` reads it, by `git mailinfo`.
 */
#ifndef FPUBENCH_MAILINFO_H
#define FPUBENCH_MAILINFO_H

#include <stddef.h>

struct kernel_tree;
struct patchfile;

/*
 * A mail's author, date and message as `git am` reads them, from `git
 * mailinfo`: RFC 2047 names and subjects decoded, the body's transfer
 * encoding undone (in the diff too), an in-body From:, Date: or Subject:
 * taken over the header's.  What mailinfo leaves empty stays as patchfile
 * read it.  `name` names the patch file in messages; ERR_INPUT when git
 * cannot read the mail.
 */
int mailinfo_decode(struct kernel_tree *t, const char *name, struct patchfile *p);

#endif
