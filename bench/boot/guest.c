#include "guest.h"
#include "domain_xml.h"

#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/notice.h"
#include "lib/str.h"
#include "stage.h"
#include "virt_log.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#define EMBED_PREFIX "qemu:///embed"
#define REAP_INTERVAL_MS 50
#define WAIT_SLICE_S 0.25	/* also how often the console's size is checked */
#define POLL_ACTIVE_S 1.0	/* a safety net in case an event is lost */
#define DESTROY_EVENT_WAIT_S 2.0
#define QEMU_END_WAIT_MS 2000	/* SIGKILL to reaped: the kernel frees qemu's memory */
/*
 * A guest keeps a core only half busy: libvirt's start handshake and the
 * 200 ms it sleeps in every destroy leave it idle (a crash boot lives 0.92 s
 * for 0.45 s of qemu CPU).  On 2 cores, 4 guests took the warm matrix from
 * 18.1 s to 15.8 s (medians of 3); 3 guests did as well (bench/OPTIMISATIONS.md).
 */
#define GUESTS_PER_CORE 2

/*
 * The embedded driver's settings that work without a daemon: without
 * stdio_handler "file" a start fails connecting to virtlogd's socket;
 * without the rest qemu runs as libvirt-qemu, files are chowned and cgroups
 * are left behind (libvirt 9.0, Debian 12).
 */
static const char embed_qemu_conf[] =
	"# written by fpubench\n"
	"stdio_handler = \"file\"\n"
	"user = \"root\"\n"
	"group = \"root\"\n"
	"dynamic_ownership = 0\n"
	"remember_owner = 0\n"
	"security_driver = \"none\"\n"
	"cgroup_controllers = [ ]\n"
	"namespaces = [ ]\n";

struct waiter {
	const char *name;
	int qemu;	/* pidfd of the domain's qemu, our child; or -1 */
	bool stopped;
	struct waiter *next;
};

struct guest_conn {
	virConnectPtr conn;
	int callback_id;
	unsigned create_flags;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* signalled when a waited-for domain stops */
	struct waiter *waiters;
	struct stage *stage;	/* or NULL: the host shares our filesystem */
	char *state_dir;	/* embedded root's run/qemu, where qemu pids are; or NULL */
};

static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t reaping;	/* set once the bench is a subreaper */
static pthread_once_t loop_once = PTHREAD_ONCE_INIT;
static int loop_error;

static const char *virt_message(void)
{
	const char *m = virGetLastErrorMessage();

	return m ? m : "unknown libvirt error";
}

/* libvirt prints every error to stderr by default; the bench reports its own. */
static void virt_error_quiet(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

/*
 * Reaps zombie children whose name is qemu-system*: the orphaned qemu
 * processes.  Other children belong to libvirt, which waits for them itself.
 */
static void reap_qemu_zombies(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	pid_t self = getpid();

	if (!proc)
		return;
	while ((de = readdir(proc))) {
		char path[300], buf[512], comm[64], state;
		int ppid;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* comm is in parentheses and may hold spaces: parse from the last ')'. */
		char *open = strchr(buf, '('), *close = strrchr(buf, ')');
		if (!open || !close || close - open - 1 >= (long)sizeof(comm))
			continue;
		memcpy(comm, open + 1, (size_t)(close - open - 1));
		comm[close - open - 1] = '\0';
		if (sscanf(close + 1, " %c %d", &state, &ppid) != 2)
			continue;
		if (state == 'Z' && ppid == self && strncmp(comm, "qemu-system", 11) == 0)
			waitpid(atoi(de->d_name), NULL, WNOHANG);
	}
	closedir(proc);
}

static void reap_timer(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
	if (reaping)
		reap_qemu_zombies();
}

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		virEventRunDefaultImpl();
	return NULL;
}

