#include "saved_guest.h"

#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#define META_MAGIC "fpubench saved guest 2\n"
#define TMP_MARK ".tmp-"
#define SEEN_MARK ".seen"

struct file_hash {
	char *path;
	off_t size;
	struct timespec mtime;
	char hex[GIT_OID_HEXSZ + 1];
	struct file_hash *next;
};

struct saved_store {
	char *dir;
	unsigned long long max_bytes;
	pthread_mutex_t lock;
	char (*busy)[SAVED_ID_LEN + 1];	/* the keys taken */
	size_t nbusy;
	unsigned tmp_count;
	struct file_hash *hashes;
};

char *saved_key_text(const struct saved_key *k)
{
	return xasprintf("build-id %s\ncpu %s\ncmdline %s\ninitramfs %s\nmemory-mib %u\n"
			 "qemu %s\nlibvirt %s\n", k->build_id, k->cpu, k->cmdline, k->initrd_hash,
			 k->memory_mib, k->qemu, k->libvirt);
}

void saved_key_id(const char *text, char id[SAVED_ID_LEN + 1])
{
	git_oid oid;

	git_odb_hash(&oid, text, strlen(text), GIT_OBJECT_BLOB);
	git_oid_tostr(id, SAVED_ID_LEN + 1, &oid);
}

/* Removes a directory of plain files, as the store's entries are. */
static void entry_remove(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *f = xasprintf("%s/%s", path, de->d_name);
		unlink(f);
		free(f);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

int saved_store_open(struct saved_store **out, const char *dir, unsigned long long max_bytes)
{
	struct saved_store *s;
	struct dirent *de;
	DIR *d;
	int err;

	if ((err = dir_create(dir, ERR_CACHE)) < 0)
		return err;
	if (!(d = opendir(dir)))
		return error_set_errno(ERR_CACHE, "cannot read '%s'", dir);
	/* Under the cache lock: a temporary entry or a guest's socket is a killed bench's. */
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		bool sock = len > 5 && strcmp(de->d_name + len - 5, ".sock") == 0;

		if (!sock && !strstr(de->d_name, TMP_MARK))
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		if (sock)
			unlink(p);
		else
			entry_remove(p);
		free(p);
	}
	closedir(d);
	s = xcalloc(1, sizeof(*s));
	s->dir = xstrdup(dir);
	s->max_bytes = max_bytes;
	pthread_mutex_init(&s->lock, NULL);
	*out = s;
	return 0;
}

void saved_store_free(struct saved_store *s)
{
	if (!s)
		return;
	while (s->hashes) {
		struct file_hash *h = s->hashes;

		s->hashes = h->next;
		free(h->path);
		free(h);
	}
	free(s->busy);
	pthread_mutex_destroy(&s->lock);
	free(s->dir);
	free(s);
}

const char *saved_store_dir(const struct saved_store *s)
{
	return s->dir;
}

/* The hash of path as it is now (st), if known; under s->lock. */
static const char *hash_known(const struct saved_store *s, const char *path, const struct stat *st)
{
	for (const struct file_hash *h = s->hashes; h; h = h->next)
		if (strcmp(h->path, path) == 0 && h->size == st->st_size &&
		    h->mtime.tv_sec == st->st_mtim.tv_sec && h->mtime.tv_nsec == st->st_mtim.tv_nsec)
			return h->hex;
	return NULL;
}

/* Remembers hex as the hash of path as it is now (st); the store owns the copy it returns. */
static const char *hash_note(struct saved_store *s, const char *path, const struct stat *st,
			     const char *hex)
{
	pthread_mutex_lock(&s->lock);
	const char *known = hash_known(s, path, st);
	if (!known) {
		struct file_hash *h = xcalloc(1, sizeof(*h));

		h->path = xstrdup(path);
		h->size = st->st_size;
		h->mtime = st->st_mtim;
		snprintf(h->hex, sizeof(h->hex), "%s", hex);
		h->next = s->hashes;
		s->hashes = h;
		known = h->hex;
	}
	pthread_mutex_unlock(&s->lock);
	return known;
}

