/* LVM2 labels, metadata areas and metadata text (see lvm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "le.h"
#include "lvm.h"

static int have(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* LVM's calc_crc: the zlib CRC-32 polynomial with LVM's initial value and
 * no final inversion */
#define LVM_INITIAL_CRC 0xf597a6cfu

static uint32_t lvm_crc(uint32_t crc, const void *p, size_t n)
{
	return ~lb_crc32(~crc, p, n);
}

/* 32 id characters to "6-4-4-4-4-4-6" text; 0 when a character is not one
 * LVM uses (letters, digits, '!' and '#') */
static int id_fmt(char out[39], const uint8_t *id)
{
	static const int groups[] = { 6, 4, 4, 4, 4, 4, 6 };
	size_t o = 0, k = 0;

	for (size_t g = 0; g < 7; g++) {
		for (int i = 0; i < groups[g]; i++) {
			uint8_t c = id[k++];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			      (c >= 'A' && c <= 'Z') || c == '!' || c == '#'))
				return 0;
			out[o++] = (char)c;
		}
		if (g < 6)
			out[o++] = '-';
	}
	out[o] = 0;
	return 1;
}

/* --- label ------------------------------------------------------------------ */

int lb_lvm_label(const uint8_t *buf, size_t len, struct lb_lvm_label *out)
{
	if (!buf || !out)
		return -EINVAL;
	for (uint64_t s = 0; s < 4; s++) {
		const uint8_t *l = buf + s * 512, *h, *end;
		struct lb_lvm_label lab;
		uint32_t off;
		int list = 0;

		if (!have(len, s * 512, 512))
			break;
		if (memcmp(l, "LABELONE", 8))
			continue;
		if (le64(l + 8) != s || memcmp(l + 24, "LVM2 001", 8))
			return -EBADMSG;
		if (lvm_crc(LVM_INITIAL_CRC, l + 20, 512 - 20) != le32(l + 16))
			return -EBADMSG;
		off = le32(l + 20);
		/* pv_header: uuid[32], device_size, then two lists of areas
		 * ({offset, size}, ended by a zero entry), inside the sector */
		if (off < 32 || off > 512 - 40)
			return -EBADMSG;
		h = l + off;
		end = l + 512;
		memset(&lab, 0, sizeof(lab));
		if (!id_fmt(lab.pv_id, h))
			return -EBADMSG;
		lab.dev_size = le64(h + 32);
		h += 40;
		for (;;) {
			uint64_t ao, as;

			if (end - h < 16)
				return -EBADMSG;
			ao = le64(h);
			as = le64(h + 8);
			h += 16;
			if (!ao && !as) {
				if (++list == 2)
					break;
				continue;
			}
			if (list == 0) {
				if (!lab.data_offset)
					lab.data_offset = ao;
			} else {
				if (lab.n_mda >= 2 || as < LB_LVM_MDA_HDR_BYTES || ao + as < ao)
					return -EBADMSG;
				lab.mda[lab.n_mda].offset = ao;
				lab.mda[lab.n_mda].size = as;
				lab.n_mda++;
			}
		}
		if (!lab.data_offset || (lab.data_offset & 511))
			return -EBADMSG;
		*out = lab;
		return 0;
	}
	return -ENOENT;
}

/* --- metadata area ------------------------------------------------------------- */

static const uint8_t mda_magic[16] = " LVM2 x[5A%r0N*>";
#define RAW_LOCN_IGNORED 1u

int lb_lvm_mda_header(const uint8_t *hdr, size_t len, uint64_t mda_off,
		      uint64_t mda_size, struct lb_lvm_raw *out)
{
	struct lb_lvm_raw r;

	if (!hdr || !out)
		return -EINVAL;
	if (len < LB_LVM_MDA_HDR_BYTES || memcmp(hdr + 4, mda_magic, 16))
		return -ENOENT;
	if (lvm_crc(LVM_INITIAL_CRC, hdr + 4, LB_LVM_MDA_HDR_BYTES - 4) != le32(hdr))
		return -EBADMSG;
	if (le32(hdr + 20) != 1 || le64(hdr + 24) != mda_off || le64(hdr + 32) != mda_size)
		return -EBADMSG;
	r.offset = le64(hdr + 40);
	r.size = le64(hdr + 48);
	r.checksum = le32(hdr + 56);
	if (le32(hdr + 60) & RAW_LOCN_IGNORED)
		return -ENOENT;
	if (!r.offset && !r.size)
		return -ENOENT;
	if (mda_size <= LB_LVM_MDA_HDR_BYTES || r.offset < LB_LVM_MDA_HDR_BYTES ||
	    r.offset >= mda_size || !r.size ||
	    r.size > mda_size - LB_LVM_MDA_HDR_BYTES || r.size > LB_LVM_TEXT_MAX)
		return -EBADMSG;
	*out = r;
	return 0;
}

