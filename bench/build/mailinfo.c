#include "mailinfo.h"

#include "gitrun.h"
#include "patchfile.h"
#include "tree.h"

#include "lib/date.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "Name: value" of git mailinfo's report, or NULL. */
static char *info_value(const char *info, const char *name)
{
	size_t n = strlen(name);

	for (const char *line = info; line && *line; ) {
		const char *nl = strchr(line, '\n');

		if (strncmp(line, name, n) == 0 && line[n] == ':' && line[n + 1] == ' ')
			return xstrndup(line + n + 2, (size_t)((nl ? nl : line + strlen(line)) - line - n - 2));
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Replaces *field with value, when mailinfo gave one. */
static void take(char **field, const char *value)
{
	if (value && *value) {
		free(*field);
		*field = xstrdup(value);
	}
}

/* The diff of the file mailinfo wrote, its transfer encoding (quoted-printable, base64) undone. */
static void take_diff(struct patchfile *p, const char *name, const char *patch)
{
	struct strbuf decoded = STRBUF_INIT;
	struct patchfile d;

	if (file_read(patch, &decoded) == 0 &&
	    patchfile_parse(&d, name, decoded.buf, decoded.len) == 0) {
		free(p->diff);
		p->diff = d.diff;
		d.diff = NULL;
		patchfile_release(&d);
	}
	error_clear();
	strbuf_release(&decoded);
}

/* The message as git am makes it: the subject, a blank line and the body without its trailing blank lines. */
static void take_message(struct patchfile *p, const char *subject, const char *body)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;

	if (!subject || !*subject)
		return;
	len = strlen(body);
	while (len && body[len - 1] == '\n')
		len--;
	strbuf_addstr(&sb, subject);
	if (len)
		strbuf_addf(&sb, "\n\n%.*s", (int)len, body);
	strbuf_addch(&sb, '\n');
	free(p->message);
	p->message = strbuf_detach(&sb);
}

int mailinfo_decode(struct kernel_tree *t, const char *name, struct patchfile *p)
{
	const char *gitdir = git_repository_path(t->repo);
	char *mail = xasprintf("%sfpubench-mail", gitdir), *msg = xasprintf("%s.msg", mail);
	char *patch = xasprintf("%s.patch", mail), *log = xasprintf("%s.log", mail);
	char *info = NULL, *body = NULL, *author = NULL, *email = NULL, *subject = NULL, *date = NULL;
	const char *argv[] = { "git", "mailinfo", "-u", msg, patch, NULL };
	struct gitrun_env e;
	int err, fd = -1, rc;

	gitrun_env_init(&e, t, NULL);
	unlink(log);
	if ((err = file_write_atomic_mode(mail, p->mail, p->mail_len, KERNEL_CACHE_FILE_MODE)) < 0)
		goto out;
	if ((fd = open(mail, O_RDONLY | O_CLOEXEC)) < 0) {
		err = error_set_errno(ERR_GENERIC, "cannot read '%s'", mail);
		goto out;
	}
	struct spawn_watch watch = { .stdin_fd = fd };
	if ((rc = spawn_run_watched(argv, t->path, log, e.env, &watch)) != 0) {
		err = rc < 0 ? rc : error_set(ERR_INPUT, "patch '%s' message %zu: git mailinfo cannot read it",
					      name, p->number);
		goto out;
	}
	info = gitrun_log_text(log);
	body = gitrun_log_text(msg);
	author = info_value(info, "Author");
	email = info_value(info, "Email");
	subject = info_value(info, "Subject");
	date = info_value(info, "Date");
	take(&p->author_name, author);
	take(&p->author_email, email);
	if (date && *date && date_parse_rfc2822(date, &p->author_time, &p->author_tz) < 0) {
		err = error_set(ERR_INPUT, "patch '%s' message %zu has a bad date '%s'", name, p->number,
				date);
		goto out;
	}
	take_diff(p, name, patch);
	take_message(p, subject, body);
out:
	if (fd >= 0)
		close(fd);
	unlink(mail);
	unlink(msg);
	unlink(patch);
	unlink(log);
	gitrun_env_release(&e);
	free(mail);
	free(msg);
	free(patch);
	free(log);
	free(info);
	free(body);
	free(author);
	free(email);
	free(subject);
	free(date);
	return err;
}
