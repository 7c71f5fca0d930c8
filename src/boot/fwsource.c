/* Where firmware updates come from: see fwsource.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fwsource.h"
#include "http.h"
#include "io.h"
#include "netio.h"
#include "update.h"

#define SIG_SUFFIX ".minisig"
#define FETCH_TOTAL_MS 300000u

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* a ".." path component anywhere */
static int dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '/' || !s[2]))
			return 1;
	return 0;
}

int lb_fwsrc_parse(const char *opt, enum lb_fwsrc_kind *kind, const char **arg,
		   char *why, size_t whysz)
{
	static const char want[] = "want fs:/PATH, https://HOST/PATH or http://HOST/PATH";
	struct lb_url *u;
	size_t n;

	*kind = LB_FWSRC_NONE;
	*arg = NULL;
	if (why && whysz)
		why[0] = 0;
	if (!opt || !*opt)
		return 0;
	if (!strncmp(opt, "fs:", 3)) {
		const char *p = opt + 3;

		if (p[0] != '/' || !p[1] || !printable(p) || dotdot(p) ||
		    p[strlen(p) - 1] == '/') {
			snprintf(why, whysz, "lboot.update=%s: want fs:/PATH (a file's absolute path, no ..)",
				 opt);
			return -EINVAL;
		}
		*kind = LB_FWSRC_FS;
		*arg = p;
		return 0;
	}
	if (strncmp(opt, "https://", 8) && strncmp(opt, "http://", 7)) {
		snprintf(why, whysz, "lboot.update=%s: %s", opt, want);
		return strstr(opt, "://") ? -EPROTONOSUPPORT : -EINVAL;
	}
	n = strlen(opt);
	if (n + sizeof(SIG_SUFFIX) > LB_URL_MAX) {
		snprintf(why, whysz, "lboot.update=: the URL is longer than %zu bytes",
			 LB_URL_MAX - sizeof(SIG_SUFFIX));
		return -EINVAL;
	}
	if (!(u = malloc(sizeof(*u))))
		return -ENOMEM;
	if (lb_url_parse(opt, u) || u->scheme == LB_URL_TFTP) {
		snprintf(why, whysz, "lboot.update=%s: not a URL lboot can fetch (%s)", opt, want);
		free(u);
		return -EINVAL;
	}
	if (strchr(opt, '#') || strchr(u->path, '?') || !strcmp(u->path, "/") ||
	    u->path[strlen(u->path) - 1] == '/') {
		snprintf(why, whysz, "lboot.update=%s: the URL must name a file (a path, no query or fragment)",
			 opt);
		free(u);
		return -EINVAL;
	}
	free(u);
	*kind = LB_FWSRC_URL;
	*arg = opt;
	return 0;
}

void lb_fwsrc_file_free(struct lb_fwsrc_file *f)
{
	free(f->buf);
	free(f->sig);
	memset(f, 0, sizeof(*f));
}