int lb_lvm_mda_text(const uint8_t *mda, size_t len, uint64_t mda_size,
		    const struct lb_lvm_raw *raw, char **text, size_t *tlen)
{
	uint64_t first, rest;
	char *t;
	size_t n;

	if (!mda || !raw || !text || !tlen)
		return -EINVAL;
	if (mda_size <= LB_LVM_MDA_HDR_BYTES || raw->offset < LB_LVM_MDA_HDR_BYTES ||
	    raw->offset >= mda_size || !raw->size || raw->size > LB_LVM_TEXT_MAX ||
	    raw->size > mda_size - LB_LVM_MDA_HDR_BYTES)
		return -EBADMSG;
	first = mda_size - raw->offset;
	if (first > raw->size)
		first = raw->size;
	rest = raw->size - first;
	if (!have(len, raw->offset, first) || !have(len, LB_LVM_MDA_HDR_BYTES, rest))
		return -ERANGE;
	n = (size_t)raw->size;
	if (!(t = malloc(n + 1)))
		return -ENOMEM;
	memcpy(t, mda + raw->offset, (size_t)first);
	memcpy(t + first, mda + LB_LVM_MDA_HDR_BYTES, (size_t)rest);
	if (lvm_crc(LVM_INITIAL_CRC, t, n) != raw->checksum) {
		free(t);
		return -EBADMSG;
	}
	t[n] = 0;
	/* the committed text may end in the NUL LVM writes after it */
	while (n && !t[n - 1])
		n--;
	if (memchr(t, 0, n)) {
		free(t);
		return -EBADMSG;
	}
	*text = t;
	*tlen = n;
	return 0;
}

/* --- metadata text ------------------------------------------------------------- */

enum { N_SECT, N_INT, N_FLOAT, N_STR, N_LIST };

struct node {
	char *key;          /* NULL for list items */
	int kind;
	long long num;      /* N_INT */
	char *str;          /* N_STR */
	struct node *kids;  /* N_SECT children, N_LIST items */
	struct node *next;
};

#define MAX_DEPTH 8
#define MAX_NODES 200000
#define MAX_STR 4096

struct parser {
	const char *p, *end;
	size_t nodes;
	int oom;
};

static void node_free(struct node *n)
{
	while (n) {
		struct node *next = n->next;
		node_free(n->kids);
		free(n->key);
		free(n->str);
		free(n);
		n = next;
	}
}

static struct node *node_new(struct parser *ps)
{
	struct node *n;

	if (++ps->nodes > MAX_NODES)
		return NULL;
	if (!(n = calloc(1, sizeof(*n))))
		ps->oom = 1;
	return n;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;
		if (c == '#') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			ps->p++;
		} else {
			break;
		}
	}
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' || c == '-';
}

/* an identifier (a key or section name) */
static char *ident(struct parser *ps)
{
	const char *s = ps->p;
	char *r;

	while (ps->p < ps->end && ident_char(*ps->p))
		ps->p++;
	if (ps->p == s || (size_t)(ps->p - s) >= LB_LVM_NAME_MAX)
		return NULL;
	if (!(r = strndup(s, (size_t)(ps->p - s))))
		ps->oom = 1;
	return r;
}

static int value(struct parser *ps, struct node *n, int in_list);

