#include "initramfs.h"

#include "error.h"
#include "fileutil.h"
#include "strbuf.h"

#include <string.h>
#include <sys/stat.h>

static void pad4(struct strbuf *out)
{
	while (out->len % 4)
		strbuf_addch(out, '\0');
}

static void add_header(struct strbuf *out, unsigned ino, unsigned mode, size_t size,
		       const char *name)
{
	size_t namesize = strlen(name) + 1;

	/* Fixed metadata (owner root, mtime 0) keeps the archive reproducible. */
	strbuf_addf(out, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		    ino, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, 0u, 0u, namesize, 0u);
	strbuf_add(out, name, namesize);
	pad4(out);
}

int initramfs_write(const char *path, const struct initramfs_entry *entries, size_t n)
{
	struct strbuf out = STRBUF_INIT, data = STRBUF_INIT;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		const struct initramfs_entry *e = &entries[i];

		if (!e->source) {
			add_header(&out, (unsigned)i + 1, S_IFDIR | e->mode, 0, e->name);
			continue;
		}
		strbuf_reset(&data);
		if ((err = file_read(e->source, &data)) < 0)
			goto out;
		add_header(&out, (unsigned)i + 1, S_IFREG | e->mode, data.len, e->name);
		strbuf_add(&out, data.buf, data.len);
		pad4(&out);
	}
	add_header(&out, 0, 0, 0, "TRAILER!!!");
	err = file_write_atomic(path, out.buf, out.len);
out:
	strbuf_release(&out);
	strbuf_release(&data);
	return err;
}
