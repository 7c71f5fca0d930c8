/* coreboot's CMOS options: see cmos.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmos.h"
#include "coreboot.h"
#include "io.h"
#include "le.h"

struct lb_cmos *lb_cmos_boot;

/* a NUL-terminated printable name of at most LB_CMOS_NAME_MAX bytes in
 * b[0..n) (an enum's text may have spaces: "Keyboard only"): 0, or -EBADMSG */
static int name_at(const uint8_t *b, size_t n, char *out, int text)
{
	size_t i;

	for (i = 0; i < n && i <= LB_CMOS_NAME_MAX && b[i]; i++) {
		if (b[i] < (text ? 0x20 : 0x21) || b[i] > 0x7e)
			return -EBADMSG;
		out[i] = (char)b[i];
	}
	if (i == 0 || i >= n || i > LB_CMOS_NAME_MAX)
		return -EBADMSG;
	out[i] = 0;
	return 0;
}

static int check_entry(const struct lb_cmos_entry *e, char *why, size_t whysz)
{
	uint64_t end = (uint64_t)e->bit + e->length;

	if (!e->length || end > LB_CMOS_SIZE * 8)
		return lb_whyf(why, whysz, -EBADMSG, "CMOS option %s: bits %u+%u are past %u bytes",
			       e->name, e->bit, e->length, LB_CMOS_SIZE);
	if (e->config == 'r')
		return 0;
	if (e->config != 'e' && e->config != 'h' && e->config != 's')
		return lb_whyf(why, whysz, -EBADMSG, "CMOS option %s: unknown type 0x%02x", e->name,
			       (unsigned char)e->config);
	if (e->bit < LB_CMOS_RTC_BYTES * 8)
		return lb_whyf(why, whysz, -EBADMSG, "CMOS option %s: on the clock's registers (bit %u)",
			       e->name, e->bit);
	/* (a number wider than 64 bits is in real layouts, e.g. AMD boards'
	 * 256-bit user_data: it is refused when read or written, as by
	 * nvramtool) */
	if (e->config == 's' ? (e->bit % 8 || e->length % 8) :
	    ((e->bit % 8 + e->length) > 8 && (e->bit % 8 || e->length % 8)))
		return lb_whyf(why, whysz, -EBADMSG,
			       "CMOS option %s: %u bits at bit %u: %s", e->name, e->length, e->bit,
			       e->config == 's' ? "a string is whole bytes" :
			       "a field over a byte boundary is whole bytes");
	return 0;
}

/* a checksum record (r, rs bytes) into lay */
static int parse_cks(const uint8_t *r, uint32_t rs, struct lb_cmos_layout *lay, char *why,
		     size_t whysz)
{
	uint32_t s, e, l;

	if (rs < 24)
		return lb_whyf(why, whysz, -EBADMSG, "CMOS option table: checksum record of %u bytes", rs);
	if (lay->has_cks)
		return lb_whyf(why, whysz, -EBADMSG, "CMOS option table: two checksums");
	s = le32(r + 8);
	e = le32(r + 12);
	l = le32(r + 16);
	if (le32(r + 20) != 1 || s % 8 || (e + 1) % 8 || l % 8 || s > e ||
	    e >= LB_CMOS_SIZE * 8 || l / 8 + 1 >= LB_CMOS_SIZE ||
	    s < LB_CMOS_RTC_BYTES * 8 || l < LB_CMOS_RTC_BYTES * 8 ||
	    (l / 8 + 1 >= s / 8 && l / 8 <= e / 8))
		return lb_whyf(why, whysz, -EBADMSG,
			       "CMOS option table: checksum type %u over bits %u-%u at bit %u: not a PC checksum lboot can keep",
			       le32(r + 20), s, e, l);
	lay->has_cks = 1;
	lay->cks_start = s / 8;
	lay->cks_end = e / 8;
	lay->cks_loc = l / 8;
	return 0;
}