static int string(struct parser *ps, struct node *n)
{
	char *buf;
	size_t o = 0;

	ps->p++; /* '"' */
	if (!(buf = malloc(MAX_STR + 1))) {
		ps->oom = 1;
		return -ENOMEM;
	}
	for (;;) {
		char c;

		if (ps->p >= ps->end || o >= MAX_STR) {
			free(buf);
			return -EBADMSG;
		}
		c = *ps->p++;
		if (c == '"')
			break;
		if (c == '\\') {
			if (ps->p >= ps->end) {
				free(buf);
				return -EBADMSG;
			}
			c = *ps->p++;
		}
		if (!c) {
			free(buf);
			return -EBADMSG;
		}
		buf[o++] = c;
	}
	buf[o] = 0;
	n->kind = N_STR;
	n->str = buf;
	return 0;
}

static int number(struct parser *ps, struct node *n)
{
	const char *s = ps->p;
	long long v = 0;
	int neg = 0, digits = 0;

	if (ps->p < ps->end && *ps->p == '-') {
		neg = 1;
		ps->p++;
	}
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		int d = *ps->p++ - '0';
		if (v > (0x7fffffffffffffffLL - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
		digits++;
	}
	if (!digits)
		return -EBADMSG;
	n->kind = N_INT;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		digits = 0;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
			ps->p++;
			digits++;
		}
		if (!digits)
			return -EBADMSG;
		n->kind = N_FLOAT;
	}
	if (ps->p < ps->end && ident_char(*ps->p))
		return -EBADMSG; /* "12ab" */
	(void)s;
	n->num = neg ? -v : v;
	return 0;
}

static int list(struct parser *ps, struct node *n)
{
	struct node **tail = &n->kids;
	int r;

	ps->p++; /* '[' */
	n->kind = N_LIST;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return 0;
	}
	for (;;) {
		struct node *it = node_new(ps);

		if (!it)
			return ps->oom ? -ENOMEM : -EBADMSG;
		*tail = it;
		tail = &it->next;
		skip_ws(ps);
		if ((r = value(ps, it, 1)))
			return r;
		skip_ws(ps);
		if (ps->p >= ps->end)
			return -EBADMSG;
		if (*ps->p == ']') {
			ps->p++;
			return 0;
		}
		if (*ps->p != ',')
			return -EBADMSG;
		ps->p++;
	}
}

static int value(struct parser *ps, struct node *n, int in_list)
{
	if (ps->p >= ps->end)
		return -EBADMSG;
	if (*ps->p == '"')
		return string(ps, n);
	if (*ps->p == '[')
		return in_list ? -EBADMSG : list(ps, n);
	return number(ps, n);
}

static int has_key(const struct node *first, const char *key)
{
	for (; first; first = first->next)
		if (!strcmp(first->key, key))
			return 1;
	return 0;
}

/* items of a section up to '}' (or the end of text at depth 0) */
static int section(struct parser *ps, struct node **out, int depth)
{
	struct node *head = NULL, **tail = &head;
	int r;

	if (depth > MAX_DEPTH)
		return -EBADMSG;
	for (;;) {
		struct node *n;
		char *key;

		skip_ws(ps);
		if (ps->p >= ps->end) {
			if (depth)
				goto bad;
			break;
		}
		if (*ps->p == '}') {
			if (!depth)
				goto bad;
			ps->p++;
			break;
		}
		if (!(key = ident(ps)))
			goto bad;
		if (has_key(head, key) || !(n = node_new(ps))) {
			free(key);
			goto bad;
		}
		n->key = key;
		*tail = n;
		tail = &n->next;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == '{') {
			ps->p++;
			n->kind = N_SECT;
			if ((r = section(ps, &n->kids, depth + 1)))
				goto err;
		} else if (ps->p < ps->end && *ps->p == '=') {
			ps->p++;
			skip_ws(ps);
			if ((r = value(ps, n, 0)))
				goto err;
		} else {
			goto bad;
		}
	}
	*out = head;
	return 0;
bad:
	r = ps->oom ? -ENOMEM : -EBADMSG;
err:
	node_free(head);
	return ps->oom ? -ENOMEM : r;
}

static const struct node *get(const struct node *sect, const char *key, int kind)
{
	for (const struct node *n = sect ? sect->kids : NULL; n; n = n->next)
		if (!strcmp(n->key, key))
			return n->kind == kind ? n : NULL;
	return NULL;
}

