#include "fpstate.h"

#define FPSTATE_REG_BYTES 10

void fpstate_copy(void *to, const void *from, unsigned int n)
{
	uint8_t *t = to;
	const uint8_t *f = from;

	while (n--)
		*t++ = *f++;
}

void fpstate_build(struct x87_fsave *image, const struct fpstate_spec *spec)
{
	unsigned int top = (8 - spec->count) & 7;
	uint32_t tag = 0xffff;

	for (unsigned int i = 0; i < 8; i++)
		for (unsigned int b = 0; b < FPSTATE_REG_BYTES; b++)
			image->st[i][b] = 0;
	/* ST(i) is physical register (TOP + i) mod 8; a valid register's tag is 00. */
	for (unsigned int i = 0; i < spec->count; i++) {
		fpstate_copy(image->st[i], &spec->values[i], FPSTATE_REG_BYTES);
		tag &= ~(X87_TAG_EMPTY << (2 * ((top + i) & 7)));
	}
	image->env = (struct x87_env){
		.cw = spec->cw,
		/* The FPU sets B with ES, so that is what comes back. */
		.sw = spec->sw_flags | (spec->sw_flags & X87_SW_ES ? X87_SW_B : 0) |
		      (top << X87_SW_TOP_SHIFT),
		.tag = tag,
	};
}

/* The tag the FPU gives a register's value. */
static unsigned int fpstate_tag_of(const uint8_t *reg)
{
	unsigned int exponent = (unsigned int)(reg[9] & 0x7f) << 8 | reg[8];
	bool zero_significand = true;

	for (unsigned int b = 0; b < 8; b++)
		zero_significand &= reg[b] == 0;
	if (exponent == 0 && zero_significand)
		return 1;
	if (exponent == 0 || exponent == 0x7fff || !(reg[7] & 0x80))
		return 2;
	return 0;
}

void fpstate_build_tagged(struct x87_fsave *image, const struct fpstate_spec *spec)
{
	unsigned int top = (8 - spec->count) & 7;

	fpstate_build(image, spec);
	for (unsigned int i = 0; i < spec->count; i++)
		image->env.tag |= fpstate_tag_of(image->st[i]) << (2 * ((top + i) & 7));
}

void fpstate_to_fxsr(struct fpstate_fxsr *fx, const struct x87_fsave *image)
{
	fx->cwd = (uint16_t)image->env.cw;
	fx->swd = (uint16_t)image->env.sw;
	fx->twd = fpstate_abridged_tag(image->env.tag);
	for (unsigned int i = 0; i < 8; i++)
		for (unsigned int b = 0; b < 16; b++)
			fx->st_space[i][b] = b < FPSTATE_REG_BYTES ? image->st[i][b] : 0;
}

void fpstate_load(const struct fpstate_spec *spec)
{
	struct x87_fsave image;

	fpstate_build(&image, spec);
	x87_init();
	x87_restore(&image);
}

static unsigned int fpstate_count(const struct x87_fsave *image)
{
	unsigned int n = 0;

	for (unsigned int reg = 0; reg < 8; reg++)
		n += ((image->env.tag >> (2 * reg)) & X87_TAG_EMPTY) != X87_TAG_EMPTY;
	return n;
}

/* The index of the first register of `want`'s stack that `got` holds differently, or -1. */
static int fpstate_first_register_difference(const struct x87_fsave *want,
					     const struct x87_fsave *got)
{
	for (unsigned int i = 0; i < fpstate_count(want); i++)
		for (unsigned int b = 0; b < FPSTATE_REG_BYTES; b++)
			if (want->st[i][b] != got->st[i][b])
				return (int)i;
	return -1;
}

int fpstate_first_st_difference(const struct x87_fsave *a, const struct x87_fsave *b)
{
	for (unsigned int i = 0; i < 8; i++)
		for (unsigned int byte = 0; byte < FPSTATE_REG_BYTES; byte++)
			if (a->st[i][byte] != b->st[i][byte])
				return (int)i;
	return -1;
}