/* path's stat and content hash (git's blob id); 0 or a negative code. */
static int file_hash(const char *path, struct stat *st, char hex[GIT_OID_HEXSZ + 1])
{
	git_oid oid;

	if (stat(path, st) < 0)
		return error_set_errno(ERR_CACHE, "cannot read '%s'", path);
	if (git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) < 0)
		return error_set(ERR_CACHE, "cannot read '%s': %s", path, gitutil_error());
	git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &oid);
	return 0;
}

const char *saved_store_file_hash(struct saved_store *s, const char *path)
{
	char hex[GIT_OID_HEXSZ + 1];
	const char *known;
	struct stat st;

	if (stat(path, &st) < 0)
		return NULL;
	pthread_mutex_lock(&s->lock);
	known = hash_known(s, path, &st);
	pthread_mutex_unlock(&s->lock);
	if (known)
		return known;
	/* Outside the lock: a save image takes tens of milliseconds, and other boots take keys meanwhile. */
	if (file_hash(path, &st, hex) < 0) {
		error_clear();	/* the caller's NULL says it: a cold boot, or a damaged save dropped */
		return NULL;
	}
	return hash_note(s, path, &st, hex);
}

/* Whether id is taken; under s->lock. */
static bool store_busy(const struct saved_store *s, const char *id)
{
	for (size_t i = 0; i < s->nbusy; i++)
		if (strcmp(s->busy[i], id) == 0)
			return true;
	return false;
}

static void entry_name_files(struct saved_entry *e, const char *dir)
{
	free(e->dir);
	free(e->image);
	free(e->console);
	e->dir = xstrdup(dir);
	e->image = xasprintf("%s/image", dir);
	e->console = xasprintf("%s/console", dir);
}

/* The hash of path, if it is the one recorded (a damaged file of the same size is not). */
static bool hash_matches(struct saved_store *s, const char *path, const char *recorded)
{
	const char *now = saved_store_file_hash(s, path);

	return now && strcmp(now, recorded) == 0;
}

/*
 * Whether the published entry's meta names this key and its image and
 * console have the size and content they were written with; sets e->cmdline.
 * A file's content is hashed once per bench process (saved_store_file_hash()).
 */
static bool entry_check(struct saved_store *s, struct saved_entry *e)
{
	struct strbuf meta = STRBUF_INIT;
	char *path = xasprintf("%s/meta", e->dir);
	char image_hash[GIT_OID_HEXSZ + 1], console_hash[GIT_OID_HEXSZ + 1];
	unsigned long long size;
	struct stat st;
	int used = 0;
	bool ok = false;

	if (file_read(path, &meta) < 0) {
		error_clear();
		goto out;
	}
	const char *p = meta.buf;
	if (strncmp(p, META_MAGIC, strlen(META_MAGIC)) != 0)
		goto out;
	p += strlen(META_MAGIC);
	if (sscanf(p, "image-size %llu\nimage-hash %40[0-9a-f]\nconsole-hash %40[0-9a-f]\n%n", &size,
		   image_hash, console_hash, &used) != 3 || !used)
		goto out;
	p += used;
	const char *nl = strchr(p, '\n');
	if (strncmp(p, "cmdline ", 8) != 0 || !nl || strcmp(nl + 1, e->key) != 0)
		goto out;
	ok = stat(e->image, &st) == 0 && (unsigned long long)st.st_size == size &&
	     hash_matches(s, e->image, image_hash) && hash_matches(s, e->console, console_hash);
	if (ok) {
		e->cmdline = xstrndup(p + 8, (size_t)(nl - p - 8));
		/* Its last use, for the size limit's order. */
		utimensat(AT_FDCWD, path, NULL, 0);
	}
out:
	strbuf_release(&meta);
	free(path);
	return ok;
}