static int get_u64(const struct node *sect, const char *key, uint64_t *v)
{
	const struct node *n = get(sect, key, N_INT);

	if (!n || n->num < 0)
		return -EBADMSG;
	*v = (uint64_t)n->num;
	return 0;
}

static int in_list(const struct node *l, const char *s)
{
	for (const struct node *n = l ? l->kids : NULL; n; n = n->next)
		if (n->kind == N_STR && !strcmp(n->str, s))
			return 1;
	return 0;
}

/* an id with its dashes, 38 characters */
static int get_id(const struct node *sect, char out[39])
{
	const struct node *n = get(sect, "id", N_STR);
	uint8_t raw[32];
	size_t k = 0;

	if (!n)
		return -EBADMSG;
	for (const char *p = n->str; *p; p++) {
		if (*p == '-')
			continue;
		if (k >= 32)
			return -EBADMSG;
		raw[k++] = (uint8_t)*p;
	}
	if (k != 32 || !id_fmt(out, raw))
		return -EBADMSG;
	return 0;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	if (b && a > UINT64_MAX / b)
		return 0;
	*r = a * b;
	return 1;
}

static int parse_pvs(const struct node *sect, struct lb_lvm_vg *vg)
{
	size_t n = 0, i = 0;

	for (const struct node *c = sect->kids; c; c = c->next)
		if (c->kind != N_SECT || ++n > LB_LVM_MAX_PV)
			return -EBADMSG;
	if (!n)
		return -EBADMSG;
	if (!(vg->pv = calloc(n, sizeof(*vg->pv))))
		return -ENOMEM;
	vg->n_pv = n;
	for (const struct node *c = sect->kids; c; c = c->next, i++) {
		struct lb_lvm_pv *pv = &vg->pv[i];

		strcpy(pv->name, c->key);
		if (get_id(c, pv->id) || get_u64(c, "pe_start", &pv->pe_start) ||
		    get_u64(c, "pe_count", &pv->pe_count))
			return -EBADMSG;
		if (get(c, "dev_size", N_INT) && get_u64(c, "dev_size", &pv->dev_size))
			return -EBADMSG;
		/* the extents must fit the device when its size is known */
		if (pv->dev_size) {
			uint64_t bytes;
			if (!mul_ok(pv->pe_count, vg->extent_size, &bytes) ||
			    bytes + pv->pe_start < bytes || bytes + pv->pe_start > pv->dev_size)
				return -EBADMSG;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(vg->pv[k].id, pv->id))
				return -EBADMSG;
	}
	return 0;
}

static long pv_by_name(const struct lb_lvm_vg *vg, const char *name)
{
	for (size_t i = 0; i < vg->n_pv; i++)
		if (!strcmp(vg->pv[i].name, name))
			return (long)i;
	return -1;
}

static int parse_seg(const struct node *s, const struct lb_lvm_vg *vg,
		     struct lb_lvm_seg *seg)
{
	const struct node *type, *stripes, *it;
	uint64_t sc = 0, per;
	size_t k = 0;

	if (get_u64(s, "start_extent", &seg->start_extent) ||
	    get_u64(s, "extent_count", &seg->extent_count) || !seg->extent_count ||
	    !(type = get(s, "type", N_STR)) || strlen(type->str) >= sizeof(seg->type))
		return -EBADMSG;
	strcpy(seg->type, type->str);
	if (strcmp(seg->type, "striped"))
		return 0; /* kept, not mapped (lb_lvm_table says so) */
	if (get_u64(s, "stripe_count", &sc) || !sc || sc > LB_LVM_MAX_STRIPES)
		return -EBADMSG;
	seg->stripe_count = (unsigned)sc;
	if (sc > 1) {
		if (get_u64(s, "stripe_size", &seg->stripe_size) || !seg->stripe_size ||
		    (seg->stripe_size & (seg->stripe_size - 1)) ||
		    seg->stripe_size > (1u << 30) || seg->extent_count % sc)
			return -EBADMSG;
	}
	per = seg->extent_count / sc;
	if (!(stripes = get(s, "stripes", N_LIST)))
		return -EBADMSG;
	if (!(seg->stripes = calloc((size_t)sc, sizeof(*seg->stripes))))
		return -ENOMEM;
	for (it = stripes->kids; it; it = it->next->next, k++) {
		const struct node *ext = it->next;
		long pv;

		if (k >= sc || it->kind != N_STR || !ext || ext->kind != N_INT ||
		    ext->num < 0 || (pv = pv_by_name(vg, it->str)) < 0)
			return -EBADMSG;
		/* the stripe's extents lie inside the PV */
		if ((uint64_t)ext->num > vg->pv[pv].pe_count ||
		    per > vg->pv[pv].pe_count - (uint64_t)ext->num)
			return -EBADMSG;
		seg->stripes[k].pv = (size_t)pv;
		seg->stripes[k].extent = (uint64_t)ext->num;
	}
	return k == sc ? 0 : -EBADMSG;
}