/* One event loop for the process, started before the first connection. */
static void event_loop_start(void)
{
	pthread_t thread;

	virt_log_start();
	virSetErrorFunc(NULL, virt_error_quiet);
	if (virEventRegisterDefaultImpl() < 0 ||
	    virEventAddTimeout(REAP_INTERVAL_MS, reap_timer, NULL, NULL) < 0 ||
	    pthread_create(&thread, NULL, event_loop, NULL) != 0) {
		loop_error = 1;
		return;
	}
	pthread_detach(thread);
}

char *guest_embed_uri(const char *root)
{
	return xasprintf(EMBED_PREFIX "?root=%s", root);
}

/* The root= value of an embedded URI, or NULL. */
static char *embed_root(const char *uri)
{
	const char *root = strstr(uri, "root=");

	if (strncmp(uri, EMBED_PREFIX, strlen(EMBED_PREFIX)) != 0 || !root)
		return NULL;
	root += 5;
	return xstrndup(root, strcspn(root, "&"));
}

/* Whether process pid is the qemu of domain name (pids are reused). */
static bool is_qemu_of(pid_t pid, const char *name)
{
	char *path = xasprintf("/proc/%d/cmdline", (int)pid);
	char *want = xasprintf("guest=%s", name);
	struct strbuf cmdline = STRBUF_INIT;
	bool found = false;

	if (file_read(path, &cmdline) == 0)
		for (size_t at = 0; at < cmdline.len && !found; at += strlen(cmdline.buf + at) + 1) {
			const char *arg = cmdline.buf + at;
			size_t n = strlen(want);
			found = strncmp(arg, want, n) == 0 && (arg[n] == ',' || arg[n] == '\0');
		}
	error_clear();
	strbuf_release(&cmdline);
	free(want);
	free(path);
	return found;
}

/* The pid in libvirt's pid file "NAME.pid" in dir, or 0. */
static pid_t state_pid_read(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s.pid", dir, name);
	struct strbuf text = STRBUF_INIT;
	pid_t pid = 0;
	char *end;
	long n;

	if (file_read(path, &text) == 0) {
		n = strtol(text.buf, &end, 10);
		if (end != text.buf && n > 1 && n <= INT_MAX)
			pid = (pid_t)n;
	}
	error_clear();
	strbuf_release(&text);
	free(path);
	return pid;
}

/* Kills the qemu that state file "NAME.pid" in dir names, if it still runs. */
static void kill_stale_qemu(const char *dir, const char *file)
{
	char *name = xstrndup(file, strlen(file) - strlen(".pid"));
	pid_t pid = state_pid_read(dir, name);

	if (pid && is_qemu_of(pid, name)) {
		notice("killing qemu %d of domain '%s' left by an earlier run",
			(int)pid, name);
		kill(pid, SIGKILL);
	}
	free(name);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int guest_embed_scrub(const char *root)
{
	char *dir = xasprintf("%s/run/qemu", root);
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d) {
		if (errno != ENOENT)
			err = error_set_errno(ERR_CACHE, "cannot read libvirt state '%s'", dir);
		goto out;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, GUEST_NAME_PREFIX, strlen(GUEST_NAME_PREFIX)) != 0)
			continue;
		if (has_suffix(e->d_name, ".pid"))
			kill_stale_qemu(dir, e->d_name);
		if (has_suffix(e->d_name, ".pid") || has_suffix(e->d_name, ".xml") ||
		    has_suffix(e->d_name, ".xml.new")) {
			if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT) {
				err = error_set_errno(ERR_CACHE, "cannot remove libvirt state '%s/%s'",
						      dir, e->d_name);
				break;
			}
		}
	}
	closedir(d);
out:
	free(dir);
	return err;
}

