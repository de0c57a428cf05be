#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
#include "lib/base64.h"

#include <string.h>

/* RFC 4648, section 10: the test vectors. */
static const struct {
	const char *plain, *encoded;
} vectors[] = {
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
};

static void test_rfc4648_vectors_both_ways(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		struct strbuf enc = STRBUF_INIT, dec = STRBUF_INIT;
		const char *e = vectors[i].encoded;

		base64_encode(&enc, vectors[i].plain, strlen(vectors[i].plain));
		assert_string_equal(enc.buf ? enc.buf : "", e);
		base64_decode(&dec, e, e + strlen(e));
		assert_int_equal(dec.len, strlen(vectors[i].plain));
		assert_memory_equal(dec.buf ? dec.buf : "", vectors[i].plain, dec.len);
		strbuf_release(&enc);
		strbuf_release(&dec);
	}
}

/* RFC 2045: line breaks and characters outside the alphabet are skipped, '=' ends the data. */
static void test_decoding_skips_junk_and_stops_at_padding(void **state)
{
	static const char in[] = "Zm9v\r\nYm*Fy=ZZZZ";
	static const unsigned char bytes[] = { 0x00, 0xff, 0x80, 0x7f };
	struct strbuf out = STRBUF_INIT, enc = STRBUF_INIT;

	(void)state;
	base64_decode(&out, in, in + sizeof(in) - 1);
	assert_string_equal(out.buf, "foobar");
	strbuf_reset(&out);
	base64_encode(&enc, bytes, sizeof(bytes));
	base64_decode(&out, enc.buf, enc.buf + enc.len);
	assert_int_equal(out.len, sizeof(bytes));
	assert_memory_equal(out.buf, bytes, sizeof(bytes));
	strbuf_release(&out);
	strbuf_release(&enc);
}

/* MIME's lines: 76 characters and a newline, the last line shorter. */
static void test_lines_are_76_characters(void **state)
{
	char data[200];
	struct strbuf out = STRBUF_INIT, back = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)i;
	base64_encode_lines(&out, data, sizeof(data));
	assert_int_equal(out.len, 3 * (76 + 1) + 40 + 1);	/* 3 lines of 57 bytes, then 29 */
	assert_int_equal(out.buf[76], '\n');
	assert_int_equal(out.buf[out.len - 1], '\n');
	base64_decode(&back, out.buf, out.buf + out.len);
	assert_int_equal(back.len, sizeof(data));
	assert_memory_equal(back.buf, data, sizeof(data));
	strbuf_release(&out);
	strbuf_release(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors_both_ways),
		cmocka_unit_test(test_decoding_skips_junk_and_stops_at_padding),
		cmocka_unit_test(test_lines_are_76_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
