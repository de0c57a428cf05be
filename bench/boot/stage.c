#include "stage.h"

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xmlw.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define POOL_NAME "fpubench"

struct stage {
	virConnectPtr conn;
	virStoragePoolPtr pool;
	char *dir;
	pthread_mutex_t lock;	/* one upload or download at a time */
};

static const char *virt_message(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

int stage_open(struct stage **out, virConnectPtr conn, const char *dir)
{
	struct stage *s = xcalloc(1, sizeof(*s));
	char *xml = NULL;
	int err = 0;

	s->conn = conn;
	s->dir = xstrdup(dir);
	pthread_mutex_init(&s->lock, NULL);
	s->pool = virStoragePoolLookupByName(conn, POOL_NAME);
	if (s->pool && virStoragePoolIsActive(s->pool) == 0 && virStoragePoolCreate(s->pool, 0) < 0)
		err = error_set(ERR_LIBVIRT, "cannot start storage pool '" POOL_NAME "': %s",
				virt_message());
	if (!s->pool && !err) {
		struct xmlw x;

		xmlw_begin(&x);
		xmlw_open(&x, "pool", "type", "dir", NULL);
		xmlw_element(&x, "name", POOL_NAME, NULL);
		xmlw_open(&x, "target", NULL);
		xmlw_element(&x, "path", dir, NULL);
		xmlw_close(&x);
		xmlw_close(&x);
		if ((err = xmlw_finish(&x, "the storage pool", &xml)) == 0) {
			s->pool = virStoragePoolCreateXML(conn, xml, VIR_STORAGE_POOL_CREATE_WITH_BUILD);
			if (!s->pool)
				err = error_set(ERR_LIBVIRT, "cannot create storage pool '" POOL_NAME
						"' at '%s': %s", dir, virt_message());
		}
	}
	free(xml);
	if (err) {
		stage_free(s);
		return err;
	}
	*out = s;
	return 0;
}

static int send_bytes(virStreamPtr st, char *data, size_t n, void *opaque)
{
	(void)st;
	return (int)read(*(int *)opaque, data, n);
}

static int recv_bytes(virStreamPtr st, const char *data, size_t n, void *opaque)
{
	(void)st;
	return (int)write(*(int *)opaque, data, n);
}

/* Uploads the file into a new volume `name`; under s->lock. */
static int upload(struct stage *s, const char *local, const char *name, off_t size)
{
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	char capacity[24], *xml = NULL;
	struct xmlw x;
	int fd = open(local, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return error_set_errno(ERR_GENERIC, "cannot read '%s'", local);
	snprintf(capacity, sizeof(capacity), "%lld", (long long)size);
	xmlw_begin(&x);
	xmlw_open(&x, "volume", NULL);
	xmlw_element(&x, "name", name, NULL);
	xmlw_element(&x, "capacity", capacity, "unit", "bytes", NULL);
	xmlw_open(&x, "target", NULL);
	xmlw_element(&x, "format", NULL, "type", "raw", NULL);
	xmlw_close(&x);
	xmlw_close(&x);
	if ((err = xmlw_finish(&x, "a storage volume", &xml)) < 0) {
		close(fd);
		return err;
	}
	if (!(vol = virStorageVolCreateXML(s->pool, xml, 0)) ||
	    !(st = virStreamNew(s->conn, 0)) ||
	    virStorageVolUpload(vol, st, 0, (unsigned long long)size, 0) < 0 ||
	    virStreamSendAll(st, send_bytes, &fd) < 0 || virStreamFinish(st) < 0) {
		err = error_set(ERR_LIBVIRT, "cannot upload '%s' to pool '" POOL_NAME "': %s", local,
				virt_message());
		if (st)
			virStreamAbort(st);
		if (vol)
			virStorageVolDelete(vol, 0);
	}
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	free(xml);
	close(fd);
	return err;
}

int stage_put(struct stage *s, const char *local, char **remote)
{
	char hex[GIT_OID_HEXSZ + 1], *name = NULL;
	const char *base = strrchr(local, '/');
	virStorageVolPtr vol;
	struct stat st;
	git_oid oid;
	int err = 0;

	if (stat(local, &st) < 0)
		return error_set_errno(ERR_GENERIC, "cannot read '%s'", local);
	if (git_odb_hashfile(&oid, local, GIT_OBJECT_BLOB) < 0)
		return error_set(ERR_GENERIC, "cannot read '%s'", local);
	git_oid_tostr(hex, 17, &oid);
	name = xasprintf("%s-%s", hex, base ? base + 1 : local);

	pthread_mutex_lock(&s->lock);
	/* Named by content: a volume that exists holds these bytes already. */
	vol = virStorageVolLookupByName(s->pool, name);
	if (!vol)
		err = upload(s, local, name, st.st_size);
	else
		virStorageVolFree(vol);
	pthread_mutex_unlock(&s->lock);
	if (!err)
		*remote = stage_path(s, name);
	free(name);
	return err;
}

char *stage_path(const struct stage *s, const char *name)
{
	return xasprintf("%s/%s", s->dir, name);
}

int stage_take(struct stage *s, const char *name, const char *local, size_t max)
{
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	int fd = open(local, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), err = 0;

	if (fd < 0)
		return error_set_errno(ERR_GENERIC, "cannot write '%s'", local);
	pthread_mutex_lock(&s->lock);
	/* QEMU made the file behind the pool's back: the pool must look again. */
	if (virStoragePoolRefresh(s->pool, 0) < 0 ||
	    !(vol = virStorageVolLookupByName(s->pool, name))) {
		err = error_set(ERR_LIBVIRT, "no console '%s' in pool '" POOL_NAME "': %s", name,
				virt_message());
		goto out;
	}
	if (!(st = virStreamNew(s->conn, 0)) ||
	    virStorageVolDownload(vol, st, 0, (unsigned long long)max, 0) < 0 ||
	    virStreamRecvAll(st, recv_bytes, &fd) < 0 || virStreamFinish(st) < 0) {
		err = error_set(ERR_LIBVIRT, "cannot download console '%s': %s", name,
				virt_message());
		if (st)
			virStreamAbort(st);
	}
	virStorageVolDelete(vol, 0);
out:
	pthread_mutex_unlock(&s->lock);
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	if (close(fd) < 0 && !err)
		err = error_set_errno(ERR_GENERIC, "cannot write '%s'", local);
	return err;
}

void stage_free(struct stage *s)
{
	if (!s)
		return;
	if (s->pool)
		virStoragePoolFree(s->pool);
	pthread_mutex_destroy(&s->lock);
	free(s->dir);
	free(s);
}