/* A key's seen mark: an empty file, a hint that needs no fsync (a lost one costs a cold boot). */
static int seen_mark(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return error_set_errno(ERR_CACHE, "cannot create '%s'", path);
	close(fd);
	return 0;
}

int saved_store_take(struct saved_store *s, const char *key_text, struct saved_entry *e)
{
	char *dir;
	unsigned n;

	memset(e, 0, sizeof(*e));
	saved_key_id(key_text, e->id);
	pthread_mutex_lock(&s->lock);
	if (store_busy(s, e->id)) {
		pthread_mutex_unlock(&s->lock);
		return SAVED_BUSY;
	}
	s->busy = xrealloc(s->busy, (s->nbusy + 1) * sizeof(*s->busy));
	memcpy(s->busy[s->nbusy++], e->id, sizeof(e->id));
	n = s->tmp_count++;
	pthread_mutex_unlock(&s->lock);

	e->key = xstrdup(key_text);
	dir = xasprintf("%s/%s", s->dir, e->id);
	entry_name_files(e, dir);
	free(dir);
	if (file_exists(e->dir)) {
		if (entry_check(s, e))
			return SAVED_RESTORE;
		entry_remove(e->dir);
	}
	char *seen = xasprintf("%s/%s" SEEN_MARK, s->dir, e->id);
	bool first = !file_exists(seen);
	int err = first ? seen_mark(seen) : 0;
	free(seen);
	if (err < 0)
		return err;
	if (first)
		return SAVED_FIRST;
	e->tmp = xasprintf("%s/%s" TMP_MARK "%ld-%u", s->dir, e->id, (long)getpid(), n);
	if (mkdir(e->tmp, 0700) < 0) {
		int err = error_set_errno(ERR_CACHE, "cannot create '%s'", e->tmp);

		free(e->tmp);
		e->tmp = NULL;
		return err;
	}
	dir = xstrdup(e->tmp);
	entry_name_files(e, dir);
	free(dir);
	return SAVED_NEW;
}

/* An entry's bytes and last use, for the size limit. */
struct entry_use {
	char *path;
	unsigned long long bytes;
	struct timespec used;
};

static int use_cmp(const void *a, const void *b)
{
	const struct entry_use *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

/* The published entries, oldest use first, and their total size. */
static size_t store_list(struct saved_store *s, struct entry_use **out, unsigned long long *total)
{
	static const char *const files[] = { "image", "console", "meta" };
	struct entry_use *v = NULL;
	DIR *d = opendir(s->dir);
	struct dirent *de;
	size_t n = 0;

	*total = 0;
	while (d && (de = readdir(d))) {
		struct stat st;

		if (strlen(de->d_name) != SAVED_ID_LEN)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n] = (struct entry_use){ .path = xasprintf("%s/%s", s->dir, de->d_name) };
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			char *p = xasprintf("%s/%s", v[n].path, files[f]);

			if (stat(p, &st) == 0) {
				v[n].bytes += (unsigned long long)st.st_size;
				if (f == 2)
					v[n].used = st.st_mtim;
			}
			free(p);
		}
		*total += v[n++].bytes;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), use_cmp);
	*out = v;
	return n;
}

