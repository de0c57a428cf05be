/*
 * A board through a LAVA server's REST API, end to end on this side: the
 * matrix boots a board setup ("@geode") in a REST lab whose server is a
 * fake peer in this process (a thread answering HTTP on 127.0.0.1), which
 * takes the job, says it Finished and serves a real LAVA log
 * (tests/fixtures/lava, whose README says where each came from) as a
 * server's /logs/ does: each line an item of a YAML sequence.  The cells
 * are judged from that console by the bench's own code.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/matrix.h"
#include "lab/lab.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIXTURES FPUBENCH_SRCDIR "/tests/fixtures/lava/"
#define PATCHED FIXTURES "lava-run-patched-pentium2.yaml"
#define UNPATCHED FIXTURES "lava-run-unpatched-pentium2.yaml"

/* The fake server: what it was sent and what it answers. */
static struct {
	int fd;
	int port;
	pthread_t thread;
	const char *log;		/* the fixture every job's /logs/ serves */
	struct strbuf definitions;	/* every job posted, one after another */
	int jobs;
	char auth[128];			/* the last Authorization header */
} peer;

static void reply(int fd, int status, const char *body, size_t len)
{
	char head[160];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, len);

	assert_int_equal(write(fd, head, (size_t)n), n);
	assert_int_equal(write(fd, body, len), (ssize_t)len);
}

/* The fixture as a server gives it: "- " before each line. */
static void serve_log(int fd)
{
	struct strbuf text = STRBUF_INIT, yaml = STRBUF_INIT;

	assert_int_equal(file_read(peer.log, &text), 0);
	for (char *line = text.buf, *nl; line < text.buf + text.len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(text.buf + text.len - line));
		if (!nl)
			nl = text.buf + text.len;
		strbuf_addstr(&yaml, "- ");
		strbuf_add(&yaml, line, (size_t)(nl - line));
		strbuf_addch(&yaml, '\n');
	}
	reply(fd, 200, yaml.buf, yaml.len);
	strbuf_release(&text);
	strbuf_release(&yaml);
}

/* Reads one request: its line and headers, and a body as long as Content-Length says. */
static void read_request(int fd, struct strbuf *req, const char **body)
{
	char buf[4096];
	const char *end = NULL, *cl;
	ssize_t n;

	while (!end && (n = read(fd, buf, sizeof(buf))) > 0) {
		strbuf_add(req, buf, (size_t)n);
		end = strstr(req->buf, "\r\n\r\n");
	}
	assert_non_null(end);
	size_t head = (size_t)(end + 4 - req->buf), want = 0;

	if ((cl = strcasestr(req->buf, "Content-Length: ")))
		want = strtoul(cl + 16, NULL, 10);
	while (req->len < head + want && (n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(req, buf, (size_t)n);
	*body = req->buf + head;
}

static void answer(int fd)
{
	struct strbuf req = STRBUF_INIT;
	const char *body, *auth;
	char out[64];

	read_request(fd, &req, &body);
	if ((auth = strstr(req.buf, "Authorization: ")))
		snprintf(peer.auth, sizeof(peer.auth), "%.*s", (int)strcspn(auth, "\r"), auth);
	if (strncmp(req.buf, "GET /api/v0.2/system/version/ ", 30) == 0) {
		reply(fd, 200, "{\"version\": \"2023.01\"}", 22);
	} else if (strncmp(req.buf, "POST /api/v0.2/jobs/ ", 21) == 0) {
		strbuf_addstr(&peer.definitions, body);
		int n = snprintf(out, sizeof(out), "{\"job_ids\": [%d]}", ++peer.jobs);
		reply(fd, 201, out, (size_t)n);
	} else if (strstr(req.buf, "/logs/ HTTP")) {
		serve_log(fd);
	} else if (strncmp(req.buf, "GET /api/v0.2/jobs/", 19) == 0) {
		const char *done = "{\"state\": \"Finished\", \"health\": \"Complete\"}";
		reply(fd, 200, done, strlen(done));
	} else {
		reply(fd, 404, "{}", 2);
	}
	strbuf_release(&req);
}

static void *serve(void *arg)
{
	int fd;

	(void)arg;
	while ((fd = accept(peer.fd, NULL, NULL)) >= 0) {
		answer(fd);
		close(fd);
	}
	return NULL;
}

static void peer_start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	peer.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(peer.fd >= 0);
	assert_int_equal(bind(peer.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(peer.fd, 8), 0);
	assert_int_equal(getsockname(peer.fd, (struct sockaddr *)&a, &len), 0);
	peer.port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&peer.thread, NULL, serve, NULL), 0);
}

static void peer_stop(void)
{
	shutdown(peer.fd, SHUT_RDWR);
	close(peer.fd);
	pthread_join(peer.thread, NULL);
	strbuf_release(&peer.definitions);
}

struct fixture {
	char dir[64];
	char *kernel, *initrd;
	struct cpu_setup board;
	struct lab *lab;
	struct matrix_host host;
};

