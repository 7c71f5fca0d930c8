/* lboot fetch: download a tftp://, http:// or https:// URL into a file. */
#include "lboot.h"

LB_APPLET(fetch, LB_HOST|LB_TARGET,
"usage: lboot fetch [OPTIONS] URL -o FILE\n"
"Download URL (tftp://HOST[:PORT]/PATH, http[s]://HOST[:PORT]/PATH; IPv6\n"
"literals in brackets) into FILE, as the network boot does. FILE is written\n"
"only when the whole file arrived (length checked against the TFTP tsize or\n"
"the HTTP Content-Length / chunked framing): a temporary file next to it is\n"
"renamed over it; on any failure FILE is left as it was.\n"
"HTTP: redirects followed (at most 8), 4xx/5xx are errors. TFTP: blksize\n"
"1468, windowsize 16 and tsize are asked for (RFC 2348/2349/7440); a server\n"
"that refuses or ignores them is served by plain RFC 1350.\n"
"HTTPS: TLS 1.2 (BearSSL), the server's certificate chain checked against\n"
"the trust anchors (--ca; without it " "/etc/lboot/tls/*.pem|*.crt|*.cer|*.der\n"
"and /etc/lboot/ca.pem when present), its name (or, for an address, its\n"
"IP subjectAltName) and validity dates (the clock, but never earlier than\n"
"the build date). No trust anchors: https:// is refused, never unchecked.\n"
"  -o, --output FILE   where to write (required)\n"
"  --json              print {url, final_url, file, bytes, seconds, ...}\n"
"  --blksize N         TFTP block size to ask for (8..65464; 512: none)\n"
"  --windowsize N      TFTP window to ask for (1..64; 1: none)\n"
"  --no-tftp-options   plain RFC 1350 TFTP (512-byte blocks, no options)\n"
"  --max-size BYTES    refuse larger files (default 2 GiB)\n"
"  --timeout SECONDS   connect/idle timeout, and the whole TLS handshake\n"
"                      (default 10)\n"
"  --ca FILE|DIR       trust anchors: a PEM bundle or DER certificate, or a\n"
"                      directory of them (repeatable)\n"
"  -q, --quiet         no progress lines (shown for files over 1 MiB)\n"
"Exit: 0 ok, 1 failure (one line on stderr), 2 usage.\n")

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "netio.h"
#include "tls.h"

struct out {
	int fd;
	uint64_t written;
};

static int sink(void *arg, const void *data, size_t len, uint64_t offset)
{
	struct out *o = arg;
	const char *p = data;

	if (offset != o->written)
		return -EINVAL;
	while (len) {
		ssize_t k = pwrite(o->fd, p, len, (off_t)offset);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		len -= (size_t)k;
		offset += (uint64_t)k;
	}
	o->written = offset;
	return 0;
}

static void human(char *b, size_t n, uint64_t v)
{
	if (v >= 1u << 20)
		snprintf(b, n, "%.1f MiB", (double)v / (1 << 20));
	else if (v >= 1u << 10)
		snprintf(b, n, "%.1f KiB", (double)v / 1024);
	else
		snprintf(b, n, "%llu B", (unsigned long long)v);
}

static void progress(void *arg, uint64_t done, uint64_t total, uint64_t rate)
{
	char d[32], t[32], r[32];
	int tty = isatty(2);

	(void)arg;
	human(d, sizeof(d), done);
	human(r, sizeof(r), rate);
	if (total) {
		human(t, sizeof(t), total);
		fprintf(stderr, "%s%s of %s (%llu%%), %s/s%s", tty ? "\r" : "", d, t,
			(unsigned long long)(done * 100 / total), r, tty ? "\033[K" : "\n");
	} else {
		fprintf(stderr, "%s%s, %s/s%s", tty ? "\r" : "", d, r, tty ? "\033[K" : "\n");
	}
	if (tty && total && done >= total)
		fputc('\n', stderr);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || x > max)
		return -1;
	*v = x;
	return 0;
}

enum { O_JSON = 256, O_BLKSIZE, O_WINDOW, O_NOOPT, O_MAX, O_TIMEOUT, O_CA };

/* The trust anchors, and why the default ones did not load (reported only
 * when an https:// URL needs them: a broken CA store does not stop http). */
struct tls_arg {
	struct lb_tls_config cfg;
	char err[300];
};

static int tls_open(void *arg, int fd, const char *host, unsigned timeout_ms,
		    struct lb_net_transport *t, char *err, size_t errsz)
{
	struct tls_arg *ta = arg;

	if (ta->err[0]) {
		close(fd);
		snprintf(err, errsz, "%s", ta->err);
		return -ENOKEY;
	}
	return lb_tls_open(&ta->cfg, fd, host, timeout_ms, t, err, errsz);
}

/* --ca paths, or the defaults that exist */
static int load_anchors(struct lb_tls_anchors *a, char **ca, int n_ca, struct tls_arg *ta)
{
	static const char *const defaults[] = { LB_TLS_DEFAULT_DIR, LB_TLS_DEFAULT_FILE };
	char e[256];

	for (int i = 0; i < n_ca; i++) {
		if (lb_tls_anchors_add_path(a, ca[i], e, sizeof(e)) < 0) {
			lb_err("--ca %s", e);
			return -1;
		}
	}
	for (size_t i = 0; !n_ca && i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		if (access(defaults[i], F_OK))
			continue;
		if (lb_tls_anchors_add_path(a, defaults[i], e, sizeof(e)) < 0) {
			snprintf(ta->err, sizeof(ta->err), "trust anchors: %s", e);
			break;
		}
	}
	return 0;
}

