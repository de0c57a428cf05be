/*
 * runtime: where fpubench's own files and the user's are, found at run
 * time rather than compiled in.
 *
 * fpubench's data (the guest payload, the patch series, the default
 * config, the test module's sources) is found from the executable's own
 * path (/proc/self/exe), as git's RUNTIME_PREFIX finds its files, in one
 * of two layouts:
 *
 *   installed    BINDIR/fpubench, and DATADIR/fpubench/ with guest/,
 *                patches/, kmod/ and fpubench.conf
 *   build tree   BUILD/obj/fpubench, and the source tree it was built
 *                from (patches/, guest-tests/kmod/, bench/fpubench.conf)
 *                with the guest in BUILD/guest
 *
 * Only the paths from the executable's directory to these are compiled in
 * (RUNTIME_INSTALL_DATA, RUNTIME_BUILD_SRC, RUNTIME_BUILD_GUEST, from the
 * Makefile), so an install under a DESTDIR or moved elsewhere still finds
 * its data.  A layout is the one whose default config is there, the
 * installed one first.
 *
 * The user's files follow the XDG base directories: results and the
 * history in $XDG_DATA_HOME/fpubench (~/.local/share/fpubench), kernel
 * trees and builds in $FPUBENCH_CACHE, $XDG_CACHE_HOME/fpubench or
 * ~/.cache/fpubench.
 */
#ifndef FPUBENCH_RUNTIME_H
#define FPUBENCH_RUNTIME_H

enum runtime_data {
	RUNTIME_GUEST,		/* the guest payload: init and tests.list */
	RUNTIME_SERIES,		/* the patch series: series, variants, fpu.config */
	RUNTIME_CONF,		/* the default fpubench.conf */
	RUNTIME_KMOD,		/* the test module's sources, built in each kernel */
};

/*
 * The path of `what` beside this executable (caller frees).  ERR_NOTFOUND
 * names the executable when neither layout is found beside it.
 */
int runtime_data_path(char **out, enum runtime_data what);

/* runtime_data_path() for an executable at `exe` (an absolute path). */
int runtime_data_path_for(char **out, const char *exe, enum runtime_data what);

enum runtime_user {
	RUNTIME_USER_DATA,	/* results and the history */
	RUNTIME_USER_CACHE,	/* kernel trees, builds, the libvirt root */
};

/* The user's directory for `which` (caller frees); it may not exist yet. */
char *runtime_user_dir(enum runtime_user which);

#endif