int lb_cmos_layout_parse(const uint8_t *b, size_t len, struct lb_cmos_layout *lay, char *why,
			 size_t whysz)
{
	uint32_t size, hl;
	size_t o;

	memset(lay, 0, sizeof(*lay));
	if (len < 12 || le32(b) != LB_CB_TAG_CMOS_OPTION_TABLE)
		return lb_whyf(why, whysz, -EBADMSG, "CMOS option table: no header (tag 0x%x)",
			       len >= 4 ? le32(b) : 0);
	size = le32(b + 4);
	hl = le32(b + 8);
	if (size > len || hl < 12 || hl > size)
		return lb_whyf(why, whysz, -EBADMSG,
			       "CMOS option table: size %u, header %u, %zu bytes there", size, hl, len);
	for (o = hl; o < size;) {
		uint32_t tag, rs;
		const uint8_t *r = b + o;

		if (size - o < 8)
			return lb_whyf(why, whysz, -EBADMSG, "CMOS option table: a record cut at %zu", o);
		tag = le32(r);
		rs = le32(r + 4);
		if (rs < 8 || rs > size - o || rs % 4)
			return lb_whyf(why, whysz, -EBADMSG,
				       "CMOS option table: record 0x%x at %zu: size %u (%zu left)", tag, o,
				       rs, size - o);
		if (tag == LB_CMOS_TAG_ENTRY) {
			struct lb_cmos_entry *e;
			int rc;

			if (lay->n >= LB_CMOS_MAX_ENTRIES)
				return lb_whyf(why, whysz, -E2BIG, "CMOS option table: more than %u entries",
					       LB_CMOS_MAX_ENTRIES);
			e = &lay->e[lay->n];
			if (rs < 24 || name_at(r + 24, rs - 24, e->name, 0))
				return lb_whyf(why, whysz, -EBADMSG,
					       "CMOS option table: entry %zu at %zu: no name", lay->n, o);
			e->bit = le32(r + 8);
			e->length = le32(r + 12);
			e->config = le32(r + 16) > 0xff ? 0 : (char)le32(r + 16);
			e->config_id = le32(r + 20);
			if ((rc = check_entry(e, why, whysz)))
				return rc;
			for (size_t i = 0; i < lay->n; i++)
				if (!strcmp(lay->e[i].name, e->name))
					return lb_whyf(why, whysz, -EBADMSG,
						       "CMOS option table: %s twice", e->name);
			lay->n++;
		} else if (tag == LB_CMOS_TAG_ENUM) {
			struct lb_cmos_enum *en;

			if (lay->n_enum >= LB_CMOS_MAX_ENUMS)
				return lb_whyf(why, whysz, -E2BIG, "CMOS option table: more than %u enums",
					       LB_CMOS_MAX_ENUMS);
			en = &lay->en[lay->n_enum];
			if (rs < 16 || name_at(r + 16, rs - 16, en->text, 1))
				return lb_whyf(why, whysz, -EBADMSG,
					       "CMOS option table: enum %zu at %zu: no text", lay->n_enum, o);
			en->config_id = le32(r + 8);
			en->value = le32(r + 12);
			lay->n_enum++;
		} else if (tag == LB_CMOS_TAG_CHECKSUM) {
			int rc = parse_cks(r, rs, lay, why, whysz);

			if (rc)
				return rc;
		} /* defaults and anything newer: skipped */
		o += rs;
	}
	return 0;
}

const struct lb_cmos_entry *lb_cmos_find(const struct lb_cmos_layout *lay, const char *name)
{
	for (size_t i = 0; i < lay->n; i++)
		if (!strcmp(lay->e[i].name, name))
			return &lay->e[i];
	return NULL;
}

const struct lb_cmos_entry *lb_cmos_option(const struct lb_cmos_layout *lay, const char *name,
					   char type, uint32_t min, uint32_t max)
{
	const struct lb_cmos_entry *e = lb_cmos_find(lay, name);

	return e && e->config == type && e->length >= min && e->length <= max ? e : NULL;
}

