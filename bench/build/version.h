/*
 * version: a kernel tree's version, as its top Makefile gives it
 * (VERSION.PATCHLEVEL.SUBLEVEL and EXTRAVERSION, as `Linux version`
 * prints it), and whether the bench can build that version.
 */
#ifndef FPUBENCH_VERSION_H
#define FPUBENCH_VERSION_H

#include <stddef.h>

/* The oldest kernel the bench knows how to configure and boot: the 5.10 LTS series. */
#define TREE_OLDEST_MAJOR 5
#define TREE_OLDEST_MINOR 10

/*
 * "6.12.118" from the text of a kernel's top Makefile (len bytes), into
 * out.  0, or ERR_INPUT naming `name` when the VERSION, PATCHLEVEL or
 * SUBLEVEL line is missing.  Pure, for unit tests.
 */
int version_parse(const char *name, const char *makefile, size_t len, char *out,
			 size_t size);

/*
 * The stable series of a version as version_parse() gives it: "6.12" of
 * "6.12.118" and of "6.12.0-rc3".  A version with one dot or none is its
 * own series.
 */
void version_series(const char *version, char *out, size_t size);

/*
 * Whether the bench can build a tree of this version: 0, or ERR_INPUT
 * saying it is older than 5.10.  `what` names the tree in the message.
 */
int version_check(const char *what, const char *version);

#endif