/* Removes the key-seen markers not used for SAVED_SEEN_DAYS. */
static void store_prune_seen(struct saved_store *s)
{
	time_t old = time(NULL) - (time_t)SAVED_SEEN_DAYS * 86400;
	DIR *d = opendir(s->dir);
	struct dirent *de;
	struct stat st;

	while (d && (de = readdir(d))) {
		if (!strstr(de->d_name, SEEN_MARK))
			continue;
		char *p = xasprintf("%s/%s", s->dir, de->d_name);
		if (stat(p, &st) == 0 && st.st_mtime < old)
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

/* Removes the least recently used entries that no boot holds until the store fits. */
static void store_prune(struct saved_store *s)
{
	unsigned long long total;
	struct entry_use *v;
	size_t n = store_list(s, &v, &total);

	for (size_t i = 0; i < n; i++) {
		const char *id = strrchr(v[i].path, '/') + 1;

		pthread_mutex_lock(&s->lock);
		bool busy = store_busy(s, id);
		pthread_mutex_unlock(&s->lock);
		if (total > s->max_bytes && !busy) {
			char *seen = xasprintf("%s" SEEN_MARK, v[i].path);

			entry_remove(v[i].path);
			unlink(seen);
			free(seen);
			total -= v[i].bytes;
		}
		free(v[i].path);
	}
	free(v);
	store_prune_seen(s);
}

unsigned long long saved_store_bytes(struct saved_store *s)
{
	unsigned long long total;
	struct entry_use *v;
	size_t n = store_list(s, &v, &total);

	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return total;
}

int saved_store_publish(struct saved_store *s, struct saved_entry *e, const char *console,
			const char *cmdline)
{
	char *dir = xasprintf("%s/%s", s->dir, e->id), *meta = NULL;
	struct file_atomic copy;
	struct stat st;
	int err;

	if (stat(e->image, &st) < 0 || stat(console, &st) < 0) {
		err = error_set_errno(ERR_CACHE, "cannot publish saved guest '%s'", e->id);
		goto out;
	}
	file_atomic_begin(&copy, e->console, 0600);
	file_atomic_add_file(&copy, console, (size_t)st.st_size);
	if ((err = file_atomic_commit(&copy)) < 0)
		goto out;
	/* What a take checks; known to this process under the published names (below). */
	char image_hash[GIT_OID_HEXSZ + 1], console_hash[GIT_OID_HEXSZ + 1];
	struct stat image_st, console_st;
	if ((err = file_hash(e->image, &image_st, image_hash)) < 0 ||
	    (err = file_hash(e->console, &console_st, console_hash)) < 0)
		goto out;
	meta = xasprintf("%simage-size %llu\nimage-hash %s\nconsole-hash %s\ncmdline %s\n%s",
			 META_MAGIC, (unsigned long long)image_st.st_size, image_hash, console_hash,
			 cmdline, e->key);
	char *path = xasprintf("%s/meta", e->tmp);
	err = file_write_atomic(path, meta, strlen(meta));
	free(path);
	if (err < 0)
		goto out;
	if (rename(e->tmp, dir) < 0) {
		err = error_set_errno(ERR_CACHE, "cannot publish saved guest '%s'", dir);
		goto out;
	}
	free(e->tmp);
	e->tmp = NULL;
	entry_name_files(e, dir);
	/* rename() keeps the files' size and mtime. */
	hash_note(s, e->image, &image_st, image_hash);
	hash_note(s, e->console, &console_st, console_hash);
	free(e->cmdline);
	e->cmdline = xstrdup(cmdline);
	store_prune(s);
out:
	free(dir);
	free(meta);
	return err;
}

void saved_store_drop(struct saved_store *s, struct saved_entry *e)
{
	/* Its key was booted: the next boot saves it anew. */
	char *seen = xasprintf("%s/%s" SEEN_MARK, s->dir, e->id);

	if (seen_mark(seen) < 0)
		error_clear();
	free(seen);
	entry_remove(e->tmp ? e->tmp : e->dir);
	free(e->tmp);
	e->tmp = NULL;
}

void saved_store_release(struct saved_store *s, struct saved_entry *e)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->nbusy; i++) {
		if (strcmp(s->busy[i], e->id) == 0) {
			memmove(s->busy[i], s->busy[s->nbusy - 1], sizeof(s->busy[i]));
			s->nbusy--;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (e->tmp)
		entry_remove(e->tmp);
	free(e->tmp);
	free(e->key);
	free(e->dir);
	free(e->image);
	free(e->console);
	free(e->cmdline);
	memset(e, 0, sizeof(*e));
}