static int embed_prepare(const char *root)
{
	char *etc = xasprintf("%s/etc", root);
	char *conf = xasprintf("%s/qemu.conf", etc);
	int err;

	if ((err = dir_create(etc, ERR_CACHE)) < 0 || (err = guest_embed_scrub(root)) < 0)
		goto out;
	/* Also for a root made before the bench made it private. */
	if (chmod(root, 0700) < 0) {
		err = error_set_errno(ERR_CACHE, "cannot make libvirt root '%s' private", root);
		goto out;
	}
	if (!file_holds(conf, embed_qemu_conf))
		err = file_write_atomic(conf, embed_qemu_conf, strlen(embed_qemu_conf));
out:
	free(etc);
	free(conf);
	return err;
}

/* Whether the console log grew past the cap; a missing log has not. */
static bool console_flooded(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > (off_t)CONSOLE_MAX;
}

/*
 * A pidfd for the qemu of domain name, read from libvirt's pid file, if
 * that qemu is our child (we are its subreaper); or -1.
 */
static int qemu_pidfd_open(const struct guest_conn *gc, const char *name)
{
	pid_t pid = state_pid_read(gc->state_dir, name);
	int fd = pid ? pidfd_open(pid, 0) : -1;

	/* Checked after opening: from here on the pidfd cannot name a reused pid. */
	if (fd >= 0 && !is_qemu_of(pid, name)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Ends and reaps a qemu whose guest has shut down.  libvirt's own stop
 * sleeps 200 ms in virProcessKillPainfully when qemu closes its monitor
 * before it is reaped, and its one driver worker does that for each guest
 * in turn.  This is a race with that worker: when the reap here comes
 * first, libvirt finds the pid gone and skips the sleep (a cell 1.20 ->
 * 1.03 times plain qemu, bench/OPTIMISATIONS.md); when it comes later,
 * libvirt sleeps as before.  The guest has powered off and its console
 * file is written, so killing it loses nothing.
 */
static void qemu_end(int pidfd)
{
	struct pollfd exited = { .fd = pidfd, .events = POLLIN };
	siginfo_t info;

	if (pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0)
		return;
	if (poll(&exited, 1, QEMU_END_WAIT_MS) == 1)
		waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG);
}

static int lifecycle_event(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			   void *opaque)
{
	struct guest_conn *gc = opaque;
	const char *name = virDomainGetName(dom);

	(void)conn;
	(void)detail;
	if ((event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_SHUTDOWN) || !name)
		return 0;
	pthread_mutex_lock(&gc->lock);
	for (struct waiter *w = gc->waiters; w; w = w->next) {
		if (strcmp(w->name, name) != 0)
			continue;
		if (event == VIR_DOMAIN_EVENT_STOPPED)
			w->stopped = true;
		else if (w->qemu >= 0)
			qemu_end(w->qemu);
	}
	pthread_cond_broadcast(&gc->cond);
	pthread_mutex_unlock(&gc->lock);
	return 0;
}

/* How long the embedded driver waits for a bench that is exiting to free its root. */
#define EMBED_PIDFILE_WAIT_S 30.0

int guest_conn_open(struct guest_conn **out, const char *uri)
{
	struct guest_conn *gc = xcalloc(1, sizeof(*gc));
	pthread_condattr_t attr;
	char *root = embed_root(uri);
	int err = 0;

	gc->callback_id = -1;
	pthread_mutex_init(&gc->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&gc->cond, &attr);
	pthread_condattr_destroy(&attr);

	if (root) {
		if ((err = embed_prepare(root)) < 0)
			goto fail;
		/*
		 * qemu is reparented to us instead of PID 1, which on some
		 * hosts reaps orphans only every ~1.3 s; libvirt waits for the
		 * pid to vanish, so that wait was 1.2-1.8 s of every guest.
		 */
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) {
			reaping = 1;
			gc->state_dir = xasprintf("%s/run/qemu", root);
		}
	}
	pthread_once(&loop_once, event_loop_start);
	if (loop_error) {
		err = error_set(ERR_LIBVIRT, "cannot start the libvirt event loop: %s", virt_message());
		goto fail;
	}
	gc->conn = virConnectOpen(uri);
	/*
	 * The root's driver.pid is locked by whichever process runs the
	 * embedded driver, until that process exits.  The cache lock we hold
	 * says no other bench uses the root, so a holder is one on its way
	 * out: it dropped the cache lock and has not exited yet.  Wait for it.
	 */
	for (double waited = 0; root && !gc->conn && !interrupted && waited < EMBED_PIDFILE_WAIT_S &&
	     strstr(virt_message(), "pid file"); waited += 0.1) {
		clock_sleep(0.1);
		gc->conn = virConnectOpen(uri);
	}
	if (!gc->conn) {
		err = error_set(ERR_LIBVIRT, "cannot connect to libvirt at '%s': %s", uri, virt_message());
		goto fail;
	}
	gc->callback_id = virConnectDomainEventRegisterAny(gc->conn, NULL,
							   VIR_DOMAIN_EVENT_ID_LIFECYCLE,
							   VIR_DOMAIN_EVENT_CALLBACK(lifecycle_event),
							   gc, NULL);
	if (gc->callback_id < 0) {
		err = error_set(ERR_LIBVIRT, "cannot watch domain events at '%s': %s", uri, virt_message());
		goto fail;
	}
	/*
	 * AUTODESTROY ends our guests when the connection drops.  libvirt 9.0's
	 * embedded driver and the test driver refuse it; with embed, stale
	 * domains are destroyed at the next start instead.
	 */
	const char *type = virConnectGetType(gc->conn);
	gc->create_flags = root || (type && strcmp(type, "TEST") == 0) ? 0
								       : VIR_DOMAIN_START_AUTODESTROY;
	free(root);
	*out = gc;
	return 0;
fail:
	free(root);
	guest_conn_free(gc);
	return err;
}

