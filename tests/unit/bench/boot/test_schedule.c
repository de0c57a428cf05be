/*
 * Spreading boots over libvirt hosts: guest_run() and guest_conn_alive()
 * are mocked, so each "host" is a counter and a console fixture.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "boot/guest.h"
#include "boot/matrix.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>

#define NHOSTS 2
#define FIXTURE FPUBENCH_SRCDIR "/tests/fixtures/console/synth-good-486.log"
/* fpu_seed, the first of 4 tests, takes the kernel down. */
#define CRASH_FIXTURE FPUBENCH_SRCDIR "/tests/fixtures/console/synth-fpu-exception-486.log"

/* The mock's host: matrix.c sees only pointers to it. */
struct guest_conn {
	int id;
};

static struct {
	int boots[NHOSTS];
	int failing_host;	/* its boots fail for the infrastructure's sake; -1: none */
	bool lost[NHOSTS];	/* what guest_conn_alive() says once a boot failed */
	size_t cells_reported;
	const char *console;	/* what every guest prints; NULL: FIXTURE */
	bool cmdline_names_tests;	/* every boot's command line had the fpubench_tests= asked for */
	const char *want_tests;	/* that parameter, or NULL for none */
	const char *hold_cpu;	/* a boot on another setup waits for its cancel (fail_fast) */
	int cancels_seen;	/* boots that saw their cancel set and ended */
	int holding;		/* boots waiting for their cancel */
	bool cancel_without_fail_fast;	/* a boot got a cancel flag though fail_fast was off */
	bool fail_fast;		/* what the run's options say */
	const struct expect_rule *expects;	/* the run's [expect] rules */
	size_t nexpects;
	const struct guest_conn *slow;	/* this host's boots take 300 ms */
} mock;

int __wrap_guest_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
		     struct guest_outcome *out);
bool __wrap_guest_conn_alive(struct guest_conn *gc);

int __wrap_guest_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
		     struct guest_outcome *out)
{
	struct strbuf text = STRBUF_INIT;
	int err;

	(void)timeout_s;
	__atomic_fetch_add(&mock.boots[gc->id], 1, __ATOMIC_SEQ_CST);
	if (!mock.fail_fast && spec->cancel)
		mock.cancel_without_fail_fast = true;
	/* The hold_cpu boot ends once another is running, whatever the threads' pace. */
	for (int i = 0; mock.hold_cpu && strcmp(spec->cpu->spec, mock.hold_cpu) == 0 && i < 500 &&
			!__atomic_load_n(&mock.holding, __ATOMIC_SEQ_CST); i++)
		usleep(10000);
	/* As domain_wait() does: a boot still running ends when its run stops early. */
	if (mock.hold_cpu && strcmp(spec->cpu->spec, mock.hold_cpu) != 0) {
		__atomic_fetch_add(&mock.holding, 1, __ATOMIC_SEQ_CST);
		for (int i = 0; i < 500 && spec->cancel && !atomic_load(spec->cancel); i++)
			usleep(10000);
		if (spec->cancel && atomic_load(spec->cancel)) {
			__atomic_fetch_add(&mock.cancels_seen, 1, __ATOMIC_SEQ_CST);
			*out = (struct guest_outcome){ .cancelled = true, .seconds = 1 };
			return 0;
		}
	}
	if (gc->id == mock.failing_host)
		return error_set(ERR_LIBVIRT, "cannot start domain '%s'", spec->name);
	usleep(gc == mock.slow ? 300000 : 20000);	/* long enough for every worker to take a group */
	const char *param = strstr(spec->cmdline, " fpubench_tests=");
	size_t len = param ? strcspn(param + 1, " ") : 0;
	if (mock.want_tests ? !param || len != strlen(mock.want_tests) ||
				      strncmp(param + 1, mock.want_tests, len) != 0
			    : param != NULL)
		mock.cmdline_names_tests = false;
	if ((err = file_read(mock.console ? mock.console : FIXTURE, &text)) == 0)
		err = file_write_atomic(spec->console, text.buf, text.len);
	strbuf_release(&text);
	*out = (struct guest_outcome){ .seconds = 1 };
	return err;
}

bool __wrap_guest_conn_alive(struct guest_conn *gc)
{
	return !mock.lost[gc->id];
}