int fetch_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, 0, 'o' },
		{ "json", no_argument, 0, O_JSON },
		{ "blksize", required_argument, 0, O_BLKSIZE },
		{ "windowsize", required_argument, 0, O_WINDOW },
		{ "no-tftp-options", no_argument, 0, O_NOOPT },
		{ "max-size", required_argument, 0, O_MAX },
		{ "timeout", required_argument, 0, O_TIMEOUT },
		{ "ca", required_argument, 0, O_CA },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct lb_fetch_opts o = { 0 };
	struct lb_fetch_result *res = NULL;
	struct out out = { -1, 0 };
	struct lb_tls_anchors *anchors = NULL;
	struct tls_arg *ta = NULL;
	char **ca = NULL;
	int n_ca = 0;
	const char *file = NULL, *url;
	char *tmp = NULL, *dcopy = NULL, *bcopy = NULL;
	int json = 0, quiet = 0, c, rc = 1;
	uint64_t v, t0;

	while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			file = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_BLKSIZE:
			if (parse_u64(optarg, LB_TFTP_BLKSIZE_MAX, &v) || v < LB_TFTP_BLKSIZE_MIN)
				goto usage;
			o.tftp.blksize = (unsigned)v;
			break;
		case O_WINDOW:
			if (parse_u64(optarg, LB_TFTP_WINDOW_MAX, &v) || !v)
				goto usage;
			o.tftp.windowsize = (unsigned)v;
			break;
		case O_NOOPT:
			o.no_tftp_options = 1;
			break;
		case O_MAX:
			if (parse_u64(optarg, UINT64_MAX, &v) || !v)
				goto usage;
			o.max_size = v;
			break;
		case O_TIMEOUT:
			if (parse_u64(optarg, 3600, &v) || !v)
				goto usage;
			o.timeout_ms = (unsigned)v * 1000;
			break;
		case O_CA: {
			char **nc;
			if (!*optarg)
				goto usage;
			if (!(nc = realloc(ca, (size_t)(n_ca + 1) * sizeof(*ca)))) {
				lb_err("out of memory");
				goto done;
			}
			ca = nc;
			ca[n_ca++] = optarg;
			break;
		}
		case 'h':
			free(ca);
			lb_usage("fetch");
			return 0;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc || !file || !*file)
		goto usage;
	url = argv[optind];
	struct stat st;
	if (!stat(file, &st) && !S_ISREG(st.st_mode)) {
		/* never rename over a device, a directory or a pipe */
		lb_err("%s: exists and is not a regular file", file);
		goto done;
	}
	if (!(res = calloc(1, sizeof(*res))) || !(dcopy = strdup(file)) ||
	    !(bcopy = strdup(file)) || !(anchors = lb_tls_anchors_new()) ||
	    !(ta = calloc(1, sizeof(*ta)))) {
		lb_err("out of memory");
		goto done;
	}
	if (load_anchors(anchors, ca, n_ca, ta))
		goto done;
	ta->cfg.anchors = anchors;
	/* validity checked at the clock, but never before this binary's
	 * build date (tls.h): an RTC reset to 1970 does not fail every
	 * certificate, nor revive one that expired before the build */
	ta->cfg.time_floor = lb_tls_build_date(__DATE__);
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dcopy), basename(bcopy)) < 0) {
		tmp = NULL;
		lb_err("out of memory");
		goto done;
	}
	out.fd = mkostemp(tmp, O_CLOEXEC);
	if (out.fd < 0) {
		lb_err("%s: %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto done;
	}
	o.sink = sink;
	o.sink_arg = &out;
	o.tls_open = tls_open;
	o.tls_arg = ta;
	if (!quiet && !json)
		o.progress = progress;
	t0 = lb_now_ms();
	int r = lb_fetch(url, &o, res);
	if (r) {
		lb_err("%s", res->err);
		goto done;
	}
	if (out.written != res->size) {
		lb_err("%s: short write", file);
		goto done;
	}
	if (fsync(out.fd) || fchmod(out.fd, 0644) || close(out.fd)) {
		out.fd = -1;
		lb_err("%s: %s", tmp, strerror(errno));
		goto done;
	}
	out.fd = -1;
	if (rename(tmp, file)) {
		lb_err("%s: %s", file, strerror(errno));
		goto done;
	}
	free(tmp);
	tmp = NULL;
	rc = 0;
	if (json) {
		uint64_t ms = lb_now_ms() - t0;
		printf("{\"url\": ");
		lb_json_str(stdout, url);
		printf(", \"final_url\": ");
		lb_json_str(stdout, res->url);
		printf(", \"file\": ");
		lb_json_str(stdout, file);
		printf(", \"bytes\": %llu, \"seconds\": %.3f, \"bytes_per_second\": %llu",
		       (unsigned long long)res->size, (double)ms / 1000,
		       (unsigned long long)(ms ? res->size * 1000 / ms : 0));
		if (res->http_status)
			printf(", \"http_status\": %d, \"redirects\": %u", res->http_status,
			       res->redirects);
		else
			printf(", \"tftp_blksize\": %u, \"tftp_windowsize\": %u",
			       res->tftp_blksize, res->tftp_windowsize);
		printf("}\n");
	}
done:
	if (out.fd >= 0)
		close(out.fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dcopy);
	free(bcopy);
	free(res);
	free(ta);
	lb_tls_anchors_free(anchors);
	free(ca);
	return rc;
usage:
	free(ca);
	lb_usage("fetch");
	return 2;
}
