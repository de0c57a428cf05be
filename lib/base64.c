#include "base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(struct strbuf *out, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		strbuf_addch(out, alphabet[v >> 18 & 63]);
		strbuf_addch(out, alphabet[v >> 12 & 63]);
		strbuf_addch(out, i + 1 < n ? alphabet[v >> 6 & 63] : '=');
		strbuf_addch(out, i + 2 < n ? alphabet[v & 63] : '=');
	}
}

void base64_encode_lines(struct strbuf *out, const void *data, size_t n)
{
	const unsigned char *p = data;

	/* 57 bytes make 76 characters. */
	for (size_t i = 0; i < n; i += 57) {
		base64_encode(out, p + i, n - i < 57 ? n - i : 57);
		strbuf_addch(out, '\n');
	}
}

static int value_of(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

void base64_decode(struct strbuf *out, const char *p, const char *end)
{
	unsigned acc = 0;
	int bits = 0;

	for (; p < end && *p != '='; p++) {
		int v = value_of(*p);

		if (v < 0)
			continue;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (char)(acc >> bits));
			acc &= (1u << bits) - 1;
		}
	}
}