static void count_cells(void *arg, const struct matrix_cell *cells, size_t ncells,
			size_t groups_done, size_t ngroups)
{
	(void)arg;
	(void)cells;
	assert_true(groups_done <= ngroups);
	mock.cells_reported += ncells;
}

struct fixture {
	char dir[64];
	struct guest_conn conns[NHOSTS];
	struct matrix_host hosts[NHOSTS];
	struct matrix_kernel kernels[2];
	struct cpu_setup setups[3];
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/fpubench-test-schedule.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	for (int h = 0; h < NHOSTS; h++) {
		f->conns[h].id = h;
		f->hosts[h] = (struct matrix_host){
			.conn = &f->conns[h], .uri = h ? "test:///b" : "test:///a", .jobs = 2,
		};
	}
	f->kernels[0] = (struct matrix_kernel){ .variant = "patched", .bzimage = "/k", .commit = "",
						.build_id = "1", .initrd = "/i" };
	f->kernels[1] = f->kernels[0];
	f->kernels[1].variant = "unpatched";
	/* FSAVE setups, as the console fixture says. */
	static const char *const specs[] = { "486", "pentium2,-fxsr", "pentium3:nofxsr" };
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(cpu_setup_parse(&f->setups[i], specs[i]), 0);
	memset(&mock, 0, sizeof(mock));
	mock.failing_host = -1;
	mock.cmdline_names_tests = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd[] = { "rm", "-rf", f->dir, NULL };

	for (size_t i = 0; i < 3; i++)
		cpu_setup_release(&f->setups[i]);
	if (fork() == 0)
		execvp(cmd[0], cmd), _exit(127);
	wait(NULL);
	free(f);
	return 0;
}

static struct matrix *run_chosen(struct fixture *f, size_t nhosts, const char *const *tests,
				size_t ntests)
{
	struct matrix_options o = {
		.hosts = f->hosts, .nhosts = nhosts, .run_id = "r", .round = 1,
		.run_dir = f->dir, .boot_timeout_s = 10, .on_boot = count_cells,
		.tests = tests, .ntests = ntests, .fail_fast = mock.fail_fast,
		.expects = mock.expects, .nexpects = mock.nexpects,
	};
	struct matrix *m;

	assert_int_equal(matrix_run(&o, f->kernels, 2, f->setups, 3, &m), 0);
	assert_int_equal(mock.cells_reported, m->ncells);
	assert_true(mock.cmdline_names_tests);
	return m;
}

static struct matrix *run(struct fixture *f, size_t nhosts)
{
	return run_chosen(f, nhosts, NULL, 0);
}

static size_t cells_on(const struct matrix *m, const char *uri, enum verdict status)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ncells; i++)
		n += strcmp(m->cells[i].host, uri) == 0 && m->cells[i].status == status;
	return n;
}

/* A 586 kernel is not booted on the 486: one skip cell says why, and it meets a pass. */
static void test_kernel_above_the_cpu_is_skipped(void **state)
{
	struct fixture *f = *state;

	f->kernels[1].min_family = 5;
	struct matrix *m = run(f, 1);
	size_t skips = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		if (c->kernel != &f->kernels[1] || strcmp(c->cpu->model, "486") != 0)
			continue;
		skips++;
		assert_string_equal(c->test, "boot");
		assert_int_equal(c->status, VERDICT_SKIP);
		assert_string_equal(c->reason, "kernel requires an i586 CPU, and '486' is an i486");
		assert_true(c->met);
	}
	assert_int_equal(skips, 1);
	/* Two kernels on three setups, less the one pair not booted. */
	assert_int_equal(mock.boots[0], 5);
	matrix_free(m);
}

