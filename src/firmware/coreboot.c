/* coreboot's tables and TCPA log at run time (coreboot.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coreboot.h"
#include "hash.h"
#include "io.h"
#include "le.h"

#define HDR 24u

/* RFC 1071 over len bytes (coreboot's compute_ip_checksum) */
static uint16_t ipsum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += le16(p + i);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len & 1) {
		sum += p[len - 1];
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

/* the table whose header is at addr: read, both checksums checked */
static int read_table(lb_cb_read_fn rd, void *ctx, uint64_t addr, uint8_t **tbl, size_t *len,
		      char *why, size_t whysz)
{
	uint8_t h[HDR], *t;
	uint32_t tb;
	int rc;

	if ((rc = rd(ctx, addr, h, HDR)))
		return lb_whyf(why, whysz, rc, "coreboot table at 0x%llx: %s",
			       (unsigned long long)addr, strerror(-rc));
	if (memcmp(h, "LBIO", 4) || le32(h + 4) != HDR || ipsum(h, HDR))
		return lb_whyf(why, whysz, -EBADMSG,
			       "coreboot table at 0x%llx: not a header with a right checksum",
			       (unsigned long long)addr);
	tb = le32(h + 12);
	if (tb > LB_CB_MAX_TABLE)
		return lb_whyf(why, whysz, -E2BIG, "coreboot table at 0x%llx: %u bytes of records (cap %u)",
			       (unsigned long long)addr, tb, LB_CB_MAX_TABLE);
	if (!(t = malloc(HDR + tb)))
		return -ENOMEM;
	memcpy(t, h, HDR);
	if (tb && (rc = rd(ctx, addr + HDR, t + HDR, tb))) {
		free(t);
		return lb_whyf(why, whysz, rc, "coreboot table at 0x%llx: its records: %s",
			       (unsigned long long)addr, strerror(-rc));
	}
	if (ipsum(t + HDR, tb) != (uint16_t)le32(h + 16)) {
		free(t);
		return lb_whyf(why, whysz, -EBADMSG, "coreboot table at 0x%llx: the records' checksum is wrong",
			       (unsigned long long)addr);
	}
	*tbl = t;
	*len = HDR + tb;
	return 0;
}

const uint8_t *lb_cb_record(const uint8_t *tbl, size_t len, uint32_t tag, uint32_t *size)
{
	size_t off = HDR;
	uint32_t n;

	if (len < HDR)
		return NULL;
	n = le32(tbl + 20);
	for (uint32_t i = 0; i < n && len - off >= 8; i++) {
		uint32_t t = le32(tbl + off), s = le32(tbl + off + 4);

		if (s < 8 || s > len - off)
			return NULL;
		if (t == tag) {
			*size = s;
			return tbl + off;
		}
		off += s;
	}
	return NULL;
}

static int scan(lb_cb_read_fn rd, void *ctx, uint64_t from, size_t span, uint64_t *at)
{
	uint8_t *b = malloc(span);
	int rc;

	if (!b)
		return -ENOMEM;
	if ((rc = rd(ctx, from, b, span))) {
		free(b);
		return rc;
	}
	rc = -ENOENT;
	for (size_t o = 0; o + HDR <= span; o += 16)
		if (!memcmp(b + o, "LBIO", 4) && le32(b + o + 4) == HDR && !ipsum(b + o, HDR)) {
			*at = from + o;
			rc = 0;
			break;
		}
	free(b);
	return rc;
}

/* where the low table was found in /dev/mem: PID 1 looks for the table
 * several times a boot (start, CMOS, TCPA log, hand-over); later looks
 * check that header first instead of scanning 68 KiB again */
static uint64_t mem_hint;

int lb_cb_table(lb_cb_read_fn rd, void *ctx, uint8_t **tbl, size_t *len, uint64_t *addr,
		char *why, size_t whysz)
{
	uint64_t at;
	int rc, hops, mem = rd == lb_cb_read_mem && !ctx;

	*tbl = NULL;
	*len = 0;
	if (!(mem && mem_hint && !scan(rd, ctx, mem_hint, HDR, &at)) &&
	    scan(rd, ctx, 0, 0x1000, &at) && scan(rd, ctx, 0xf0000, 0x10000, &at))
		return lb_whyf(why, whysz, -ENODEV,
			       "no coreboot table (LBIO) at 0-4 KiB or 0xf0000-1 MiB");
	if (mem)
		mem_hint = at;
	for (hops = 0;; hops++) {
		const uint8_t *f;
		uint32_t fs;

		if ((rc = read_table(rd, ctx, at, tbl, len, why, whysz)))
			return rc;
		if (!(f = lb_cb_record(*tbl, *len, LB_CB_TAG_FORWARD, &fs)))
			break;
		if (fs < 16 || hops >= LB_CB_MAX_FORWARDS) {
			free(*tbl);
			*tbl = NULL;
			return lb_whyf(why, whysz, -ELOOP, "coreboot table at 0x%llx: %s",
				       (unsigned long long)at, fs < 16 ? "a forward record too short" :
				       "more than 4 forwards");
		}
		at = le64(f + 8);
		free(*tbl);
		*tbl = NULL;
	}
	*addr = at;
	return 0;
}

static int alg_of(const char *t, size_t n)
{
	static const struct { const char *name; unsigned alg; } map[] = {
		{ "SHA1", LB_SHA1 }, { "SHA256", LB_SHA256 }, { "SHA384", LB_SHA384 },
		{ "SHA512", LB_SHA512 },
	};
	size_t l = strnlen(t, n);

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (l == strlen(map[i].name) && !memcmp(t, map[i].name, l))
			return (int)map[i].alg;
	return -1;
}

int lb_cb_tcpa_parse(const uint8_t *b, size_t len, struct lb_cb_mevent *ev, size_t max,
		     size_t *n, char *why, size_t whysz)
{
	uint32_t cnt;

	*n = 0;
	if (len < 4)
		return lb_whyf(why, whysz, -EBADMSG, "coreboot TCPA log: %zu bytes, no header", len);
	cnt = le16(b + 2);
	if (cnt > le16(b) || cnt > LB_CB_MAX_MEVENTS || cnt > max)
		return lb_whyf(why, whysz, -E2BIG, "coreboot TCPA log: %u entries (max_entries %u, cap %zu)",
			       cnt, le16(b), max < LB_CB_MAX_MEVENTS ? max : (size_t)LB_CB_MAX_MEVENTS);
	if ((len - 4) / LB_CB_TCPA_ENTRY < cnt)
		return lb_whyf(why, whysz, -EBADMSG, "coreboot TCPA log: %u entries need %u bytes, %zu there",
			       cnt, 4 + cnt * LB_CB_TCPA_ENTRY, len);
	for (uint32_t i = 0; i < cnt; i++) {
		const uint8_t *e = b + 4 + (size_t)i * LB_CB_TCPA_ENTRY;
		const char *name = (const char *)e + 82;
		uint32_t pcr = le32(e), dl = le32(e + 78);
		int alg = alg_of((const char *)e + 4, 10);
		size_t nl = strnlen(name, LB_CB_NAME_MAX);

		if (pcr > 23)
			return lb_whyf(why, whysz, -EBADMSG, "coreboot TCPA log entry %u: PCR %u", i, pcr);
		if (alg < 0 || dl != lb_hash_len((unsigned)alg))
			return lb_whyf(why, whysz, -EBADMSG,
				       "coreboot TCPA log entry %u: digest type '%.10s' of %u bytes", i,
				       (const char *)e + 4, dl);
		for (size_t k = 0; k < nl; k++)
			if (name[k] < 0x20 || name[k] > 0x7e)
				return lb_whyf(why, whysz, -EBADMSG,
					       "coreboot TCPA log entry %u: a name byte 0x%02x is not printable",
					       i, (unsigned char)name[k]);
		ev[i].pcr = pcr;
		ev[i].alg = (unsigned)alg;
		memset(ev[i].digest, 0, sizeof(ev[i].digest));
		memcpy(ev[i].digest, e + 14, dl);
		memcpy(ev[i].name, name, nl);
		ev[i].name[nl] = 0;
	}
	*n = cnt;
	return 0;
}

/* the CBMEM address a record of the table holds (struct lb_cbmem_ref) */
static int cbmem_ref(lb_cb_read_fn rd, void *ctx, uint32_t tag, const char *what, uint64_t *addr,
		     char *why, size_t whysz)
{
	uint8_t *tbl = NULL;
	const uint8_t *r;
	uint64_t at;
	uint32_t rs;
	size_t len;
	int rc;

	if ((rc = lb_cb_table(rd, ctx, &tbl, &len, &at, why, whysz)))
		return rc;
	r = lb_cb_record(tbl, len, tag, &rs);
	if (r && rs >= 16)
		*addr = le64(r + 8);
	free(tbl);
	if (!r || rs < 16)
		return lb_whyf(why, whysz, -ENOENT, "coreboot table at 0x%llx: no %s record",
			       (unsigned long long)at, what);
	return 0;
}

int lb_cb_measurements(lb_cb_read_fn rd, void *ctx, struct lb_cb_mevent *ev, size_t max,
		       size_t *n, char *why, size_t whysz)
{
	uint8_t h[4], *log = NULL;
	uint64_t la;
	size_t ll;
	int rc;

	*n = 0;
	if ((rc = cbmem_ref(rd, ctx, LB_CB_TAG_TCPA_LOG, "TCPA log", &la, why, whysz)))
		return rc;
	if ((rc = rd(ctx, la, h, 4)))
		return lb_whyf(why, whysz, rc, "coreboot TCPA log at 0x%llx: %s", (unsigned long long)la,
			       strerror(-rc));
	if (le16(h + 2) > LB_CB_MAX_MEVENTS)
		return lb_whyf(why, whysz, -E2BIG, "coreboot TCPA log at 0x%llx: %u entries (cap %u)",
			       (unsigned long long)la, le16(h + 2), LB_CB_MAX_MEVENTS);
	ll = 4 + (size_t)le16(h + 2) * LB_CB_TCPA_ENTRY;
	if (!(log = malloc(ll)))
		return -ENOMEM;
	if ((rc = rd(ctx, la, log, ll))) {
		free(log);
		return lb_whyf(why, whysz, rc, "coreboot TCPA log at 0x%llx: %s", (unsigned long long)la,
			       strerror(-rc));
	}
	rc = lb_cb_tcpa_parse(log, ll, ev, max, n, why, whysz);
	free(log);
	return rc;
}

#define CURSOR_MASK ((1u << 28) - 1)
#define OVERFLOW    (1u << 31)

static int console_check(const uint8_t *con, size_t len, uint32_t *size, uint32_t *cur,
			 char *why, size_t whysz)
{
	if (len < 8)
		return lb_whyf(why, whysz, -EBADMSG, "coreboot console: %zu bytes, no header", len);
	*size = le32(con);
	*cur = le32(con + 4) & CURSOR_MASK;
	if (!*size || *size > LB_CB_CONSOLE_MAX || *size > len - 8 || *cur >= *size)
		return lb_whyf(why, whysz, -EBADMSG,
			       "coreboot console: size %u, cursor %u: not a console of %zu bytes", *size,
			       *cur, len - 8);
	return 0;
}

int lb_cb_console_text(const uint8_t *con, size_t len, char **text, size_t *tlen, char *why,
		       size_t whysz)
{
	uint32_t size, cur;
	char *t;
	size_t n = 0;
	int rc;

	*text = NULL;
	*tlen = 0;
	if ((rc = console_check(con, len, &size, &cur, why, whysz)))
		return rc;
	if (!(t = malloc((size_t)size + 1)))
		return -ENOMEM;
	if (le32(con + 4) & OVERFLOW) {
		memcpy(t, con + 8 + cur, size - cur);
		n = size - cur;
	}
	memcpy(t + n, con + 8, cur);
	n += cur;
	t[n] = 0;
	*text = t;
	*tlen = n;
	return 0;
}

int lb_cb_console_append(uint8_t *con, size_t len, const char *s, size_t n, char *why, size_t whysz)
{
	uint32_t size, cur, flags;
	int rc;

	if ((rc = console_check(con, len, &size, &cur, why, whysz)))
		return rc;
	flags = le32(con + 4) & ~CURSOR_MASK;
	for (size_t i = 0; i < n; i++) {
		con[8 + cur++] = (uint8_t)s[i];
		if (cur >= size) {
			cur = 0;
			flags |= OVERFLOW;
		}
	}
	put_le32(con + 4, flags | cur);
	return 0;
}

int lb_cb_console_find(lb_cb_read_fn rd, void *ctx, uint64_t *addr, size_t *len, char *why,
		       size_t whysz)
{
	uint8_t h[8];
	int rc;

	if ((rc = cbmem_ref(rd, ctx, LB_CB_TAG_CBMEM_CONSOLE, "CBMEM console", addr, why, whysz)))
		return rc;
	if ((rc = rd(ctx, *addr, h, 8)))
		return lb_whyf(why, whysz, rc, "coreboot console at 0x%llx: %s",
			       (unsigned long long)*addr, strerror(-rc));
	if (!le32(h) || le32(h) > LB_CB_CONSOLE_MAX || (le32(h + 4) & CURSOR_MASK) >= le32(h))
		return lb_whyf(why, whysz, -EBADMSG, "coreboot console at 0x%llx: size %u, cursor %u",
			       (unsigned long long)*addr, le32(h), le32(h + 4) & CURSOR_MASK);
	*len = 8 + (size_t)le32(h);
	return 0;
}

int lb_cb_console_write(const char *mem, const char *s, size_t n, uint64_t *addr, char *why,
			size_t whysz)
{
	const char *path = mem ? mem : "/dev/mem";
	uint8_t *p, *copy;
	size_t len, mlen;
	uint64_t base;
	long pg = sysconf(_SC_PAGESIZE);
	int fd, rc;

	if ((rc = lb_cb_console_find(lb_cb_read_mem, (void *)mem, addr, &len, why, whysz)))
		return rc;
	if ((fd = open(path, O_RDWR | O_CLOEXEC | O_SYNC)) < 0)
		return lb_whyf(why, whysz, -errno, "%s: %s", path, strerror(errno));
	base = *addr & ~(uint64_t)(pg - 1);
	mlen = (size_t)(*addr - base) + len;
	p = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
	close(fd);
	if (p == MAP_FAILED)
		return lb_whyf(why, whysz, -errno, "%s: mapping the console at 0x%llx: %s", path,
			       (unsigned long long)*addr, strerror(errno));
	/* checked and edited in a copy, then written back in one go: the
	 * header is read once (the bytes under us are the firmware's) */
	if (!(copy = malloc(len))) {
		munmap(p, mlen);
		return -ENOMEM;
	}
	memcpy(copy, p + (*addr - base), len);
	rc = lb_cb_console_append(copy, len, s, n, why, whysz);
	if (!rc) {
		memcpy(p + (*addr - base), copy, len);
		msync(p, mlen, MS_SYNC);
	}
	free(copy);
	munmap(p, mlen);
	return rc;
}

int lb_cb_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const char *path = ctx ? ctx : "/dev/mem";
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (addr > (uint64_t)INT64_MAX - len) {
		close(fd);
		return -EINVAL;
	}
	if (!fstat(fd, &st) && S_ISCHR(st.st_mode)) {
		/* /dev/mem: read(2) stops at the end of the direct map, and
		 * CBMEM lies in reserved memory: map the window instead */
		long pg = sysconf(_SC_PAGESIZE);
		uint64_t base = addr & ~(uint64_t)(pg - 1);
		size_t mlen = (size_t)(addr - base) + len;
		uint8_t *p = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, (off_t)base);

		if (p == MAP_FAILED) {
			rc = -errno;
		} else {
			memcpy(buf, p + (addr - base), len);
			munmap(p, mlen);
		}
	} else {
		size_t got = 0;

		rc = lb_pread_full(fd, buf, len, (off_t)addr, &got);
		if (!rc && got != len)
			rc = -EIO;
	}
	close(fd);
	return rc;
}