const char *lb_cmos_enum_text(const struct lb_cmos_layout *lay, const struct lb_cmos_entry *e,
			      uint64_t v)
{
	for (size_t i = 0; i < lay->n_enum; i++)
		if (lay->en[i].config_id == e->config_id && lay->en[i].value == v)
			return lay->en[i].text;
	return NULL;
}

uint64_t lb_cmos_get(const uint8_t *img, const struct lb_cmos_entry *e)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < e->length && i < 64; i++) {
		uint32_t b = e->bit + i;

		if (img[b / 8] >> (b % 8) & 1)
			v |= (uint64_t)1 << i;
	}
	return v;
}

int lb_cmos_set(uint8_t *img, const struct lb_cmos_entry *e, uint64_t v)
{
	if (e->length > 64)
		return -E2BIG;
	if (e->length < 64 && v >> e->length)
		return -ERANGE;
	for (uint32_t i = 0; i < e->length && i < 64; i++) {
		uint32_t b = e->bit + i;

		if (v >> i & 1)
			img[b / 8] |= (uint8_t)(1u << (b % 8));
		else
			img[b / 8] &= (uint8_t)~(1u << (b % 8));
	}
	return 0;
}

void lb_cmos_get_str(const uint8_t *img, const struct lb_cmos_entry *e, char *out)
{
	size_t n = e->length / 8, i;

	for (i = 0; i < n && img[e->bit / 8 + i]; i++)
		out[i] = (char)img[e->bit / 8 + i];
	out[i] = 0;
}

int lb_cmos_set_str(uint8_t *img, const struct lb_cmos_entry *e, const char *s)
{
	size_t n = e->length / 8, l = strlen(s);

	if (l > n)
		return -E2BIG;
	memset(img + e->bit / 8, 0, n);
	memcpy(img + e->bit / 8, s, l);
	return 0;
}

uint16_t lb_cmos_cks_compute(const struct lb_cmos_layout *lay, const uint8_t *img)
{
	uint16_t sum = 0;

	for (unsigned i = lay->cks_start; lay->has_cks && i <= lay->cks_end; i++)
		sum = (uint16_t)(sum + img[i]);
	return sum;
}

int lb_cmos_cks_ok(const struct lb_cmos_layout *lay, const uint8_t *img)
{
	if (!lay->has_cks)
		return 1;
	return lb_cmos_cks_compute(lay, img) ==
	       (uint16_t)(img[lay->cks_loc] << 8 | img[lay->cks_loc + 1]);
}

void lb_cmos_cks_set(const struct lb_cmos_layout *lay, uint8_t *img)
{
	uint16_t s = lb_cmos_cks_compute(lay, img);

	if (!lay->has_cks)
		return;
	img[lay->cks_loc] = (uint8_t)(s >> 8);
	img[lay->cks_loc + 1] = (uint8_t)s;
}

/* --- the CMOS itself ---------------------------------------------------- */

static unsigned size_of(const struct lb_cmos_layout *lay)
{
	unsigned top = lay->has_cks ? lay->cks_loc + 2 : 0;

	for (size_t i = 0; i < lay->n; i++) {
		unsigned end = (lay->e[i].bit + lay->e[i].length + 7) / 8;

		if (lay->e[i].config != 'r' && end > top)
			top = end;
	}
	return top > 128 ? LB_CMOS_SIZE : 128;
}

int lb_cmos_load(struct lb_cmos *c, char *why, size_t whysz)
{
	int fd, rc = 0;

	c->size = size_of(&c->lay);
	memset(c->img, 0, sizeof(c->img));
	if (c->path) { /* a dump: offset = index */
		uint8_t *b;
		size_t len;

		if ((rc = lb_read_path(c->path, 1u << 16, &b, &len)))
			return lb_whyf(why, whysz, rc, "%s: %s", c->path, strerror(-rc));
		if (len < c->size || len > LB_CMOS_SIZE) {
			free(b);
			return lb_whyf(why, whysz, -EINVAL, "%s: %zu bytes, not a CMOS dump of %u to %u",
				       c->path, len, c->size, LB_CMOS_SIZE);
		}
		memcpy(c->img, b, len);
		c->file_len = len;
		free(b);
	} else {
		if ((fd = lb_cmos_port_open()) < 0)
			return lb_whyf(why, whysz, fd, "%s: %s", lb_cmos_port_name, strerror(-fd));
		for (unsigned i = LB_CMOS_RTC_BYTES; i < c->size && !rc; i++)
			if ((rc = lb_cmos_port_xfer(fd, i, &c->img[i], 0)))
				lb_whyf(why, whysz, rc, "%s: reading CMOS byte %u: %s", lb_cmos_port_name, i,
					strerror(-rc));
		close(fd);
	}
	memcpy(c->was, c->img, sizeof(c->was));
	return rc;
}