/* The progress line counts the guests booted, and the (kernel, setup) pairs done of all. */
static void test_progress_counts_guests_and_pairs(void **state)
{
	struct fixture *f = *state;
	char line[256] = "", last[256] = "";
	FILE *err = tmpfile();
	int saved = dup(2);

	assert_non_null(err);
	f->kernels[1].min_family = 5;
	fflush(stderr);
	dup2(fileno(err), 2);
	struct matrix *m = run(f, 1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	while (fgets(line, sizeof(line), err))
		if (strncmp(line, "booting: ", 9) == 0)
			memcpy(last, line, sizeof(last));
	fclose(err);
	/* Five guests booted: two kernels on three setups, less the pair not booted. */
	assert_non_null(strstr(last, "booting: 5 guests booted, 6 of 6 kernel-setup pairs done, "));
	matrix_free(m);
}

static void test_boots_spread_over_hosts(void **state)
{
	struct fixture *f = *state;
	struct matrix *m = run(f, NHOSTS);

	assert_int_equal(mock.boots[0] + mock.boots[1], 6);
	assert_true(mock.boots[0] >= 1 && mock.boots[1] >= 1);
	assert_int_equal(cells_on(m, "test:///a", VERDICT_PASS) + cells_on(m, "test:///b", VERDICT_PASS),
			 m->ncells);
	assert_true(cells_on(m, "test:///a", VERDICT_PASS) > 0);
	assert_true(cells_on(m, "test:///b", VERDICT_PASS) > 0);
	matrix_free(m);
}

static void test_failed_boot_is_retried_on_another_host(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	mock.failing_host = 1;
	m = run(f, NHOSTS);
	/* Host b failed each pair it took once; host a booted all six. */
	assert_int_equal(mock.boots[0], 6);
	assert_true(mock.boots[1] >= 1);
	assert_int_equal(cells_on(m, "test:///a", VERDICT_PASS), m->ncells);
	matrix_free(m);
}

/* A lab (matrix_lab): its boots are the mock's, with a job; `lab_error` fails each. */
static struct {
	int boots;
	int error;	/* 0, ERR_LAB or ERR_LAB_JOB */
	bool boards_fail;	/* only a board's boots fail with `error` */
	char first_kernel[32];	/* the bzImage of its first boot */
} lab;

static int lab_boot(void *arg, const struct guest_spec *spec, double timeout_s,
		    struct guest_outcome *out, struct matrix_job *job)
{
	struct guest_conn none = { .id = 0 };

	(void)arg;
	if (__atomic_fetch_add(&lab.boots, 1, __ATOMIC_SEQ_CST) == 0)
		snprintf(lab.first_kernel, sizeof(lab.first_kernel), "%s", spec->kernel);
	job->id = xasprintf("%d", lab.boots);
	job->url = xasprintf("https://lava.example/scheduler/job/%s", spec->name);
	if (lab.error && (!lab.boards_fail || spec->cpu->board))
		return error_set(lab.error, "LAVA job '%s' failed", spec->name);
	/* The console as a libvirt guest gives it; the host counters are the mock's. */
	__atomic_fetch_sub(&mock.boots[0], 1, __ATOMIC_SEQ_CST);
	return __wrap_guest_run(&none, spec, timeout_s, out);
}

static const struct matrix_lab fake_lab = { .boot = lab_boot };

/* Host b is a lab: its cells name their job; the judge is the same. */
static void test_lab_cells_name_their_job(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	f->hosts[1] = (struct matrix_host){ .lab = &fake_lab, .uri = "lab here", .jobs = 2 };
	m = run(f, NHOSTS);
	assert_true(lab.boots >= 1);
	assert_int_equal(cells_on(m, "test:///a", VERDICT_PASS) + cells_on(m, "lab here", VERDICT_PASS),
			 m->ncells);
	for (size_t i = 0; i < m->ncells; i++) {
		bool on_lab = strcmp(m->cells[i].host, "lab here") == 0;
		assert_int_equal(on_lab, m->cells[i].job_url != NULL);
		assert_int_equal(on_lab, m->cells[i].job_id != NULL);
	}
	matrix_free(m);
}

/*
 * A lab takes first the pair expected to boot once, though a pair expected
 * to crash comes first in the matrix: each crash is one more of its slow
 * boots.  Libvirt takes the matrix in order.
 */
static void test_lab_takes_the_pairs_that_boot_once(void **state)
{
	struct fixture *f = *state;
	const struct expect_rule crash = { .variant = "patched", .fpu = EXPECT_FPU_FSAVE,
					   .test = "fpu_seed", .status = VERDICT_CRASH };
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	mock.expects = &crash;
	mock.nexpects = 1;
	f->kernels[1].bzimage = "/k-unpatched";
	f->hosts[1] = (struct matrix_host){ .lab = &fake_lab, .uri = "lab here", .jobs = 1 };
	m = run(f, NHOSTS);
	assert_true(lab.boots >= 1);
	assert_string_equal(lab.first_kernel, "/k-unpatched");
	assert_int_equal(m->ncells, 24);
	matrix_free(m);
}

/*
 * A lab that fails for its own sake is a host that failed: the pair goes to
 * libvirt, and so does every pair the lab would have taken next (each would
 * have waited as long for a device).
 */
static void test_lab_failure_is_retried_on_libvirt(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	lab.error = ERR_LAB;
	f->hosts[1] = (struct matrix_host){ .lab = &fake_lab, .uri = "lab here", .jobs = 1 };
	m = run(f, NHOSTS);
	assert_int_equal(lab.boots, 1);
	assert_int_equal(mock.boots[0], 6);
	assert_int_equal(cells_on(m, "test:///a", VERDICT_PASS), m->ncells);
	matrix_free(m);
}

/* A job the lab refuses is the job's fault, not the lab's: an error cell naming it, no retry. */
static void test_refused_job_is_an_error_cell(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	lab.error = ERR_LAB_JOB;
	f->hosts[0] = (struct matrix_host){ .lab = &fake_lab, .uri = "lab here", .jobs = 2 };
	f->hosts[1].jobs = 0;
	m = run(f, 1);
	assert_int_equal(lab.boots, 6);
	assert_int_equal(cells_on(m, "lab here", VERDICT_ERROR), 6);
	assert_int_equal(m->ncells, 6);
	assert_non_null(strstr(m->cells[0].reason, "failed"));
	assert_non_null(m->cells[0].job_url);
	matrix_free(m);
}

/* A lab that holds board "geode" (cpu setup "@geode"), which the fixture's third setup becomes. */
static const char *const geode[] = { "geode" };

static void use_board(struct fixture *f, bool fsave)
{
	cpu_setup_release(&f->setups[2]);
	assert_int_equal(cpu_setup_parse(&f->setups[2], "@geode"), 0);
	f->setups[2].board_fsave = fsave;
	f->hosts[1] = (struct matrix_host){ .lab = &fake_lab, .uri = "lab here", .jobs = 2,
					    .boards = geode, .nboards = 1 };
}

static size_t board_cells(const struct matrix *m, const char *host, enum verdict status)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ncells; i++)
		n += m->cells[i].cpu->board && strcmp(m->cells[i].host, host) == 0 &&
		     m->cells[i].status == status;
	return n;
}