int guest_conn_stage(struct guest_conn *gc, const char *dir)
{
	return stage_open(&gc->stage, gc->conn, dir);
}

int guest_conn_capacity(struct guest_conn *gc, unsigned memory_mib)
{
	virNodeInfo info;
	unsigned long long free_bytes = virNodeGetFreeMemory(gc->conn);
	/* qemu's RSS peaked at about 60 MiB besides the guest's own memory (QEMU 7.2, TCG). */
	unsigned long long per_guest = ((unsigned long long)memory_mib + 64) << 20;
	int guests;

	if (virNodeGetInfo(gc->conn, &info) < 0) {
		error_clear();
		return 1;
	}
	guests = (info.cpus > 0 ? (int)info.cpus : 1) * GUESTS_PER_CORE;
	if (free_bytes && free_bytes / per_guest < (unsigned long long)guests)
		guests = (int)(free_bytes / per_guest);
	return guests > 0 ? guests : 1;
}

bool guest_conn_alive(struct guest_conn *gc)
{
	return virConnectIsAlive(gc->conn) == 1;
}

void guest_conn_free(struct guest_conn *gc)
{
	if (!gc)
		return;
	stage_free(gc->stage);
	if (gc->conn) {
		if (gc->callback_id >= 0)
			virConnectDomainEventDeregisterAny(gc->conn, gc->callback_id);
		virConnectClose(gc->conn);
	}
	pthread_cond_destroy(&gc->cond);
	pthread_mutex_destroy(&gc->lock);
	free(gc->state_dir);
	free(gc);
}

/*
 * The x86 feature names libvirt knows, from its CPU map (what it checks a
 * <feature name=...> against); none when the map is not on this machine.
 */