static int parse_lv(const struct node *l, const struct lb_lvm_vg *vg,
		    struct lb_lvm_lv *lv)
{
	uint64_t count, next = 0;
	const struct node *status;

	strcpy(lv->name, l->key);
	if (get_id(l, lv->id) || get_u64(l, "segment_count", &count) || !count ||
	    count > LB_LVM_MAX_SEG || !(status = get(l, "status", N_LIST)))
		return -EBADMSG;
	lv->visible = in_list(status, "VISIBLE");
	if (!(lv->seg = calloc((size_t)count, sizeof(*lv->seg))))
		return -ENOMEM;
	lv->n_seg = (size_t)count;
	/* segment1..segmentN, contiguous from extent 0 */
	for (size_t i = 0; i < count; i++) {
		char key[32];
		const struct node *s;
		int r;

		snprintf(key, sizeof(key), "segment%zu", i + 1);
		if (!(s = get(l, key, N_SECT)))
			return -EBADMSG;
		if ((r = parse_seg(s, vg, &lv->seg[i])))
			return r;
		if (lv->seg[i].start_extent != next ||
		    next + lv->seg[i].extent_count < next)
			return -EBADMSG;
		next += lv->seg[i].extent_count;
	}
	if (!mul_ok(next, vg->extent_size, &next))
		return -EBADMSG;
	return 0;
}

static int parse_lvs(const struct node *sect, struct lb_lvm_vg *vg)
{
	size_t n = 0, i = 0;
	int r;

	for (const struct node *c = sect->kids; c; c = c->next)
		if (c->kind != N_SECT || ++n > LB_LVM_MAX_LV)
			return -EBADMSG;
	if (!n)
		return 0;
	if (!(vg->lv = calloc(n, sizeof(*vg->lv))))
		return -ENOMEM;
	vg->n_lv = n;
	for (const struct node *c = sect->kids; c; c = c->next, i++)
		if ((r = parse_lv(c, vg, &vg->lv[i])))
			return r;
	return 0;
}

void lb_lvm_vg_free(struct lb_lvm_vg *vg)
{
	if (!vg)
		return;
	for (size_t i = 0; i < vg->n_lv; i++) {
		for (size_t k = 0; k < vg->lv[i].n_seg; k++)
			free(vg->lv[i].seg[k].stripes);
		free(vg->lv[i].seg);
	}
	free(vg->lv);
	free(vg->pv);
	memset(vg, 0, sizeof(*vg));
}