bool fpstate_pointers_equal(const struct x87_fsave *a, const struct x87_fsave *b)
{
	/* FCS and FOS are 16 bits; the opcode is bits 16-26 of the FCS word. */
	return a->env.ip == b->env.ip && (a->env.cs & 0x07ffffff) == (b->env.cs & 0x07ffffff) &&
	       a->env.dp == b->env.dp && (uint16_t)a->env.ds == (uint16_t)b->env.ds;
}

bool fpstate_equal(const struct x87_fsave *want, const struct x87_fsave *got)
{
	return (uint16_t)want->env.cw == (uint16_t)got->env.cw &&
	       (uint16_t)want->env.sw == (uint16_t)got->env.sw &&
	       (uint16_t)want->env.tag == (uint16_t)got->env.tag &&
	       fpstate_first_register_difference(want, got) < 0;
}

static void fpstate_add_register(struct fmt_buf *b, const uint8_t *reg)
{
	/* Sign and exponent, then the 64-bit significand, most significant byte first. */
	fmt_addf(b, "%02x%02x:", reg[9], reg[8]);
	for (int i = 7; i >= 0; i--)
		fmt_addf(b, "%02x", reg[i]);
}

void fpstate_note(struct ktap_check *check, const char *label, const struct x87_fsave *image)
{
	char storage[KTAP_LINE_MAX];
	struct fmt_buf b;
	unsigned int n = fpstate_count(image);

	fmt_init(&b, storage, sizeof(storage));
	fmt_addf(&b, "%s: FCW 0x%04x FSW 0x%04x tag 0x%04x", label, (uint16_t)image->env.cw,
		 (uint16_t)image->env.sw, (uint16_t)image->env.tag);
	for (unsigned int i = 0; i < n; i++) {
		fmt_addf(&b, " st%u=", i);
		fpstate_add_register(&b, image->st[i]);
	}
	ktap_check_note(check, "%s", storage);
}

void fpstate_check_stack(struct ktap_check *check, const char *where,
			 const struct x87_fsave *want, const struct x87_fsave *got)
{
	int reg = fpstate_first_register_difference(want, got);

	ktap_check_expect(check, (uint16_t)want->env.tag == (uint16_t)got->env.tag,
			  "expected tag word 0x%04x %s, got 0x%04x", (uint16_t)want->env.tag, where,
			  (uint16_t)got->env.tag);
	ktap_check_expect(check, reg < 0, "expected the register stack unchanged %s, st%d differs",
			  where, reg);
	if ((uint16_t)want->env.tag != (uint16_t)got->env.tag || reg >= 0) {
		fpstate_note(check, "expected", want);
		fpstate_note(check, "got", got);
	}
}

void fpstate_check(struct ktap_check *check, const char *where, const struct x87_fsave *want,
		   const struct x87_fsave *got)
{
	ktap_check_expect(check, (uint16_t)want->env.cw == (uint16_t)got->env.cw,
			  "expected FCW 0x%04x %s, got 0x%04x", (uint16_t)want->env.cw, where,
			  (uint16_t)got->env.cw);
	ktap_check_expect(check, (uint16_t)want->env.sw == (uint16_t)got->env.sw,
			  "expected FSW 0x%04x %s, got 0x%04x", (uint16_t)want->env.sw, where,
			  (uint16_t)got->env.sw);
	fpstate_check_stack(check, where, want, got);
}

void fpstate_from_frame(struct x87_fsave *image, const struct _fpstate *fp)
{
	fpstate_copy(image, fp, sizeof(*image));
}

uint8_t fpstate_abridged_tag(uint32_t tag)
{
	uint8_t abridged = 0;

	for (unsigned int reg = 0; reg < 8; reg++)
		if (((tag >> (2 * reg)) & X87_TAG_EMPTY) != X87_TAG_EMPTY)
			abridged |= (uint8_t)(1u << reg);
	return abridged;
}
