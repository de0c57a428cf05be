/*
 * stage: files on a libvirt host that does not share the bench's
 * filesystem (qemu+ssh://host/system), moved through libvirt itself, so
 * a remote host needs nothing but libvirtd and the connection.
 *
 * The files live in a directory storage pool named "fpubench" at `dir`
 * on that host, defined (transient) and built when missing.  A kernel or
 * initramfs is uploaded once as a volume named after its content's hash,
 * so an unchanged kernel is not sent again; a guest's console log is
 * written by QEMU into the pool and downloaded when the guest has stopped.
 *
 * A struct stage belongs to one connection and may be used from several
 * threads; stage_free() accepts NULL.
 */
#ifndef FPUBENCH_STAGE_H
#define FPUBENCH_STAGE_H

#include "errors.h"

#include <libvirt/libvirt.h>
#include <stddef.h>

struct stage;

/* Finds or creates the pool; ERR_LIBVIRT names the host's complaint. */
int stage_open(struct stage **out, virConnectPtr conn, const char *dir);

/* Uploads `local` unless the host has it; *remote is its path there (caller frees). */
int stage_put(struct stage *s, const char *local, char **remote);

/* Where on the host a file called `name` in the pool goes (caller frees). */
char *stage_path(const struct stage *s, const char *name);

/*
 * Downloads the pool's file `name` into `local` (at most `max` bytes, the
 * rest dropped) and deletes it from the host.
 */
int stage_take(struct stage *s, const char *name, const char *local, size_t max);

void stage_free(struct stage *s);

#endif