static const char *const boards[] = { "geode" };
static const char *const board_tags[] = { "gx1" };
static const struct lava_board geode = {
	.name = "geode", .device_type = "x86-geode", .boot_method = "ipxe",
	.tags = board_tags, .ntags = 1,
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	memset(&peer, 0, sizeof(peer));
	peer.definitions = (struct strbuf)STRBUF_INIT;
	peer_start();
	strcpy(f->dir, "/tmp/fpubench-test-lab.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->kernel = xasprintf("%s/bzImage", f->dir);
	f->initrd = xasprintf("%s/initramfs.cpio", f->dir);
	assert_int_equal(file_write_atomic(f->kernel, "kernel", 6), 0);
	assert_int_equal(file_write_atomic(f->initrd, "initrd", 6), 0);
	/* What the session makes of [board geode] console = ttyS0,115200 (its comma kept). */
	assert_int_equal(cpu_setup_parse(&f->board, "@geode"), 0);
	free(f->board.cmdline);
	f->board.cmdline = xstrdup("console=ttyS0,115200");

	char *url = xasprintf("http://127.0.0.1:%d/", peer.port);
	struct lab_spec spec = {
		.name = "board-lab", .engine = LAB_REST, .url = url, .token = "s3cret",
		.boards = &geode, .nboards = 1,
	};
	assert_int_equal(lab_open(&f->lab, &spec), 0);
	free(url);
	lab_use_dir(f->lab, f->dir);
	f->host = (struct matrix_host){ .lab = lab_matrix(f->lab), .uri = "lab board-lab", .jobs = 1,
					.boards = boards, .nboards = 1 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd[] = { "rm", "-rf", f->dir, NULL };

	lab_free(f->lab);
	peer_stop();
	cpu_setup_release(&f->board);
	if (fork() == 0)
		execvp(cmd[0], cmd), _exit(127);
	wait(NULL);
	free(f->kernel);
	free(f->initrd);
	free(f);
	return 0;
}

static struct matrix *run(struct fixture *f)
{
	struct matrix_kernel k = { .variant = "patched", .bzimage = f->kernel, .commit = "c0ffee",
				   .build_id = "1", .initrd = f->initrd, .version = "6.1.192" };
	struct matrix_options o = { .hosts = &f->host, .nhosts = 1, .run_id = "r1", .round = 1,
				    .run_dir = f->dir, .boot_timeout_s = 30 };
	struct matrix *m;

	assert_int_equal(matrix_run(&o, &k, 1, &f->board, 1, &m), 0);
	assert_true(m->ncells > 1);
	for (size_t i = 0; i < m->ncells; i++) {
		assert_string_equal(m->cells[i].host, "lab board-lab");
		assert_non_null(strstr(m->cells[i].job_url, "/scheduler/job/"));
		/* kernel and cpu point into this frame: the callers read no further. */
		m->cells[i].kernel = NULL;
	}
	return m;
}

/* The job the server got is the board's, with the setup's command line and the run's names. */
static void test_board_job_through_rest_passes(void **state)
{
	struct fixture *f = *state;
	const char *def;
	size_t passed = 0;
	struct matrix *m;

	f->board.board_fsave = true;	/* pentium2,-fxsr's log: the kernel uses FSAVE */
	peer.log = PATCHED;
	m = run(f);
	/* 14 tests pass, FISTTP skips for want of SSE3: each as the fixture's console says. */
	for (size_t i = 0; i < m->ncells; i++) {
		assert_true(m->cells[i].met);
		passed += m->cells[i].status == VERDICT_PASS;
	}
	assert_int_equal(passed, 14);
	assert_int_equal(peer.jobs, 1);
	assert_string_equal(peer.auth, "Authorization: Token s3cret");
	def = peer.definitions.buf;
	/* JSON-escaped YAML: the keys as the job writer gives them. */
	assert_non_null(strstr(def, "device_type: 'x86-geode'"));
	assert_non_null(strstr(def, "method: ipxe"));
	assert_non_null(strstr(def, "to: tftp"));
	assert_non_null(strstr(def, "- 'gx1'"));
	assert_non_null(strstr(def, "extra_kernel_args: 'console=ttyS0 panic=-1 oops=panic "
				    "tsc=unstable console=ttyS0,115200'"));
	assert_non_null(strstr(def, "fpubench.variant: 'patched'"));
	assert_non_null(strstr(def, "fpubench.run: 'r1'"));
	assert_non_null(strstr(def, "job_name: 'fpubench-r1-1-0-1 patched @geode'"));
	assert_non_null(strstr(def, "fpubench.version: '6.1.192'"));
	assert_non_null(strstr(def, "fpubench.commit: 'c0ffee'"));
	assert_non_null(strstr(def, "fpubench.setup: '@geode'"));
	matrix_free(m);
}

/* A board that claims FXSAVE and whose kernel says FSAVE: every cell an error. */
static void test_board_reporting_another_fpu_path_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	f->board.board_fsave = false;
	peer.log = PATCHED;
	m = run(f);
	for (size_t i = 0; i < m->ncells; i++) {
		assert_int_equal(m->cells[i].status, VERDICT_ERROR);
		assert_string_equal(m->cells[i].reason,
				    "the setup should make the kernel use FXSAVE, it reported FSAVE");
	}
	matrix_free(m);
}

/*
 * The unpatched kernel's oops, which LAVA calls "Infrastructure, Connection
 * closed": judged from the console (a crash), not retried as the lab's.
 */
static void test_board_kernel_crash_is_judged_not_retried(void **state)
{
	struct fixture *f = *state;
	size_t crashed = 0;
	struct matrix *m;

	f->board.board_fsave = true;
	peer.log = UNPATCHED;
	m = run(f);
	for (size_t i = 0; i < m->ncells; i++) {
		assert_int_not_equal(m->cells[i].status, VERDICT_ERROR);
		crashed += m->cells[i].status == VERDICT_CRASH;
	}
	assert_true(crashed >= 1);
	matrix_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_board_job_through_rest_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_reporting_another_fpu_path_is_an_error,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_kernel_crash_is_judged_not_retried, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