/* A board boots only in the lab that holds it; libvirt takes QEMU setups alone. */
static void test_board_boots_only_in_its_lab(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	use_board(f, true);
	m = run(f, NHOSTS);
	assert_true(board_cells(m, "lab here", VERDICT_PASS) > 0);
	assert_int_equal(board_cells(m, "lab here", VERDICT_PASS) + board_cells(m, "test:///a", VERDICT_PASS),
			 board_cells(m, "lab here", VERDICT_PASS));
	/* Both kernels on the board went through the lab: at least its two boots. */
	assert_true(lab.boots >= 2);
	assert_int_equal(cells_on(m, "test:///a", VERDICT_PASS) + cells_on(m, "lab here", VERDICT_PASS),
			 m->ncells);
	matrix_free(m);
}

/* A board whose console reports another FPU path than it claims: error cells, as on libvirt. */
static void test_board_with_another_fpu_path_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	use_board(f, false);	/* it claims FXSAVE; the console says FSAVE */
	m = run(f, NHOSTS);
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		if (!c->cpu->board || c->status == VERDICT_SKIP)
			continue;
		assert_int_equal(c->status, VERDICT_ERROR);
		assert_non_null(strstr(c->reason, "should make the kernel use FXSAVE, it reported FSAVE"));
	}
	assert_true(board_cells(m, "lab here", VERDICT_ERROR) > 0);
	matrix_free(m);
}

/* A lab failing for its own sake retries a QEMU setup on libvirt, never a board. */
static void test_board_failure_is_not_retried_on_libvirt(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	lab.error = ERR_LAB;
	use_board(f, true);
	m = run(f, NHOSTS);
	assert_int_equal(board_cells(m, "lab here", VERDICT_ERROR), 2);
	assert_int_equal(board_cells(m, "test:///a", VERDICT_PASS), 0);
	assert_int_equal(mock.boots[0], 4);
	matrix_free(m);
}

/*
 * A board that no device of its lab takes tells nothing of the lab's other
 * devices: the lab still boots QEMU setups.  The lab takes the boards first
 * (the QEMU setups are expected to crash), and libvirt is slow, so QEMU pairs
 * are still waiting when the boards have failed.
 */