int lb_cmos_commit(struct lb_cmos *c, char *why, size_t whysz)
{
	int fd, rc = 0;

	lb_cmos_cks_set(&c->lay, c->img);
	if (!memcmp(c->img, c->was, sizeof(c->img)))
		return 0;
	if (c->path) { /* a dump: replaced atomically */
		if ((rc = lb_write_atomic(c->path, c->img, c->file_len, 0644)))
			return lb_whyf(why, whysz, rc, "%s: writing: %s", c->path, strerror(-rc));
		memcpy(c->was, c->img, sizeof(c->was));
		return 0;
	}
	if ((fd = lb_cmos_port_open()) < 0)
		return lb_whyf(why, whysz, fd, "%s: %s", lb_cmos_port_name, strerror(-fd));
	/* the options first, the checksum last: a write cut in between leaves
	 * a bad checksum, and coreboot then puts its defaults back */
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (unsigned i = LB_CMOS_RTC_BYTES; i < c->size && !rc; i++) {
			int cks = c->lay.has_cks && (i == c->lay.cks_loc || i == c->lay.cks_loc + 1);

			if (cks != pass || c->img[i] == c->was[i])
				continue;
			if ((rc = lb_cmos_port_xfer(fd, i, &c->img[i], 1)))
				lb_whyf(why, whysz, rc, "%s: writing CMOS byte %u: %s", lb_cmos_port_name, i,
					strerror(-rc));
		}
	for (unsigned i = LB_CMOS_RTC_BYTES; i < c->size && !rc; i++) {
		uint8_t v;

		if ((rc = lb_cmos_port_xfer(fd, i, &v, 0)))
			lb_whyf(why, whysz, rc, "%s: reading CMOS byte %u back: %s", lb_cmos_port_name, i,
				strerror(-rc));
		else if (v != c->img[i])
			rc = lb_whyf(why, whysz, -EIO,
				     "%s: CMOS byte %u reads 0x%02x after writing 0x%02x", lb_cmos_port_name, i, v,
				     c->img[i]);
	}
	close(fd);
	if (!rc)
		memcpy(c->was, c->img, sizeof(c->was));
	return rc;
}

int lb_cmos_open(struct lb_cmos *c, lb_cb_read_fn rd, void *ctx, char *why, size_t whysz)
{
	uint8_t *tbl;
	size_t len;
	uint64_t at;
	uint32_t rs;
	const uint8_t *r;
	int rc;

	if ((rc = lb_cb_table(rd, ctx, &tbl, &len, &at, why, whysz)))
		return rc;
	r = lb_cb_record(tbl, len, LB_CB_TAG_CMOS_OPTION_TABLE, &rs);
	if (!r) {
		free(tbl);
		return lb_whyf(why, whysz, -ENOENT, "coreboot table at 0x%llx: no CMOS option table "
			       "(coreboot built without CONFIG_USE_OPTION_TABLE)", (unsigned long long)at);
	}
	rc = lb_cmos_layout_parse(r, rs, &c->lay, why, whysz);
	/* coreboot also puts the checksum beside the option table */
	if (!rc && !c->lay.has_cks && (r = lb_cb_record(tbl, len, LB_CMOS_TAG_CHECKSUM, &rs)))
		rc = parse_cks(r, rs, &c->lay, why, whysz);
	free(tbl);
	if (rc)
		return rc;
	c->path = NULL;
	return lb_cmos_load(c, why, whysz);
}
