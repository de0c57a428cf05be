/*
 * initramfs: writes an uncompressed cpio "newc" archive, the format the
 * kernel unpacks as its initramfs (our tinyconfig kernels have no
 * decompressors, so it must stay uncompressed).
 */
#ifndef FPUBENCH_INITRAMFS_H
#define FPUBENCH_INITRAMFS_H

#include <stddef.h>

struct initramfs_entry {
	const char *name;	/* path inside the archive, without a leading '/' */
	const char *source;	/* host file to copy; NULL makes a directory */
	unsigned mode;		/* permission bits */
};

/* Writes the archive atomically; parent directories must be listed first. */
int initramfs_write(const char *path, const struct initramfs_entry *entries, size_t n);

#endif
