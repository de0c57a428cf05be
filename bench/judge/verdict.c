#include "verdict.h"

#include <string.h>

static const char *const names[VERDICT_COUNT] = {
	[VERDICT_PASS] = "pass",
	[VERDICT_SKIP] = "skip",
	[VERDICT_FAIL] = "fail",
	[VERDICT_TIMEOUT] = "timeout",
	[VERDICT_CRASH] = "crash",
	[VERDICT_ERROR] = "error",
};

const char *verdict_name(enum verdict v)
{
	if ((unsigned)v >= VERDICT_COUNT)
		return "invalid";
	return names[v];
}

int verdict_parse(const char *name, enum verdict *out)
{
	for (int v = 0; v < VERDICT_COUNT; v++) {
		if (strcmp(name, names[v]) == 0) {
			*out = (enum verdict)v;
			return 0;
		}
	}
	return -1;
}

bool verdict_meets(enum verdict observed, enum verdict expected)
{
	return observed == expected ||
	       (expected == VERDICT_PASS && observed == VERDICT_SKIP);
}
