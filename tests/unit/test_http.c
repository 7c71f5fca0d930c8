/*
 * URL and HTTP/1.1 framing tests. Responses are written here per RFC 9112
 * (real nginx and BusyBox httpd answers are exercised by tests/host/fetch.sh);
 * the reference resolution cases are RFC 3986 section 5.4's.
 */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "http.h"
#include "netio.h"

static void test_urls(void)
{
	struct lb_url u;
	struct { const char *in; int rc; int scheme; const char *host; unsigned port;
		 const char *path; int v6; } t[] = {
		{ "http://boot.example/x/y.ipxe?mac=52:54", 0, LB_URL_HTTP, "boot.example", 80, "/x/y.ipxe?mac=52:54", 0 },
		{ "HTTPS://h:8443", 0, LB_URL_HTTPS, "h", 8443, "/", 0 },
		{ "tftp://10.0.2.2/pxelinux.0", 0, LB_URL_TFTP, "10.0.2.2", 69, "/pxelinux.0", 0 },
		{ "http://[fd00:77::1]:8080/a%20b#frag", 0, LB_URL_HTTP, "fd00:77::1", 8080, "/a%20b", 1 },
		{ "http://h:/p", 0, LB_URL_HTTP, "h", 80, "/p", 0 },
		{ "http://h?q=1", 0, LB_URL_HTTP, "h", 80, "/?q=1", 0 },
		{ "ftp://h/x", -EPROTONOSUPPORT },
		{ "pxelinux.0", -EPROTONOSUPPORT },
		{ "http://", -EINVAL },
		{ "http://user:pw@h/", -EINVAL },
		{ "http://h:0/", -EINVAL },
		{ "http://h:65536/", -EINVAL },
		{ "http://h:123456/", -EINVAL },
		{ "http://h:8x/", -EINVAL },
		{ "http://h/a b", -EINVAL },
		{ "http://h/a\nb", -EINVAL },
		{ "http://h/%zz", -EINVAL },
		{ "http://h/%4", -EINVAL },
		{ "http://[::1/", -EINVAL },
		{ "http://[]/", -EINVAL },
		{ "http://[zz::1]/", -EINVAL },
		{ "http://h$st/", -EINVAL },
		{ "http://h/\xc3\xa9", -EINVAL },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[96];
		snprintf(name, sizeof(name), "url/parse/%zu", i);
		TEST(name) {
			CHECK_INT(lb_url_parse(t[i].in, &u), t[i].rc);
			if (!t[i].rc) {
				CHECK_INT(u.scheme, t[i].scheme);
				CHECK_STR(u.host, t[i].host);
				CHECK_INT(u.port, t[i].port);
				CHECK_STR(u.path, t[i].path);
				CHECK_INT(u.ipv6, t[i].v6);
			}
		}
	}
	TEST("url/host-length") {
		char s[400] = "http://";
		memset(s + 7, 'a', 256);
		s[263] = 0;
		CHECK_INT(lb_url_parse(s, &u), -EINVAL);
		s[262] = 0;
		CHECK_INT(lb_url_parse(s, &u), 0);
	}
	TEST("url/format") {
		char out[256];
		lb_url_parse("http://[fd00::1]:8080/x?y", &u);
		CHECK_INT(lb_url_format(&u, out, sizeof(out)), 0);
		CHECK_STR(out, "http://[fd00::1]:8080/x?y");
		CHECK_INT(lb_url_format(&u, out, 10), -ENAMETOOLONG);
	}
}