static void test_failed_board_leaves_the_lab_its_qemu_pairs(void **state)
{
	struct fixture *f = *state;
	const struct expect_rule crash[] = {
		{ .variant = "patched", .fpu = EXPECT_FPU_FSAVE, .test = "fpu_seed",
		  .status = VERDICT_CRASH },
		{ .variant = "unpatched", .fpu = EXPECT_FPU_FSAVE, .test = "fpu_seed",
		  .status = VERDICT_CRASH },
	};
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	lab.error = ERR_LAB;
	lab.boards_fail = true;
	use_board(f, false);	/* an FXSAVE board: no crash expected there */
	f->hosts[1].jobs = 1;
	f->hosts[0].jobs = 1;
	mock.slow = &f->conns[0];
	mock.expects = crash;
	mock.nexpects = 2;
	m = run(f, NHOSTS);
	assert_int_equal(board_cells(m, "lab here", VERDICT_ERROR), 2);
	assert_true(cells_on(m, "lab here", VERDICT_PASS) > 0);
	matrix_free(m);
}

/* No host of the run holds the board: its pairs are error cells, and nothing boots it. */
static void test_board_no_host_holds_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	memset(&lab, 0, sizeof(lab));
	use_board(f, true);
	f->hosts[1].nboards = 0;
	m = run(f, NHOSTS);
	assert_int_equal(board_cells(m, "none", VERDICT_ERROR), 2);
	for (size_t i = 0; i < m->ncells; i++)
		if (m->cells[i].cpu->board)
			assert_string_equal(m->cells[i].reason,
					    "no host or lab of this run boots board 'geode'");
	assert_int_equal(mock.boots[0] + lab.boots, 4);
	matrix_free(m);
}

static void test_lost_host_gives_its_work_away(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	mock.failing_host = 1;
	mock.lost[1] = true;
	m = run(f, NHOSTS);
	/* Each of b's two workers fails once, then b takes nothing more. */
	assert_true(mock.boots[1] >= 1 && mock.boots[1] <= 2);
	assert_int_equal(mock.boots[0], 6);
	assert_int_equal(cells_on(m, "test:///a", VERDICT_PASS), m->ncells);
	matrix_free(m);
}

static void test_losing_the_only_host_errors_every_cell(void **state)
{
	struct fixture *f = *state;
	struct matrix *m;

	mock.failing_host = 0;
	mock.lost[0] = true;
	m = run(f, 1);
	assert_int_equal(m->ncells, 6);
	for (size_t i = 0; i < m->ncells; i++) {
		assert_int_equal(m->cells[i].status, VERDICT_ERROR);
		assert_string_equal(m->cells[i].test, "boot");
	}
	assert_true(mock.boots[0] <= 2);
	matrix_free(m);
}

/*
 * The guests are told which tests to run, and a crash in the last of them
 * ends the group: a boot to resume after it would run none of them.
 */
static void test_chosen_tests_end_a_group_early(void **state)
{
	struct fixture *f = *state;
	static const char *const seed[] = { "fpu_seed" };
	static const char *const two[] = { "fpu_seed", "fpu_load" };
	struct matrix *m;

	mock.console = CRASH_FIXTURE;
	mock.want_tests = "fpubench_tests=fpu_seed";
	m = run_chosen(f, 1, seed, 1);
	assert_int_equal(mock.boots[0], 6);
	assert_int_equal(m->ncells, 6);
	for (size_t i = 0; i < m->ncells; i++) {
		assert_string_equal(m->cells[i].test, "fpu_seed");
		assert_int_equal(m->cells[i].status, VERDICT_CRASH);
	}
	matrix_free(m);

	/* fpu_load may come after the crash: each group boots again to look for it. */
	mock.boots[0] = 0;
	mock.cells_reported = 0;
	mock.want_tests = "fpubench_tests=fpu_seed,fpu_load";
	m = run_chosen(f, 1, two, 2);
	assert_true(mock.boots[0] >= 12);
	matrix_free(m);
}

/* The cells of the pair (kernel k, setup s), and how many of them are not_run. */
static size_t pair_cells(const struct fixture *f, const struct matrix *m, size_t k, size_t s,
			 size_t *not_run)
{
	size_t n = 0;

	*not_run = 0;
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		if (c->kernel != &f->kernels[k] || c->cpu != &f->setups[s])
			continue;
		n++;
		if (c->not_run) {
			assert_int_equal(c->status, VERDICT_SKIP);
			assert_false(c->met);
			assert_string_equal(c->test, "boot");
			assert_non_null(strstr(c->reason, "not run"));
			assert_string_equal(c->host, "none");	/* it never booted anywhere */
		}
		*not_run += c->not_run;
	}
	return n;
}

