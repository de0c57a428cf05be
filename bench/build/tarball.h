/*
 * tarball: a kernel source tarball (Debian's linux-source-X.Y, or a
 * kernel.org one) as a tree of the cache: its version, and its extraction
 * into a git repository whose first commit is the pristine source.
 */
#ifndef FPUBENCH_TARBALL_H
#define FPUBENCH_TARBALL_H

struct kernel_tree;

/*
 * The tarball's version into *out (allocated): remembered by its path,
 * size and mtime in <cache>/trees/tarballs, else read from its top
 * Makefile, which tar reaches after the Documentation (1.3 s for 6.12,
 * against 12 s to extract it all).  ERR_NOTFOUND: no tarball, or no kernel
 * Makefile in it.
 */
int tarball_version(const struct kernel_tree *t, const char *tarball, char **out);

/*
 * Extracts the tarball into t->path and commits it as the pristine tree
 * (TREE_BASE_REF, written last).  It extracts into a temporary directory
 * and renames it, so a killed or failed run (a full disk) leaves no half
 * tree under the tree's name.  Progress goes to a live line.
 */
int tarball_extract(struct kernel_tree *t, const char *tarball);

#endif
