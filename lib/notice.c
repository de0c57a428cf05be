#include "notice.h"

#include "strbuf.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static notice_sink_fn *sink;
static void *sink_ctx;

void notice_set_sink(notice_sink_fn *fn, void *ctx)
{
	pthread_mutex_lock(&lock);
	sink = fn;
	sink_ctx = ctx;
	pthread_mutex_unlock(&lock);
}

void notice(const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&lock);
	if (sink)
		sink(msg.buf, sink_ctx);
	else
		fprintf(stderr, "fpubench: %s\n", msg.buf);
	pthread_mutex_unlock(&lock);
	strbuf_release(&msg);
}
