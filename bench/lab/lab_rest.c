#include "lab_rest.h"

#include "boot/errors.h"
#include "judge/console.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/strbuf.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define POLL_S 1.0
#define HTTP_TIMEOUT_S 30L

struct lab_rest {
	char *lab;
	char *api;		/* URL/api/v0.2 */
	char *site;		/* URL, without its last '/' */
	char *auth;		/* the Authorization header */
	double queue_s;
};

/* One answer: its status and its body, capped. */
struct answer {
	long status;
	struct strbuf body;
	bool too_big;
};

static size_t body_add(char *data, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;

	if (a->body.len + size * n > LAB_REST_BODY_MAX) {
		a->too_big = true;
		return 0;
	}
	strbuf_add(&a->body, data, size * n);
	return size * n;
}

/* GET (post NULL) or POST a JSON body; ERR_LAB when there is no HTTP answer. */
static int request(struct lab_rest *r, const char *path, const char *post, struct answer *a)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = NULL;
	char *url = xasprintf("%s%s", r->api, path);
	CURLcode rc = CURLE_FAILED_INIT;

	*a = (struct answer){ .body = STRBUF_INIT };
	if (curl) {
		headers = curl_slist_append(headers, r->auth);
		headers = curl_slist_append(headers, "Accept: application/json");
		if (post)
			headers = curl_slist_append(headers, "Content-Type: application/json");
		curl_easy_setopt(curl, CURLOPT_URL, url);
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, body_add);
		curl_easy_setopt(curl, CURLOPT_WRITEDATA, a);
		curl_easy_setopt(curl, CURLOPT_TIMEOUT, HTTP_TIMEOUT_S);
		curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
		if (post)
			curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post);
		rc = curl_easy_perform(curl);
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &a->status);
	}
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	free(url);
	if (rc != CURLE_OK)
		return error_set(ERR_LAB, "lab '%s' does not answer at '%s%s': %s", r->lab, r->api,
				 path, a->too_big ? "answer too large" : curl_easy_strerror(rc));
	if (a->status >= 500)
		return error_set(ERR_LAB, "lab '%s' answered %ld at '%s%s'", r->lab, a->status,
				 r->api, path);
	return 0;
}