int lb_lvm_parse(const char *text, size_t len, struct lb_lvm_vg *out)
{
	struct parser ps = { text, text + len, 0, 0 };
	struct node top = { 0 }, *vgn = NULL;
	const struct node *n, *pvs, *lvs;
	struct lb_lvm_vg vg;
	int r;

	if (!text || !out)
		return -EINVAL;
	if (len > LB_LVM_TEXT_MAX || memchr(text, 0, len))
		return -EBADMSG;
	top.kind = N_SECT;
	if ((r = section(&ps, &top.kids, 0)))
		return r;
	memset(&vg, 0, sizeof(vg));
	r = -EBADMSG;
	/* exactly one section at the top: the volume group */
	for (struct node *c = top.kids; c; c = c->next) {
		if (c->kind != N_SECT)
			continue;
		if (vgn)
			goto out;
		vgn = c;
	}
	if (!vgn || strlen(vgn->key) >= sizeof(vg.name))
		goto out;
	if ((n = get(&top, "version", N_INT)) && n->num != 1)
		goto out;
	if ((n = get(&top, "contents", N_STR)) && strcmp(n->str, "Text Format Volume Group"))
		goto out;
	strcpy(vg.name, vgn->key);
	if (get_id(vgn, vg.id) || get_u64(vgn, "seqno", &vg.seqno) ||
	    get_u64(vgn, "extent_size", &vg.extent_size) || !vg.extent_size ||
	    vg.extent_size > (1ull << 32))
		goto out;
	if ((n = get(vgn, "format", N_STR)) && strcmp(n->str, "lvm2"))
		goto out;
	if (!(pvs = get(vgn, "physical_volumes", N_SECT)))
		goto out;
	if ((r = parse_pvs(pvs, &vg)))
		goto out;
	if ((lvs = get(vgn, "logical_volumes", N_SECT)) && (r = parse_lvs(lvs, &vg)))
		goto out;
	r = 0;
	*out = vg;
out:
	if (r)
		lb_lvm_vg_free(&vg);
	node_free(top.kids);
	return r;
}

long lb_lvm_find_pv(const struct lb_lvm_vg *vg, const char *id)
{
	char a[33], b[33];
	size_t k = 0;

	if (!vg || !id)
		return -1;
	for (const char *p = id; *p && k < 32; p++)
		if (*p != '-')
			a[k++] = *p;
	a[k] = 0;
	for (size_t i = 0; i < vg->n_pv; i++) {
		size_t j = 0;
		for (const char *p = vg->pv[i].id; *p && j < 32; p++)
			if (*p != '-')
				b[j++] = *p;
		b[j] = 0;
		if (!strcmp(a, b))
			return (long)i;
	}
	return -1;
}

int lb_lvm_table(const struct lb_lvm_vg *vg, const struct lb_lvm_lv *lv,
		 const char *const *pvdev, struct lb_dm_target **out, size_t *nout)
{
	struct lb_dm_target *t;
	int r = -EBADMSG;

	if (!vg || !lv || !pvdev || !out || !nout || !lv->n_seg)
		return -EINVAL;
	for (size_t i = 0; i < lv->n_seg; i++) {
		if (strcmp(lv->seg[i].type, "striped"))
			return -EOPNOTSUPP;
		for (unsigned k = 0; k < lv->seg[i].stripe_count; k++)
			if (!pvdev[lv->seg[i].stripes[k].pv])
				return -ENODEV;
	}
	if (!(t = calloc(lv->n_seg, sizeof(*t))))
		return -ENOMEM;
	for (size_t i = 0; i < lv->n_seg; i++) {
		const struct lb_lvm_seg *s = &lv->seg[i];
		size_t o;
		int w;

		if (!mul_ok(s->start_extent, vg->extent_size, &t[i].start) ||
		    !mul_ok(s->extent_count, vg->extent_size, &t[i].length))
			goto err;
		if (s->stripe_count == 1) {
			strcpy(t[i].type, "linear");
			o = 0;
		} else {
			strcpy(t[i].type, "striped");
			o = (size_t)snprintf(t[i].params, sizeof(t[i].params), "%u %llu",
					     s->stripe_count,
					     (unsigned long long)s->stripe_size);
		}
		for (unsigned k = 0; k < s->stripe_count; k++) {
			const struct lb_lvm_pv *pv = &vg->pv[s->stripes[k].pv];
			const char *dev = pvdev[s->stripes[k].pv];
			uint64_t off;

			if (!mul_ok(s->stripes[k].extent, vg->extent_size, &off) ||
			    off + pv->pe_start < off || strlen(dev) > 24)
				goto err;
			off += pv->pe_start;
			w = snprintf(t[i].params + o, sizeof(t[i].params) - o, "%s%s %llu",
				     o ? " " : "", dev, (unsigned long long)off);
			if (w < 0 || (size_t)w >= sizeof(t[i].params) - o)
				goto err;
			o += (size_t)w;
		}
	}
	*out = t;
	*nout = lv->n_seg;
	return 0;
err:
	free(t);
	return r;
}
