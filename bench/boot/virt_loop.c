#include "virt_loop.h"

#include "lib/error.h"
#include "virt_log.h"

#include <pthread.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

static pthread_once_t loop_once = PTHREAD_ONCE_INIT;
static int loop_error;

const char *virt_loop_last_error(void)
{
	const char *m = virGetLastErrorMessage();

	return m ? m : "unknown libvirt error";
}

static void virt_error_quiet(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

void virt_loop_init(void)
{
	virt_log_start();
	virSetErrorFunc(NULL, virt_error_quiet);
}

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		virEventRunDefaultImpl();
	return NULL;
}

static void event_loop_start(void)
{
	pthread_t thread;

	virt_loop_init();
	if (virEventRegisterDefaultImpl() < 0 ||
	    pthread_create(&thread, NULL, event_loop, NULL) != 0) {
		loop_error = 1;
		return;
	}
	pthread_detach(thread);
}

int virt_loop_start(void)
{
	pthread_once(&loop_once, event_loop_start);
	if (loop_error)
		return error_set(ERR_LIBVIRT, "cannot start the libvirt event loop: %s",
				 virt_loop_last_error());
	return 0;
}