/* The answer's JSON object, or NULL. */
static struct json_object *answer_json(const struct answer *a)
{
	struct json_object *o = json_tokener_parse(a->body.len ? a->body.buf : "");

	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A string of the object made printable for messages (caller frees), or NULL. */
static char *json_text(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	const char *s = json_object_get_string(v);
	return s ? console_text_dup(s, strlen(s)) : NULL;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_start(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

int lab_rest_open(struct lab_rest **out, const char *lab, const char *url, const char *token,
		  double queue_s)
{
	struct lab_rest *r = xcalloc(1, sizeof(*r));
	size_t n = strlen(url);
	struct answer a;
	int err;

	pthread_once(&curl_once, curl_start);
	while (n && url[n - 1] == '/')
		n--;
	r->lab = xstrdup(lab);
	r->site = xstrndup(url, n);
	r->api = xasprintf("%s/api/v0.2", r->site);
	r->auth = xasprintf("Authorization: Token %s", token);
	r->queue_s = queue_s > 0 ? queue_s : LAB_REST_QUEUE_S;
	if ((err = request(r, "/system/version/", NULL, &a)) == 0 && a.status != 200)
		err = error_set(ERR_LAB, "lab '%s' answered %ld for its version at '%s'", lab, a.status,
				r->api);
	strbuf_release(&a.body);
	if (err) {
		lab_rest_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static int submit(struct lab_rest *r, const char *job_yaml, long *id)
{
	struct json_object *req = json_object_new_object(), *res, *ids;
	struct answer a;
	int err;

	json_object_object_add(req, "definition", json_object_new_string(job_yaml));
	err = request(r, "/jobs/", json_object_to_json_string(req), &a);
	json_object_put(req);
	if (err < 0)
		goto out;
	res = answer_json(&a);
	if (a.status == 201 && res && json_object_object_get_ex(res, "job_ids", &ids) &&
	    json_object_is_type(ids, json_type_array) && json_object_array_length(ids) == 1) {
		*id = json_object_get_int64(json_object_array_get_idx(ids, 0));
	} else {
		char *why = json_text(res, "message");
		/* 4xx: LAVA's word on the job (a schema error); our fault or the job's, not the lab's. */
		err = error_set(a.status >= 400 && a.status < 500 ? ERR_LAB_JOB : ERR_LAB,
				"lab '%s' refused the job (%ld): %s", r->lab, a.status,
				why ? why : "no message");
		free(why);
	}
	json_object_put(res);
out:
	strbuf_release(&a.body);
	return err;
}

/* The job's state and health ("Running", "Complete"), or an error. */
static int job_state(struct lab_rest *r, long id, char **state, char **health)
{
	char *path = xasprintf("/jobs/%ld/", id);
	struct answer a;
	int err = request(r, path, NULL, &a);

	if (!err) {
		struct json_object *o = answer_json(&a);
		*state = json_text(o, "state");
		*health = json_text(o, "health");
		if (a.status != 200 || !*state)
			err = error_set(ERR_LAB, "lab '%s' gave no state for job %ld (%ld)", r->lab, id,
					a.status);
		json_object_put(o);
	}
	strbuf_release(&a.body);
	free(path);
	return err;
}

/* LAVA's v0.2 cancels on a GET. */
static void cancel(struct lab_rest *r, long id)
{
	char *path = xasprintf("/jobs/%ld/cancel/", id);
	struct answer a;

	if (request(r, path, NULL, &a) < 0)
		error_clear();
	strbuf_release(&a.body);
	free(path);
}

/* Polls until the job is Finished; ERR_LAB when no device takes it or it outlives its time. */
static int wait_job(struct lab_rest *r, long id, double timeout_s, const volatile int *stop)
{
	double start = clock_seconds(), running = 0;
	int err = 0;

	while (!err && !*stop) {
		char *state = NULL, *health = NULL;
		double now = clock_seconds();

		if ((err = job_state(r, id, &state, &health)) == 0) {
			bool queued = strcmp(state, "Submitted") == 0 || strcmp(state, "Scheduling") == 0;
			if (strcmp(state, "Finished") == 0) {
				free(state);
				free(health);
				return 0;
			}
			if (!queued && !running)
				running = now;
			if (queued && now - start > r->queue_s)
				err = error_set(ERR_LAB, "no device of lab '%s' took job %ld in %.0f s",
						r->lab, id, r->queue_s);
			else if (running && now - running > timeout_s + 60)
				err = error_set(ERR_LAB, "job %ld of lab '%s' outlived its %.0f s", id,
						r->lab, timeout_s);
		}
		free(state);
		free(health);
		if (!err)
			clock_sleep(POLL_S);
	}
	cancel(r, id);
	return err;
}

int lab_rest_run(struct lab_rest *r, const char *job_yaml, double timeout_s,
		 const volatile int *stop, struct strbuf *log, char **id_out, char **url)
{
	long id = 0;
	int err;

	if ((err = submit(r, job_yaml, &id)) < 0)
		return err;
	*id_out = xasprintf("%ld", id);
	*url = xasprintf("%s/scheduler/job/%ld", r->site, id);
	if ((err = wait_job(r, id, timeout_s, stop)) < 0 || *stop)
		return err;
	char *path = xasprintf("/jobs/%ld/logs/", id);
	struct answer a;

	if ((err = request(r, path, NULL, &a)) == 0 && a.status != 200)
		err = error_set(ERR_LAB, "lab '%s' gave no log for job %ld (%ld)", r->lab, id, a.status);
	if (!err)
		strbuf_add(log, a.body.buf, a.body.len);
	strbuf_release(&a.body);
	free(path);
	return err;
}

void lab_rest_free(struct lab_rest *r)
{
	if (!r)
		return;
	free(r->lab);
	free(r->api);
	free(r->site);
	free(r->auth);
	free(r);
}