static void test_resolve(void)
{
	static const char *base = "http://a/b/c/d;p?q";
	struct { const char *ref, *want; } t[] = {
		{ "g", "http://a/b/c/g" }, { "./g", "http://a/b/c/g" },
		{ "g/", "http://a/b/c/g/" }, { "/g", "http://a/g" },
		{ "//g", "http://g/" }, { "?y", "http://a/b/c/d;p?y" },
		{ "g?y", "http://a/b/c/g?y" }, { "#s", "http://a/b/c/d;p?q" },
		{ "g#s", "http://a/b/c/g" }, { ";x", "http://a/b/c/;x" },
		{ "", "http://a/b/c/d;p?q" }, { ".", "http://a/b/c/" },
		{ "./", "http://a/b/c/" }, { "..", "http://a/b/" },
		{ "../", "http://a/b/" }, { "../g", "http://a/b/g" },
		{ "../..", "http://a/" }, { "../../", "http://a/" },
		{ "../../g", "http://a/g" }, { "../../../g", "http://a/g" },
		{ "../../../../g", "http://a/g" }, { "/./g", "http://a/g" },
		{ "/../g", "http://a/g" }, { "g.", "http://a/b/c/g." },
		{ ".g", "http://a/b/c/.g" }, { "g..", "http://a/b/c/g.." },
		{ "..g", "http://a/b/c/..g" }, { "./../g", "http://a/b/g" },
		{ "./g/.", "http://a/b/c/g/" }, { "g/./h", "http://a/b/c/g/h" },
		{ "g/../h", "http://a/b/c/h" }, { "g;x=1/./y", "http://a/b/c/g;x=1/y" },
		{ "g;x=1/../y", "http://a/b/c/y" },
		{ "https://other:444/z", "https://other:444/z" },
		{ "tftp://10.0.2.2/k", "tftp://10.0.2.2/k" },
	};
	char out[LB_URL_MAX];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[96];
		snprintf(name, sizeof(name), "url/resolve/%s", t[i].ref[0] ? t[i].ref : "(empty)");
		TEST(name) {
			CHECK_INT(lb_url_resolve(base, t[i].ref, out, sizeof(out)), 0);
			CHECK_STR(out, t[i].want);
		}
	}
	TEST("url/resolve-bad") {
		CHECK_INT(lb_url_resolve(base, "a b", out, sizeof(out)), -EINVAL);
		CHECK_INT(lb_url_resolve(base, "mailto:x", out, sizeof(out)), -EPROTONOSUPPORT);
		CHECK_INT(lb_url_resolve("nope", "g", out, sizeof(out)), -EPROTONOSUPPORT);
		CHECK_INT(lb_url_resolve(base, "%zz", out, sizeof(out)), -EINVAL);
		CHECK_INT(lb_url_resolve(base, "g", out, 10), -ENAMETOOLONG);
		CHECK_INT(lb_url_resolve("tftp://s/dir/pxelinux.0", "pxelinux.cfg/default", out,
					 sizeof(out)), 0);
		CHECK_STR(out, "tftp://s/dir/pxelinux.cfg/default");
	}
	TEST("url/path-decode") {
		struct lb_url u;
		char p[64];
		lb_url_parse("tftp://s/boot/a%20b.cfg?x", &u);
		CHECK_INT(lb_url_path_decode(&u, p, sizeof(p)), 0);
		CHECK_STR(p, "boot/a b.cfg");
		lb_url_parse("tftp://s/a%00b", &u);
		CHECK_INT(lb_url_path_decode(&u, p, sizeof(p)), -EINVAL);
		lb_url_parse("tftp://s/a%0ab", &u);
		CHECK_INT(lb_url_path_decode(&u, p, sizeof(p)), -EINVAL);
		lb_url_parse("tftp://s/", &u);
		CHECK_INT(lb_url_path_decode(&u, p, sizeof(p)), -EINVAL);
		lb_url_parse("tftp://s/abcdef", &u);
		CHECK_INT(lb_url_path_decode(&u, p, 4), -ENAMETOOLONG);
	}
	TEST("http/request") {
		struct lb_url u;
		char b[512];
		size_t n;
		lb_url_parse("http://[fd00::1]:8080/boot.ipxe?mac=1", &u);
		CHECK_INT(lb_http_request(&u, 0, b, sizeof(b), &n), 0);
		CHECK_STR(b, "GET /boot.ipxe?mac=1 HTTP/1.1\r\nHost: [fd00::1]:8080\r\n"
			  "User-Agent: lboot\r\nAccept: */*\r\nConnection: close\r\n\r\n");
		CHECK_INT(n, strlen(b));
		lb_url_parse("http://h/", &u);
		CHECK_INT(lb_http_request(&u, 1, b, sizeof(b), &n), 0);
		CHECK(strstr(b, "Host: h\r\n") && strstr(b, "Connection: keep-alive\r\n"));
		CHECK_INT(lb_http_request(&u, 1, b, 20, &n), -ENOSPC);
	}
}

static struct lb_http_resp r;

/* Feed a head in pieces of step bytes; returns the feed result. */
static int head(const char *s, size_t step, size_t *body_at)
{
	size_t len = strlen(s), i = 0, used;
	int rc = 0;

	lb_http_head_init(&r);
	while (i < len) {
		size_t n = len - i < step ? len - i : step;
		rc = lb_http_head_feed(&r, (const uint8_t *)s + i, n, &used);
		if (rc)
			break;
		i += n;
	}
	if (rc == 1)
		*body_at = i + used;
	return rc;
}