int lb_fwsrc_read_fs(const struct lb_fs *fs, const char *path, struct lb_fwsrc_file *f,
		     char *why, size_t whysz)
{
	char sp[LB_URL_MAX];
	int fd, r;

	memset(f, 0, sizeof(*f));
	why[0] = 0;
	if ((size_t)snprintf(sp, sizeof(sp), "%s" SIG_SUFFIX, path) >= sizeof(sp)) {
		snprintf(why, whysz, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	fd = lb_fs_open(fs, path);
	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		snprintf(why, whysz, "%s", strerror(-fd));
		return fd;
	}
	r = lb_read_fd(fd, LB_UPDATE_MAX, &f->buf, &f->len);
	close(fd);
	if (r) {
		snprintf(why, whysz, "%s", r == -EFBIG ? "larger than any update image" : strerror(-r));
		lb_fwsrc_file_free(f);
		return r;
	}
	if ((fd = lb_fs_open(fs, sp)) >= 0) {
		if (lb_read_fd(fd, LB_SIG_MAX_FILE, &f->sig, &f->siglen)) {
			f->sig = NULL;
			f->siglen = 0;
		}
		close(fd);
	}
	return 0;
}

/* Memory for one download, capped, with a deadline over the whole fetch
 * (lb_fetch bounds each connect and read; this bounds their sum). */
struct sink {
	uint8_t *p;
	size_t n, max;
	uint64_t deadline;
	int late;
};

static int sink_put(void *arg, const void *data, size_t len, uint64_t off)
{
	struct sink *s = arg;
	uint8_t *np;

	(void)off;
	if (lb_now_ms() > s->deadline) {
		s->late = 1;
		return -ETIMEDOUT;
	}
	if (len > s->max - s->n)
		return -EFBIG;
	if (!(np = realloc(s->p, s->n + len)))
		return -ENOMEM;
	s->p = np;
	memcpy(s->p + s->n, data, len);
	s->n += len;
	return 0;
}

static int fetch_one(const char *url, const struct lb_fetch_opts *base, size_t max,
		     uint64_t deadline, unsigned total_ms, uint8_t **out, size_t *len,
		     char *why, size_t whysz)
{
	struct lb_fetch_opts o = { 0 };
	struct lb_fetch_result *res = malloc(sizeof(*res));
	struct sink s = { .max = max, .deadline = deadline };
	uint64_t now = lb_now_ms();
	int r;

	if (!res)
		return -ENOMEM;
	if (base)
		o = *base;
	o.sink = sink_put;
	o.sink_arg = &s;
	o.size = NULL;
	o.progress = NULL;
	o.max_size = max;
	/* no single wait beyond the deadline */
	if (now >= deadline) {
		s.late = 1;
		r = -ETIMEDOUT;
	} else {
		if (!o.timeout_ms)
			o.timeout_ms = 10000;
		if (o.timeout_ms > deadline - now)
			o.timeout_ms = (unsigned)(deadline - now);
		r = lb_fetch(url, &o, res);
	}
	if (r && s.late)
		snprintf(why, whysz, "%s: not fetched within %u s", url, total_ms / 1000);
	else if (r == -EFBIG)
		snprintf(why, whysz, "%s: larger than %s", url,
			 max == LB_UPDATE_MAX ? "any update image" : "any signature file");
	else if (r)
		snprintf(why, whysz, "%s", res->err[0] ? res->err : strerror(-r));
	free(res);
	if (r) {
		free(s.p);
		return r;
	}
	if (!s.p && !(s.p = malloc(1)))
		return -ENOMEM;
	*out = s.p;
	*len = s.n;
	return 0;
}

int lb_fwsrc_fetch(const char *url, const struct lb_fetch_opts *base, unsigned total_ms,
		   struct lb_fwsrc_file *f, char *why, size_t whysz)
{
	char sp[LB_URL_MAX];
	uint64_t deadline;
	int r;

	memset(f, 0, sizeof(*f));
	why[0] = 0;
	if (!total_ms)
		total_ms = FETCH_TOTAL_MS;
	deadline = lb_now_ms() + total_ms;
	if ((size_t)snprintf(sp, sizeof(sp), "%s" SIG_SUFFIX, url) >= sizeof(sp)) {
		snprintf(why, whysz, "%s: too long", url);
		return -ENAMETOOLONG;
	}
	/* the small one first: a server that fails cannot make us fetch
	 * 16 MiB for nothing */
	r = fetch_one(sp, base, LB_SIG_MAX_FILE, deadline, total_ms, &f->sig, &f->siglen,
		      why, whysz);
	if (r == -ENOENT) {
		f->sig = NULL;
		f->siglen = 0;
	} else if (r) {
		return r;
	}
	why[0] = 0;
	r = fetch_one(url, base, LB_UPDATE_MAX, deadline, total_ms, &f->buf, &f->len, why, whysz);
	if (r)
		lb_fwsrc_file_free(f);
	return r;
}
