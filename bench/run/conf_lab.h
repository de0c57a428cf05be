/*
 * conf_lab: the [lab NAME] and [board NAME] sections of fpubench.conf
 * (conf.h reads the file and hands each key of these sections here), and
 * a lab's token.
 *
 *   [lab NAME]    engine = lava-run (the dispatcher on this machine, no
 *                 server) or rest (a LAVA server's REST API v0.2);
 *                 url = URL (rest: the server, http:// or https://);
 *                 token-file = PATH or token-env = VARIABLE (rest: where
 *                 the API token is; never in the config itself);
 *                 jobs = N (1..1024, jobs at once; default 1);
 *                 artefacts = DIR (where the bench copies each kernel and
 *                 initramfs for the lab to fetch; default: the run's own
 *                 directory) and artefacts-url = PREFIX (the URL of DIR as
 *                 the lab sees it; default file://DIR, for a dispatcher
 *                 on this machine); device-type = TYPE (what runs the QEMU
 *                 setups; default qemu); tags = TAG... (for their jobs);
 *                 board = NAME, repeatable (a [board NAME] of this lab);
 *                 queue-timeout = SECONDS (rest: how long a job may wait
 *                 for a device before it is cancelled and its boot tried
 *                 elsewhere; default LAB_REST_QUEUE_S, 300)
 *   [board NAME]  device-type = TYPE, boot = METHOD (LAVA's boot method,
 *                 LAVA_BOARD_BOOTS), fpu = fsave or fxsave (the path its
 *                 kernel must report), console = DEVICE,BAUD (default
 *                 CONF_BOARD_CONSOLE), tags = TAG...; a setup "@NAME"
 *                 of the run, booted only by a lab that lists it
 *
 * Each function returns 0 or a message for conf.c to put after the file
 * and line (caller frees); a section's keys are checked whole by
 * conf_lab_check() and conf_board_check().  struct conf_lab and struct
 * conf_board own their strings.
 */
#ifndef FPUBENCH_CONF_LAB_H
#define FPUBENCH_CONF_LAB_H

#include "judge/expect.h"
#include "lab/lava_job.h"

#include <stdbool.h>
#include <stddef.h>

enum conf_lab_engine {
	CONF_LAB_UNSET,
	CONF_LAB_LAVA_RUN,
	CONF_LAB_REST,
};

struct conf_lab {
	char *name;
	enum conf_lab_engine engine;
	char *url;
	char *token_file;
	char *token_env;
	int jobs;		/* 0: one */
	char *artefacts;
	char *artefacts_url;
	char *device_type;	/* NULL: qemu */
	char **tags;
	size_t ntags;
	char **boards;
	size_t nboards;
	double queue_s;		/* 0: the default */
	int line;		/* of its header, for messages about it */
};

struct conf_board {
	char *name;
	char *device_type;
	char *boot;
	enum expect_fpu fpu;	/* EXPECT_FPU_ANY: not set */
	char *console;		/* NULL: ttyS0,115200 */
	char **tags;
	size_t ntags;
	int line;
};

/* A board's console unless it says. */
#define CONF_BOARD_CONSOLE "ttyS0,115200"

/* The lab that `--lab local` names without a config: lava-run, defaults. */
#define CONF_LAB_LOCAL "local"

/* Whether the [lab] key names a path, which conf.c resolves as its own before conf_lab_set(). */
bool conf_lab_key_is_path(const char *key);

/* A jobs count, 1..CONF_JOBS_MAX, as [run], [host] and [lab] take it. */
#define CONF_JOBS_MAX 1024
bool conf_jobs_parse(const char *value, int *out);

/*
 * Sets `key` of the section to value.  Returns NULL, or the message of a
 * bad key or value ("unknown key 'x' in [lab l]").
 */
char *conf_lab_set(struct conf_lab *lab, const char *key, const char *value);
char *conf_board_set(struct conf_board *b, const char *key, const char *value);

/* What a section needs once all its keys are read, or a message. */
char *conf_lab_check(const struct conf_lab *lab);
char *conf_board_check(const struct conf_board *b);

struct conf;

/* Adds an empty [lab NAME] (or [board NAME]) whose header is on `line` to the config. */
void conf_lab_section_add(struct conf *c, bool board, const char *name, int line);

/* The lab or board of that name, or NULL. */
const struct conf_lab *conf_lab_find(const struct conf_lab *labs, size_t n, const char *name);
const struct conf_board *conf_board_find(const struct conf_board *boards, size_t n,
					 const char *name);

/* The board as its jobs name it; borrows b's strings. */
struct lava_board conf_board_lava(const struct conf_board *b);

/*
 * Whether every board a lab names has its section, only a rest lab names
 * boards, and every board is in a lab; else the message, *line the
 * lab's or the board's.
 */
char *conf_labs_check_boards(const struct conf_lab *labs, size_t nlabs,
			     const struct conf_board *boards, size_t nboards, int *line);

/*
 * Reads the lab's token from its token-file or token-env into *token
 * (caller frees; trailing white space dropped).  ERR_NOTFOUND names where
 * it looked, never the token: "no token for lab 'l': $LAVA_TOKEN is not
 * set".
 */
int conf_lab_token(const struct conf_lab *lab, char **token);

void conf_lab_release(struct conf_lab *lab);
void conf_board_release(struct conf_board *b);

#endif