/* The decision: with fail_fast, a boot whose cells hold an unmet one stops the run. */
static void test_unmet_cell_stops_only_with_fail_fast(void **state)
{
	struct matrix_cell cells[2] = { { .met = true }, { .met = false } };
	struct matrix_options o = { .fail_fast = false };

	(void)state;
	assert_false(matrix_cells_stop(&o, cells, 2));
	o.fail_fast = true;
	assert_true(matrix_cells_stop(&o, cells, 2));
	assert_false(matrix_cells_stop(&o, cells, 1));
	assert_false(matrix_cells_stop(&o, cells, 0));
}

/*
 * One guest at a time: the first pair's crash (not met, nothing expected)
 * stops the run.  No other boot starts, not even the crashed pair's next
 * one; every pair gets a not_run cell, and the run is not "interrupted".
 */
static void test_fail_fast_boots_no_more(void **state)
{
	struct fixture *f = *state;
	size_t not_run;

	mock.console = CRASH_FIXTURE;
	mock.fail_fast = true;
	f->hosts[0].jobs = 1;
	struct matrix *m = run(f, 1);
	assert_int_equal(mock.boots[0], 1);
	assert_true(m->stopped_early);
	assert_false(m->interrupted);
	/* The crashed pair: its crash cell, and the tests after it not run. */
	assert_int_equal(pair_cells(f, m, 0, 0, &not_run), 2);
	assert_int_equal(not_run, 1);
	for (size_t k = 0; k < 2; k++)
		for (size_t s = k ? 0 : 1; s < 3; s++) {
			assert_int_equal(pair_cells(f, m, k, s, &not_run), 1);
			assert_int_equal(not_run, 1);
		}
	assert_int_equal(m->ncells, 7);
	matrix_free(m);
}

/* Without fail_fast the same crashes run every pair to its end, and no boot gets a cancel. */
static void test_without_fail_fast_every_pair_runs(void **state)
{
	struct fixture *f = *state;

	mock.console = CRASH_FIXTURE;
	f->hosts[0].jobs = 1;
	struct matrix *m = run(f, 1);
	assert_true(mock.boots[0] > 6);
	assert_false(m->stopped_early);
	assert_false(mock.cancel_without_fail_fast);
	for (size_t i = 0; i < m->ncells; i++)
		assert_false(m->cells[i].not_run);
	matrix_free(m);
}

/*
 * Two guests at once: the 486 crashes while the other pair's boot still
 * runs; that boot is cancelled and ends, and its pair is not run, with no
 * cell of the boot cut short.
 */
static void test_fail_fast_cancels_the_boots_running(void **state)
{
	struct fixture *f = *state;
	size_t not_run;

	mock.console = CRASH_FIXTURE;
	mock.fail_fast = true;
	mock.hold_cpu = "486";
	struct matrix *m = run(f, 1);
	assert_int_equal(mock.boots[0], 2);
	assert_int_equal(mock.cancels_seen, 1);
	assert_true(m->stopped_early);
	assert_int_equal(pair_cells(f, m, 0, 1, &not_run), 1);
	assert_int_equal(not_run, 1);
	assert_int_equal(m->ncells, 7);
	matrix_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_above_the_cpu_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress_counts_guests_and_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boots_spread_over_hosts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_boot_is_retried_on_another_host, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lost_host_gives_its_work_away, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lab_cells_name_their_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lab_takes_the_pairs_that_boot_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lab_failure_is_retried_on_libvirt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_job_is_an_error_cell, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_boots_only_in_its_lab, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_with_another_fpu_path_is_an_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_board_failure_is_not_retried_on_libvirt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_board_leaves_the_lab_its_qemu_pairs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_board_no_host_holds_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_losing_the_only_host_errors_every_cell, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_chosen_tests_end_a_group_early, setup, teardown),
		cmocka_unit_test(test_unmet_cell_stops_only_with_fail_fast),
		cmocka_unit_test_setup_teardown(test_fail_fast_boots_no_more, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_fail_fast_every_pair_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_fast_cancels_the_boots_running, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
