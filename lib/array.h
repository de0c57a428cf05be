/*
 * array: ARRAY_SIZE(a), the number of elements of the array a.  Given a
 * pointer instead, it does not compile (as the kernel's does), since
 * sizeof(p) / sizeof(p[0]) would be a silent, wrong number.
 */
#ifndef FPUBENCH_ARRAY_H
#define FPUBENCH_ARRAY_H

#define ARRAY_MUST_BE_ARRAY(a) \
	(sizeof(struct { int : (-!!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))); }) * 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + ARRAY_MUST_BE_ARRAY(a))

#endif