static size_t cpu_feature_names(char ***out)
{
	xmlDocPtr doc = xmlReadFile(GUEST_CPU_FEATURES_MAP, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
	size_t n = 0;

	*out = NULL;
	for (xmlNodePtr node = root ? root->children : NULL; node; node = node->next) {
		xmlChar *name;

		if (node->type != XML_ELEMENT_NODE || xmlStrcmp(node->name, BAD_CAST "feature") != 0 ||
		    !(name = xmlGetProp(node, BAD_CAST "name")))
			continue;
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = xstrdup((const char *)name);
		xmlFree(name);
	}
	xmlFreeDoc(doc);
	return n;
}

/* "unknown cpu model 'X' in setup 'S' (...)", with the nearest name if one is near. */
static int unknown_cpu_name(const char *what, const char *name, const struct cpu_setup *setup,
			    char *const *names, size_t n, const char *listed)
{
	const char *near = str_nearest(name, (const char *const *)names, n);

	if (near)
		return error_set(ERR_CPU, "unknown cpu %s '%s' in setup '%s' (did you mean '%s'?)",
				 what, name, setup->spec, near);
	return error_set(ERR_CPU, "unknown cpu %s '%s' in setup '%s' (%s)", what, name,
			 setup->spec, listed);
}

static int check_cpus(virConnectPtr conn, const struct cpu_setup *setups, size_t n)
{
	char **models = NULL, **features = NULL, listed[64];
	int nmodels = virConnectGetCPUModelNames(conn, "i686", &models, 0);
	size_t nfeatures = cpu_feature_names(&features);
	int err = 0;

	snprintf(listed, sizeof(listed), "libvirt lists %d i686 models", nmodels);
	for (size_t i = 0; i < n && !err; i++) {
		bool known = nmodels < 0;	/* the driver cannot list models: domain start will judge */

		for (int j = 0; j < nmodels && !known; j++)
			known = strcmp(models[j], setups[i].model) == 0;
		if (!known)
			err = unknown_cpu_name("model", setups[i].model, &setups[i], models,
					       (size_t)nmodels, listed);
		for (size_t f = 0; f < setups[i].nfeatures && !err && nfeatures; f++) {
			const char *name = setups[i].features[f].name;

			known = false;
			for (size_t j = 0; j < nfeatures && !known; j++)
				known = strcmp(features[j], name) == 0;
			if (!known)
				err = unknown_cpu_name("feature", name, &setups[i], features, nfeatures,
						       "not in " GUEST_CPU_FEATURES_MAP);
		}
	}
	for (int j = 0; j < nmodels; j++)
		free(models[j]);
	free(models);
	for (size_t j = 0; j < nfeatures; j++)
		free(features[j]);
	free(features);
	return err;
}

int guest_check_cpus(struct guest_conn *gc, const struct cpu_setup *setups, size_t n)
{
	return check_cpus(gc->conn, setups, n);
}

int guest_check_cpus_local(const struct cpu_setup *setups, size_t n)
{
	virConnectPtr conn;
	int err;

	virt_log_start();
	virSetErrorFunc(NULL, virt_error_quiet);
	/* libvirt's test driver lists models from the same CPU map as QEMU's, with no daemon. */
	if (!(conn = virConnectOpen("test:///default")))
		return error_set(ERR_LIBVIRT, "cannot open libvirt's test driver to check the cpu setups: %s",
				 virGetLastErrorMessage());
	err = check_cpus(conn, setups, n);
	virConnectClose(conn);
	return err;
}

static void waiter_remove(struct guest_conn *gc, struct waiter *w)
{
	pthread_mutex_lock(&gc->lock);
	for (struct waiter **p = &gc->waiters; *p; p = &(*p)->next) {
		if (*p == w) {
			*p = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&gc->lock);
}

static struct timespec monotonic_at(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	return ts;
}

static int guest_run_here(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
			  struct guest_outcome *out);

/*
 * On a host that does not share our filesystem, the kernel and initramfs
 * are staged there first and the console comes back after the guest.
 */
int guest_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
	      struct guest_outcome *out)
{
	struct guest_spec remote = *spec;
	char *kernel = NULL, *initrd = NULL, *console = NULL, *console_name = NULL;
	int err;

	if (!gc->stage)
		return guest_run_here(gc, spec, timeout_s, out);
	console_name = xasprintf("%s.log", spec->name);
	console = stage_path(gc->stage, console_name);
	if ((err = stage_put(gc->stage, spec->kernel, &kernel)) < 0 ||
	    (err = stage_put(gc->stage, spec->initrd, &initrd)) < 0)
		goto out;
	remote.kernel = kernel;
	remote.initrd = initrd;
	remote.console = console;
	if ((err = guest_run_here(gc, &remote, timeout_s, out)) == 0)
		err = stage_take(gc->stage, console_name, spec->console, CONSOLE_MAX + 1);
out:
	free(kernel);
	free(initrd);
	free(console);
	free(console_name);
	return err;
}

static int guest_run_here(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
			  struct guest_outcome *out)
{
	struct waiter w = { .name = spec->name, .qemu = -1 };
	char *xml = NULL;
	virDomainPtr dom;
	char *log = NULL;
	double start, deadline, next_poll;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if ((err = domain_xml_build(spec, &xml)) < 0)
		return err;

	/* Listen before starting: a guest can stop before virDomainCreateXML returns. */
	pthread_mutex_lock(&gc->lock);
	w.next = gc->waiters;
	gc->waiters = &w;
	pthread_mutex_unlock(&gc->lock);

	start = clock_seconds();
	dom = virDomainCreateXML(gc->conn, xml, gc->create_flags);
	if (!dom) {
		virErrorPtr e = virGetLastError();
		int code = e && e->domain == VIR_FROM_CPU ? ERR_CPU : ERR_LIBVIRT;

		log = virt_log_note();
		err = error_set(code, "cannot start domain '%s' (cpu '%s'): %s%s", spec->name,
				spec->cpu->spec, virt_message(), log);
		goto out;
	}

	deadline = start + timeout_s;
	next_poll = start + POLL_ACTIVE_S;
	int qemu = gc->state_dir ? qemu_pidfd_open(gc, spec->name) : -1;
	pthread_mutex_lock(&gc->lock);
	w.qemu = qemu;
	while (!w.stopped) {
		double now = clock_seconds();

		if (interrupted) {
			out->interrupted = true;
			break;
		}
		if (now >= deadline) {
			out->timed_out = true;
			break;
		}
		if (console_flooded(spec->console)) {
			out->flooded = true;
			break;
		}
		if (now >= next_poll) {
			pthread_mutex_unlock(&gc->lock);
			int active = virDomainIsActive(dom);
			bool lost = active < 0 && !guest_conn_alive(gc);
			pthread_mutex_lock(&gc->lock);
			if (active == 0)
				w.stopped = true;
			if (lost) {
				/* The host, not the kernel, failed: an error, to be retried elsewhere. */
				log = virt_log_note();
				err = error_set(ERR_LIBVIRT, "lost the connection to libvirt while '%s' ran%s",
						spec->name, log);
				break;
			}
			next_poll = now + POLL_ACTIVE_S;
			continue;
		}
		double until = now + WAIT_SLICE_S;
		struct timespec ts = monotonic_at(until < deadline ? until : deadline);
		pthread_cond_timedwait(&gc->cond, &gc->lock, &ts);
	}
	pthread_mutex_unlock(&gc->lock);

	if (out->timed_out || out->flooded || out->interrupted) {
		virDomainDestroy(dom);
		/* Take the stop event now, so it cannot reach a later guest of this name. */
		struct timespec ts = monotonic_at(clock_seconds() + DESTROY_EVENT_WAIT_S);
		pthread_mutex_lock(&gc->lock);
		while (!w.stopped && pthread_cond_timedwait(&gc->cond, &gc->lock, &ts) == 0)
			;
		pthread_mutex_unlock(&gc->lock);
	}
	out->seconds = clock_seconds() - start;
	virDomainFree(dom);
out:
	waiter_remove(gc, &w);
	if (w.qemu >= 0)
		close(w.qemu);
	free(xml);
	free(log);
	return err;
}

void guest_interrupt(void)
{
	interrupted = 1;
}
