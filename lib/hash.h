/*
 * hash: FNV-1a, 64 bits, for the in-memory tables that key lines and
 * strings (provenance's changed lines and its index of mails).  Fast and
 * good enough for tables; never for anything an attacker may aim collisions
 * at across a trust boundary, nor for anything stored.
 *
 *	uint64_t h = HASH_INIT;
 *	h = hash_byte(h, c);	 // for each byte, in order
 */
#ifndef FPUBENCH_HASH_H
#define FPUBENCH_HASH_H

#include <stdint.h>

#define HASH_INIT 0xcbf29ce484222325ULL

static inline uint64_t hash_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * 0x100000001b3ULL;
}

/* The hash of a NUL-terminated string. */
static inline uint64_t hash_string(const char *s)
{
	uint64_t h = HASH_INIT;

	while (*s)
		h = hash_byte(h, (unsigned char)*s++);
	return h;
}

#endif