static void test_heads(void)
{
	struct { const char *name, *in; int rc, status; long long cl; int chunked, close;
		 const char *loc; } t[] = {
		{ "ok", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello",
		  1, 200, 5, 0, 0, "" },
		{ "lf-only", "HTTP/1.1 200 OK\nContent-Length: 5\n\n", 1, 200, 5, 0, 0, "" },
		{ "leading-crlf", "\r\nHTTP/1.1 204 No Content\r\n\r\n", 1, 204, -1, 0, 0, "" },
		{ "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 1, 200, -1, 1, 0, "" },
		{ "te-and-cl", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nTransfer-Encoding: Chunked\r\n\r\n",
		  1, 200, -1, 1, 1, "" },
		{ "http10", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n", 1, 200, 1, 0, 1, "" },
		{ "http10-keepalive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\n",
		  1, 200, 1, 0, 0, "" },
		{ "no-length", "HTTP/1.1 200 OK\r\n\r\n", 1, 200, -1, 0, 1, "" },
		{ "close", "HTTP/1.1 404 Not Found\r\nconnection: foo, close\r\ncontent-length: 0\r\n\r\n",
		  1, 404, 0, 0, 1, "" },
		{ "redirect", "HTTP/1.1 302 Found\r\nLocation:  /x/y?z \r\nContent-Length: 0\r\n\r\n",
		  1, 302, 0, 0, 0, "/x/y?z" },
		{ "continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\n"
		  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", 1, 200, 2, 0, 0, "" },
		{ "cl-same-twice", "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n",
		  1, 200, 7, 0, 0, "" },
		{ "cl-list-same", "HTTP/1.1 200 OK\r\nContent-Length: 7 , 7\r\n\r\n", 1, 200, 7, 0, 0, "" },
		{ "cl-conflict", "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Length: 8\r\n\r\n", -EPROTO },
		{ "cl-list-conflict", "HTTP/1.1 200 OK\r\nContent-Length: 7, 8\r\n\r\n", -EPROTO },
		{ "cl-negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", -EPROTO },
		{ "cl-huge", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", -EPROTO },
		{ "cl-empty", "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", -EPROTO },
		{ "te-gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", -EOPNOTSUPP },
		{ "te-twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", -EPROTO },
		{ "te-http10", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", -EPROTO },
		{ "obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", -EPROTO },
		{ "space-before-colon", "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n", -EPROTO },
		{ "no-colon", "HTTP/1.1 200 OK\r\nBogus\r\n\r\n", -EPROTO },
		{ "nul", "HTTP/1.1 200 OK\r\nX: a\001b\r\n\r\n", -EPROTO },
		{ "bare-cr", "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", -EPROTO },
		{ "status-short", "HTTP/1.1 20\r\n\r\n", -EPROTO },
		{ "status-range", "HTTP/1.1 999 Odd\r\n\r\n", -EPROTO },
		{ "http2", "HTTP/2 200 OK\r\n\r\n", -EPROTO },
		{ "not-http", "SSH-2.0-OpenSSH\r\n\r\n", -EPROTO },
		{ "switching", "HTTP/1.1 101 Switching\r\n\r\n", -EPROTO },
		{ "two-locations", "HTTP/1.1 302 F\r\nLocation: /a\r\nLocation: /b\r\n\r\n", -EPROTO },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (size_t step = 1; step <= 4096; step *= 64) {
			char name[96];
			size_t at = 0;
			snprintf(name, sizeof(name), "http/head/%s/step%zu", t[i].name, step);
			TEST(name) {
				CHECK_INT(head(t[i].in, step, &at), t[i].rc);
				if (t[i].rc == 1) {
					CHECK_INT(r.status, t[i].status);
					CHECK_INT(r.content_length, t[i].cl);
					CHECK_INT(r.chunked, t[i].chunked);
					CHECK_INT(r.close, t[i].close);
					CHECK_STR(r.location, t[i].loc);
					CHECK_INT(strlen(t[i].in) - at, t[i].cl > 0 && !strcmp(t[i].name, "ok") ? 5 : 0);
				}
			}
		}
	}
	TEST("http/head/too-big") {
		static char big[LB_HTTP_HEAD_MAX + 100];
		strcpy(big, "HTTP/1.1 200 OK\r\nX: ");
		memset(big + strlen(big), 'a', LB_HTTP_HEAD_MAX);
		big[LB_HTTP_HEAD_MAX + 20] = 0;
		size_t at;
		CHECK_INT(head(big, 1000, &at), -EMSGSIZE);
	}
	TEST("http/head/reason") {
		size_t at;
		CHECK_INT(head("HTTP/1.1 404 Not Found\r\n\r\n", 7, &at), 1);
		CHECK_STR(r.reason, "Not Found");
	}
}

/* Decode a whole body given in pieces of step bytes. */
static int body(const struct lb_http_resp *resp, const char *in, size_t len, size_t step,
		uint64_t max, char *out, size_t *outlen, size_t *rest)
{
	struct lb_http_body b;
	size_t i = 0, o = 0;
	int rc = 0;

	lb_http_body_init(&b, resp, max);
	*rest = 0;
	while (i < len) {
		size_t end = len - i < step ? len : i + step;
		while (i < end) {
			size_t used, dl;
			const uint8_t *d;
			rc = lb_http_body_feed(&b, (const uint8_t *)in + i, end - i, &used, &d, &dl);
			if (rc < 0)
				return rc;
			memcpy(out + o, d, dl);
			o += dl;
			i += used;
			if (rc == 1) {
				*rest = len - i;
				*outlen = o;
				return 1;
			}
		}
	}
	*outlen = o;
	rc = lb_http_body_eof(&b);
	return rc ? rc : (b.mode == LB_BODY_CLOSE ? 2 : 0);
}

static void test_bodies(void)
{
	struct lb_http_resp cl = { .status = 200, .content_length = 5 };
	struct lb_http_resp ch = { .status = 200, .content_length = -1, .chunked = 1 };
	struct lb_http_resp cs = { .status = 200, .content_length = -1, .close = 1 };
	struct lb_http_resp nb = { .status = 304, .content_length = 10 };
	struct { const char *name; struct lb_http_resp *r; const char *in; uint64_t max;
		 int rc; const char *want; size_t rest; } t[] = {
		{ "length", &cl, "hello", 0, 1, "hello", 0 },
		{ "length-extra", &cl, "helloGET", 0, 1, "hello", 3 },
		{ "length-short", &cl, "hell", 0, -EPIPE },
		{ "length-over-max", &cl, "hello", 4, -EFBIG },
		{ "close", &cs, "all of it", 0, 2, "all of it" },
		{ "close-over-max", &cs, "all of it", 5, -EFBIG },
		{ "not-modified", &nb, "", 0, 0, "" },
		{ "chunked", &ch, "4\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n", 0,
		  1, "Wikipedia in\r\n\r\nchunks.", 0 },
		{ "chunked-ext-trailer", &ch, "3;name=\"v\" ; x\r\nabc\r\n0\r\nDigest: x\r\nY: z\r\n\r\nNEXT",
		  0, 1, "abc", 4 },
		{ "chunked-lf-only", &ch, "3\nabc\n0\n\n", 0, 1, "abc", 0 },
		{ "chunked-upper-hex", &ch, "A\r\n0123456789\r\n0\r\n\r\n", 0, 1, "0123456789", 0 },
		{ "chunked-leading-zeros", &ch, "0003\r\nabc\r\n0\r\n\r\n", 0, 1, "abc", 0 },
		{ "chunked-overflow", &ch, "10000000000000000\r\n", 0, -EPROTO },
		{ "chunked-endless", &ch, "fffffffffffffff\r\nabc", 1 << 30, -EFBIG },
		{ "chunked-endless-nocap", &ch, "fffffffffffffff\r\nabc", 0, -EPIPE },
		{ "chunked-over-max", &ch, "8\r\n12345678\r\n8\r\n12345678\r\n", 12, -EFBIG },
		{ "chunked-no-size", &ch, "\r\nabc\r\n", 0, -EPROTO },
		{ "chunked-bad-size", &ch, "3x\r\nabc\r\n", 0, -EPROTO },
		{ "chunked-no-crlf", &ch, "3\r\nabcd\r\n0\r\n\r\n", 0, -EPROTO },
		{ "chunked-cr-no-lf", &ch, "3\r\nabc\rX", 0, -EPROTO },
		{ "chunked-size-cr-no-lf", &ch, "3\rabc", 0, -EPROTO },
		{ "chunked-short", &ch, "5\r\nabc", 0, -EPIPE },
		{ "chunked-no-last", &ch, "3\r\nabc\r\n", 0, -EPIPE },
		{ "chunked-ext-ctl", &ch, "3;\001\r\nabc\r\n", 0, -EPROTO },
	};
	static char out[70000];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (size_t step = 1; step <= 64; step *= 8) {
			char name[96];
			size_t n = 0, rest = 0;
			snprintf(name, sizeof(name), "http/body/%s/step%zu", t[i].name, step);
			TEST(name) {
				int rc = body(t[i].r, t[i].in, strlen(t[i].in), step, t[i].max, out, &n, &rest);
				CHECK_INT(rc, t[i].rc);
				if (rc >= 0) {
					out[n] = 0;
					CHECK_STR(out, t[i].want);
					CHECK_INT(rest, t[i].rest);
				}
			}
		}
	}
	TEST("http/body/chunked-ext-too-long") {
		static char in[8000];
		size_t n, rest;
		strcpy(in, "3;");
		memset(in + 2, 'x', 5000);
		strcpy(in + 5002, "\r\nabc\r\n0\r\n\r\n");
		CHECK_INT(body(&ch, in, strlen(in), 100, 0, out, &n, &rest), -EPROTO);
	}
	TEST("http/body/chunked-trailer-too-long") {
		static char in[40000];
		size_t n, rest;
		strcpy(in, "0\r\n");
		for (int k = 0; k < 2000; k++)
			strcat(in, "X-Pad: 0123456\r\n");
		strcat(in, "\r\n");
		CHECK_INT(body(&ch, in, strlen(in), 1000, 0, out, &n, &rest), -EPROTO);
	}
	TEST("http/body/chunked-many-small") {
		static char in[200000];
		size_t n, rest, o = 0;
		for (int k = 0; k < 10000; k++)
			o += (size_t)sprintf(in + o, "6\r\n%06d\r\n", k);
		strcpy(in + o, "0\r\n\r\n");
		CHECK_INT(body(&ch, in, strlen(in), 777, 0, out, &n, &rest), 1);
		CHECK_INT(n, 60000);
		CHECK(!memcmp(out + 6 * 9999, "009999", 6));
	}
}

/* --- netio: https:// through the pluggable transport (a fake "TLS" that
 * passes bytes through), against a one-shot server in a child process --- */

struct fake_tls {
	int fd;
	int calls;
	char host[64];
	int fail;
};

static ssize_t ft_read(void *ctx, void *buf, size_t len)
{
	ssize_t k = read(((struct fake_tls *)ctx)->fd, buf, len);
	return k < 0 ? -errno : k;
}

static ssize_t ft_write(void *ctx, const void *buf, size_t len)
{
	ssize_t k = write(((struct fake_tls *)ctx)->fd, buf, len);
	return k < 0 ? -errno : k;
}

static void ft_close(void *ctx)
{
	close(((struct fake_tls *)ctx)->fd);
}

static int ft_open(void *arg, int fd, const char *host, unsigned timeout_ms,
		   struct lb_net_transport *t, char *err, size_t errsz)
{
	struct fake_tls *f = arg;

	f->calls++;
	snprintf(f->host, sizeof(f->host), "%s", host);
	if (f->fail) {
		close(fd);
		snprintf(err, errsz, "certificate not trusted");
		return -EACCES;
	}
	/* the fake reads with blocking calls */
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	f->fd = fd;
	t->ctx = f;
	t->read = ft_read;
	t->write = ft_write;
	t->close = ft_close;
	return 0;
}

/* Listen on 127.0.0.1:ephemeral and answer each of n connections with resp. */
static pid_t serve(const char *resp, int n, unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		return -1;
	*port = ntohs(a.sin_port);
	pid_t pid = fork();
	if (pid)
		return close(s), pid;
	for (int i = 0; i < n; i++) {
		int c = accept(s, NULL, NULL);
		char req[4096];
		size_t got = 0;
		while (got < sizeof(req) - 1) {
			ssize_t k = read(c, req + got, sizeof(req) - 1 - got);
			if (k <= 0)
				break;
			got += (size_t)k;
			req[got] = 0;
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		if (write(c, resp, strlen(resp)) < 0)
			_exit(1);
		close(c);
	}
	_exit(0);
}

static char sink_buf[256];
static size_t sink_len;

static int sink(void *arg, const void *d, size_t n, uint64_t off)
{
	if (off != sink_len || n > sizeof(sink_buf) - 1 - sink_len)
		return -EFBIG;
	memcpy(sink_buf + sink_len, d, n);
	sink_len += n;
	sink_buf[sink_len] = 0;
	return 0;
}

static void test_transport(void)
{
	struct fake_tls f = { 0 };
	struct lb_fetch_opts o = { .sink = sink, .timeout_ms = 5000, .tls_open = ft_open,
				   .tls_arg = &f };
	struct lb_fetch_result res;
	char url[128];
	unsigned port;
	int st;

	TEST("netio/https-without-tls") {
		struct lb_fetch_opts n = { .sink = sink };
		CHECK_INT(lb_fetch("https://127.0.0.1/x", &n, &res), -EPROTONOSUPPORT);
		CHECK_STR(res.err, "https: not built in yet");
	}
	TEST("netio/https-through-transport") {
		pid_t pid = serve("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 1, &port);
		CHECK(pid > 0);
		snprintf(url, sizeof(url), "https://127.0.0.1:%u/x", port);
		sink_len = 0;
		CHECK_INT(lb_fetch(url, &o, &res), 0);
		CHECK_STR(sink_buf, "hello");
		CHECK_INT(res.size, 5);
		CHECK_INT(res.http_status, 200);
		CHECK_INT(f.calls, 1);
		CHECK_STR(f.host, "127.0.0.1");
		waitpid(pid, &st, 0);
	}
	/* an attacker on the plain hop must not get to serve the file: a
	 * redirect from https:// to http:// or tftp:// is refused before any
	 * byte goes to the plain server (it would answer "ok") */
	TEST("netio/https-redirect-to-http-refused") {
		char resp[256], want[256];
		unsigned port2;
		pid_t p2 = serve("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
				 1, &port2);
		snprintf(resp, sizeof(resp), "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%u/y\r\n"
			 "Content-Length: 0\r\n\r\n", port2);
		pid_t p1 = serve(resp, 1, &port);
		snprintf(url, sizeof(url), "https://127.0.0.1:%u/x", port);
		sink_len = 0;
		sink_buf[0] = 0;
		f.calls = 0;
		CHECK_INT(lb_fetch(url, &o, &res), -EPERM);
		CHECK_STR(sink_buf, "");
		CHECK_INT(f.calls, 1);
		snprintf(want, sizeof(want), "https://127.0.0.1:%u/x: redirect to http://127.0.0.1:%u/y "
			 "refused: https:// may only redirect to https://", port, port2);
		CHECK_STR(res.err, want);
		waitpid(p1, &st, 0);
		kill(p2, SIGKILL);
		waitpid(p2, &st, 0);
	}
	TEST("netio/https-redirect-to-tftp-refused") {
		pid_t p1 = serve("HTTP/1.1 301 Moved\r\nLocation: tftp://127.0.0.1/y\r\n"
				 "Content-Length: 0\r\n\r\n", 1, &port);
		snprintf(url, sizeof(url), "https://127.0.0.1:%u/x", port);
		sink_len = 0;
		sink_buf[0] = 0;
		CHECK_INT(lb_fetch(url, &o, &res), -EPERM);
		CHECK_STR(sink_buf, "");
		CHECK(strstr(res.err, "redirect to tftp://127.0.0.1/y refused") != NULL);
		waitpid(p1, &st, 0);
	}
	TEST("netio/https-redirect-to-https") {
		char resp[256];
		unsigned port2;
		pid_t p2 = serve("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 1, &port2);
		snprintf(resp, sizeof(resp), "HTTP/1.1 302 Found\r\nLocation: https://127.0.0.1:%u/y\r\n"
			 "Content-Length: 0\r\n\r\n", port2);
		pid_t p1 = serve(resp, 1, &port);
		snprintf(url, sizeof(url), "https://127.0.0.1:%u/x", port);
		sink_len = 0;
		f.calls = 0;
		CHECK_INT(lb_fetch(url, &o, &res), 0);
		CHECK_STR(sink_buf, "ok");
		CHECK_INT(res.redirects, 1);
		CHECK_INT(f.calls, 2);
		waitpid(p1, &st, 0);
		waitpid(p2, &st, 0);
	}
	TEST("netio/tls-open-fails") {
		pid_t pid = serve("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 1, &port);
		snprintf(url, sizeof(url), "https://127.0.0.1:%u/x", port);
		f.fail = 1;
		sink_len = 0;
		CHECK_INT(lb_fetch(url, &o, &res), -EACCES);
		CHECK_STR(res.err, "https://127.0.0.1: certificate not trusted");
		CHECK_INT(sink_len, 0);
		waitpid(pid, &st, 0);
	}
}

int main(void)
{
	test_urls();
	test_resolve();
	test_heads();
	test_bodies();
	test_transport();
	return t_done();
}
