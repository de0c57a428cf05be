#include "initramfs.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* cpio "newc" aligns every header and every file's data to 4 bytes. */
static void pad4(struct file_atomic *out)
{
	static const char zeros[3];

	file_atomic_add(out, zeros, (4 - out->len % 4) % 4);
}

static void add_header(struct file_atomic *out, unsigned ino, unsigned mode, size_t size,
		       const char *name)
{
	struct strbuf header = STRBUF_INIT;
	size_t namesize = strlen(name) + 1;

	/* Fixed metadata (owner root, mtime 0) keeps the archive reproducible. */
	strbuf_addf(&header, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		    ino, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, 0u, 0u, namesize, 0u);
	strbuf_add(&header, name, namesize);
	file_atomic_add(out, header.buf, header.len);
	strbuf_release(&header);
	pad4(out);
}

int initramfs_write(const char *path, const struct initramfs_entry *entries, size_t n)
{
	struct file_atomic out;

	file_atomic_begin(&out, path, 0644);
	for (size_t i = 0; i < n && !out.err; i++) {
		const struct initramfs_entry *e = &entries[i];
		struct stat st;

		if (!e->source) {
			add_header(&out, (unsigned)i + 1, S_IFDIR | e->mode, 0, e->name);
			continue;
		}
		if (stat(e->source, &st) < 0) {
			out.err = error_set_errno(errno == ENOENT ? ERR_NOTFOUND : ERR_GENERIC,
						  "cannot read '%s'", e->source);
			break;
		}
		add_header(&out, (unsigned)i + 1, S_IFREG | e->mode, (size_t)st.st_size, e->name);
		file_atomic_add_file(&out, e->source, (size_t)st.st_size);
		pad4(&out);
	}
	add_header(&out, 0, 0, 0, "TRAILER!!!");
	return file_atomic_commit(&out);
}
