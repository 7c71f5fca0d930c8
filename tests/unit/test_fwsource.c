/* src/boot/fwsource.c: lboot.update= (fs:/PATH, https://, http://), the
 * update file and its signature read from a filesystem and fetched from
 * a one-shot HTTP server in a child process (caps, a missing signature,
 * the bound over the whole fetch). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "fwsource.h"
#include "netio.h"
#include "update.h"

static void test_parse(void)
{
	static const struct {
		const char *opt;
		int rc;
		enum lb_fwsrc_kind kind;
		const char *arg;
	} cases[] = {
		{ "", 0, LB_FWSRC_NONE, NULL },
		{ "fs:/EFI/lboot/update.lbu", 0, LB_FWSRC_FS, "/EFI/lboot/update.lbu" },
		{ "fs:/u", 0, LB_FWSRC_FS, "/u" },
		{ "fs:/a..b/u.lbu", 0, LB_FWSRC_FS, "/a..b/u.lbu" },
		{ "fs:EFI/u.lbu", -EINVAL, LB_FWSRC_NONE, NULL },     /* not absolute */
		{ "fs:/", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "fs:", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "fs:/EFI/../u.lbu", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "fs:/EFI/..", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "fs:/EFI/lboot/", -EINVAL, LB_FWSRC_NONE, NULL },  /* a directory */
		{ "fs:/a\tb", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https://fw.example/lboot/update.lbu", 0, LB_FWSRC_URL,
		  "https://fw.example/lboot/update.lbu" },
		{ "https://192.168.77.1:8443/u.lbu", 0, LB_FWSRC_URL, "https://192.168.77.1:8443/u.lbu" },
		{ "https://[fd00::1]/fleet/v.lbu", 0, LB_FWSRC_URL, "https://[fd00::1]/fleet/v.lbu" },
		{ "http://10.0.0.1/u.lbu", 0, LB_FWSRC_URL, "http://10.0.0.1/u.lbu" },
		{ "https://fw.example", -EINVAL, LB_FWSRC_NONE, NULL },      /* no file */
		{ "https://fw.example/", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https://fw.example/dir/", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https://fw.example/u.lbu?v=2", -EINVAL, LB_FWSRC_NONE, NULL }, /* .minisig would be in the query */
		{ "https://fw.example/u.lbu#x", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https://user@fw.example/u.lbu", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https://fw.example:99999/u.lbu", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https:///u.lbu", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "https://fw.example/a b", -EINVAL, LB_FWSRC_NONE, NULL },
		{ "tftp://10.0.0.1/u.lbu", -EPROTONOSUPPORT, LB_FWSRC_NONE, NULL },
		{ "ftp://10.0.0.1/u.lbu", -EPROTONOSUPPORT, LB_FWSRC_NONE, NULL },
		{ "HTTPS://fw.example/u.lbu", -EPROTONOSUPPORT, LB_FWSRC_NONE, NULL },
		{ "/EFI/lboot/update.lbu", -EINVAL, LB_FWSRC_NONE, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[160], why[512];
		enum lb_fwsrc_kind kind = 99;
		const char *arg = "x";
		int r;

		snprintf(name, sizeof(name), "fwsource/parse '%s'", cases[i].opt);
		for (char *c = name; *c; c++)
			if (*c < 0x20)
				*c = '?';
		TEST(name) {
			r = lb_fwsrc_parse(cases[i].opt, &kind, &arg, why, sizeof(why));
			CHECK_INT(r, cases[i].rc);
			CHECK_INT(kind, cases[i].kind);
			if (cases[i].arg)
				CHECK_STR(arg, cases[i].arg);
			else
				CHECK(arg == NULL);
			/* a refusal is one line that names the option */
			if (r) {
				CHECK(strncmp(why, "lboot.update=", 13) == 0);
				CHECK(strchr(why, '\n') == NULL);
			} else {
				CHECK_STR(why, "");
			}
		}
	}
	TEST("fwsource/parse: a URL too long for URL.minisig") {
		char opt[LB_URL_MAX + 16], why[256];
		enum lb_fwsrc_kind kind;
		const char *arg;

		memset(opt, 'a', sizeof(opt) - 1);
		opt[sizeof(opt) - 1] = 0;
		memcpy(opt, "https://h/", 10);
		CHECK_INT(lb_fwsrc_parse(opt, &kind, &arg, why, sizeof(why)), -EINVAL);
		CHECK(strstr(why, "longer than") != NULL);
		opt[LB_URL_MAX - sizeof(".minisig")] = 0;
		CHECK_INT(lb_fwsrc_parse(opt, &kind, &arg, why, sizeof(why)), 0);
		CHECK_INT(kind, LB_FWSRC_URL);
	}
}

static int put(const char *path, const void *d, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write(fd, d, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static void test_read_fs(void)
{
	char dir[] = "/tmp/lboot-test-fwsrc.XXXXXX", p[256], why[256];
	struct lb_fwsrc_file f;

	if (!mkdtemp(dir)) {
		TEST("fwsource/read-fs") { CHECK(0); }
		return;
	}
	struct lb_fs fs = { .dir = dir, .name = "/dev/vdz1" };
	snprintf(p, sizeof(p), "%s/EFI", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/EFI/u.lbu", dir);
	put(p, "IMAGE", 5);
	TEST("fwsource/read-fs: missing file is -ENOENT, nothing said") {
		CHECK_INT(lb_fwsrc_read_fs(&fs, "/EFI/none.lbu", &f, why, sizeof(why)), -ENOENT);
		CHECK_STR(why, "");
		CHECK(f.buf == NULL && f.sig == NULL);
	}
	TEST("fwsource/read-fs: no signature: sig NULL (the decision refuses)") {
		CHECK_INT(lb_fwsrc_read_fs(&fs, "/EFI/u.lbu", &f, why, sizeof(why)), 0);
		CHECK_INT(f.len, 5);
		CHECK(!memcmp(f.buf, "IMAGE", 5));
		CHECK(f.sig == NULL);
		lb_fwsrc_file_free(&f);
	}
	snprintf(p, sizeof(p), "%s/EFI/u.lbu.minisig", dir);
	put(p, "SIG", 3);
	TEST("fwsource/read-fs: file and signature") {
		CHECK_INT(lb_fwsrc_read_fs(&fs, "/EFI/u.lbu", &f, why, sizeof(why)), 0);
		CHECK_INT(f.siglen, 3);
		CHECK(f.sig && !memcmp(f.sig, "SIG", 3));
		lb_fwsrc_file_free(&f);
		CHECK(f.buf == NULL);
	}
	TEST("fwsource/read-fs: a directory is refused with one line") {
		CHECK(lb_fwsrc_read_fs(&fs, "/EFI", &f, why, sizeof(why)) < 0);
		CHECK(why[0] != 0);
	}
	TEST("fwsource/read-fs: larger than any update image") {
		snprintf(p, sizeof(p), "%s/big.lbu", dir);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CHECK(fd >= 0 && ftruncate(fd, (off_t)LB_UPDATE_MAX + 1) == 0);
		close(fd);
		CHECK_INT(lb_fwsrc_read_fs(&fs, "/big.lbu", &f, why, sizeof(why)), -EFBIG);
		CHECK_STR(why, "larger than any update image");
		CHECK(f.buf == NULL);
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p))
		fprintf(stderr, "# cannot remove %s\n", dir);
}

/* A server for n connections: each request's path picks the answer
 * (HEAD is the response head, then body; slow_ms > 0: one byte of the
 * body every slow_ms). */
struct route {
	const char *path;
	const char *head;
	const char *body;
	int slow_ms;
};

static pid_t serve(const struct route *rt, size_t nrt, int n, unsigned *port)
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
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < n; i++) {
		int c = accept(s, NULL, NULL);
		char req[4096], line[512];
		size_t got = 0;
		const struct route *r = NULL;

		while (got < sizeof(req) - 1) {
			ssize_t k = read(c, req + got, sizeof(req) - 1 - got);
			if (k <= 0)
				break;
			got += (size_t)k;
			req[got] = 0;
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		for (size_t j = 0; j < nrt; j++) {
			snprintf(line, sizeof(line), "GET %s HTTP/1.1\r\n", rt[j].path);
			if (!strncmp(req, line, strlen(line)))
				r = &rt[j];
		}
		if (!r) {
			const char *nf = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
			if (write(c, nf, strlen(nf)) < 0)
				_exit(1);
		} else {
			if (write(c, r->head, strlen(r->head)) < 0)
				_exit(1);
			for (const char *b = r->body; *b; b++) {
				if (r->slow_ms)
					usleep((useconds_t)r->slow_ms * 1000);
				if (write(c, b, r->slow_ms ? 1 : strlen(b)) < 0)
					break;
				if (!r->slow_ms)
					break;
			}
		}
		close(c);
	}
	_exit(0);
}

static void test_fetch(void)
{
	struct lb_fetch_opts base = { .timeout_ms = 5000 };
	struct lb_fwsrc_file f;
	char url[128], why[512], want[256];
	unsigned port;
	int st;

	TEST("fwsource/fetch: file and signature over http") {
		static const struct route rt[] = {
			{ "/fw/u.lbu", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "IMAGE", 0 },
			{ "/fw/u.lbu.minisig", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", "SIG", 0 },
		};
		pid_t pid = serve(rt, 2, 2, &port);
		CHECK(pid > 0);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/fw/u.lbu", port);
		CHECK_INT(lb_fwsrc_fetch(url, &base, 10000, &f, why, sizeof(why)), 0);
		CHECK_INT(f.len, 5);
		CHECK(f.buf && !memcmp(f.buf, "IMAGE", 5));
		CHECK_INT(f.siglen, 3);
		CHECK(f.sig && !memcmp(f.sig, "SIG", 3));
		lb_fwsrc_file_free(&f);
		waitpid(pid, &st, 0);
	}
	TEST("fwsource/fetch: no signature on the server: sig NULL, the file still fetched") {
		static const struct route rt[] = {
			{ "/u.lbu", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "IMAGE", 0 },
		};
		pid_t pid = serve(rt, 1, 2, &port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/u.lbu", port);
		CHECK_INT(lb_fwsrc_fetch(url, &base, 10000, &f, why, sizeof(why)), 0);
		CHECK(f.sig == NULL);
		CHECK_INT(f.len, 5);
		lb_fwsrc_file_free(&f);
		waitpid(pid, &st, 0);
	}
	TEST("fwsource/fetch: no file on the server: one line naming the URL") {
		pid_t pid = serve(NULL, 0, 2, &port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/u.lbu", port);
		CHECK_INT(lb_fwsrc_fetch(url, &base, 10000, &f, why, sizeof(why)), -ENOENT);
		snprintf(want, sizeof(want), "%s: HTTP 404 Not Found", url);
		CHECK_STR(why, want);
		CHECK(f.buf == NULL && f.sig == NULL);
		waitpid(pid, &st, 0);
	}
	TEST("fwsource/fetch: an image announced larger than any update image") {
		char head[128];
		snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n\r\n",
			 (unsigned long long)LB_UPDATE_MAX + 1);
		const struct route rt[] = { { "/u.lbu", head, "x", 0 } };
		pid_t pid = serve(rt, 1, 2, &port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/u.lbu", port);
		CHECK_INT(lb_fwsrc_fetch(url, &base, 10000, &f, why, sizeof(why)), -EFBIG);
		snprintf(want, sizeof(want), "%s: larger than any update image", url);
		CHECK_STR(why, want);
		CHECK(f.buf == NULL && f.sig == NULL);
		waitpid(pid, &st, 0);
	}
	TEST("fwsource/fetch: a signature larger than any signature file") {
		char head[128];
		snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %u\r\n\r\n",
			 LB_SIG_MAX_FILE + 1);
		const struct route rt[] = { { "/u.lbu.minisig", head, "x", 0 } };
		pid_t pid = serve(rt, 1, 1, &port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/u.lbu", port);
		CHECK_INT(lb_fwsrc_fetch(url, &base, 10000, &f, why, sizeof(why)), -EFBIG);
		CHECK(strstr(why, "u.lbu.minisig: larger than any signature file") != NULL);
		waitpid(pid, &st, 0);
	}
	TEST("fwsource/fetch: a server that trickles is cut off at the bound over the whole fetch") {
		static const struct route rt[] = {
			{ "/u.lbu", "HTTP/1.1 200 OK\r\nContent-Length: 64\r\n\r\n",
			  "0123456789012345678901234567890123456789012345678901234567890123", 100 },
		};
		pid_t pid = serve(rt, 1, 2, &port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/u.lbu", port);
		uint64_t t0 = lb_now_ms();
		CHECK_INT(lb_fwsrc_fetch(url, &base, 1000, &f, why, sizeof(why)), -ETIMEDOUT);
		uint64_t took = lb_now_ms() - t0;
		snprintf(want, sizeof(want), "%s: not fetched within 1 s", url);
		CHECK_STR(why, want);
		CHECK(took >= 900 && took < 3000);
		CHECK(f.buf == NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	TEST("fwsource/fetch: https without trust anchors is refused") {
		CHECK_INT(lb_fwsrc_fetch("https://127.0.0.1:1/u.lbu", &base, 1000, &f, why, sizeof(why)),
			  -EPROTONOSUPPORT);
		CHECK(why[0] != 0);
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_parse();
	test_read_fs();
	test_fetch();
	return t_done();
}
