/*
 * lab_rest: a LAVA server's REST API v0.2, through libcurl and json-c:
 * submit a job (POST /api/v0.2/jobs/), poll it (GET .../jobs/ID/) until
 * it is Finished, fetch its log (GET .../jobs/ID/logs/, YAML, lava_log.h),
 * cancel it (GET .../jobs/ID/cancel/) when the bench is interrupted or
 * no device takes it in time.  The token goes in an "Authorization:
 * Token" header, never into a message.  The server's answers are
 * untrusted: bodies are capped at LAB_REST_BODY_MAX, JSON parsed with
 * json-c, strings made printable before they reach a message.
 *
 * Errors: ERR_LAB for what another place may do better (the server does
 * not answer or answers 5xx, no device took the job: the device type's
 * devices are offline or busy, the job Canceled with no log), ERR_LAB_JOB
 * for a job the server refuses (its message, e.g. a schema error).
 */
#ifndef FPUBENCH_LAB_REST_H
#define FPUBENCH_LAB_REST_H

#include "lib/strbuf.h"

#define LAB_REST_BODY_MAX (64u << 20)	/* a job log can be large; more is refused */
#define LAB_REST_QUEUE_S 300.0		/* how long a job may wait for a device */

struct lab_rest;

/*
 * Connects to the server at url (its version must answer); a job may wait
 * queue_s for a device (0: LAB_REST_QUEUE_S).  Copies what it keeps.
 */
int lab_rest_open(struct lab_rest **out, const char *lab, const char *url, const char *token,
		  double queue_s);

/*
 * Submits the job, waits for it (timeout_s and a minute once it runs, and
 * the queue time for a device), and fetches its log into `log`.  *id and
 * *url name the job (caller frees) as soon as it is submitted.  When *stop
 * becomes nonzero, the job is cancelled and 0 returned with an empty log.
 */
int lab_rest_run(struct lab_rest *r, const char *job_yaml, double timeout_s,
		 const volatile int *stop, struct strbuf *log, char **id, char **url);

void lab_rest_free(struct lab_rest *r);

#endif
