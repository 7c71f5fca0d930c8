/*
 * TPM transports against misbehaving peers: a TCP "TPM" (a forked child on
 * 127.0.0.1) that trickles its reply, claims a huge size, hangs up or never
 * answers; a "device" (one end of a socketpair: whole messages per read)
 * that never answers. Every wait must end by the timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t.h"
#include "tpmdev.h"

static const uint8_t startup[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0 };
static const uint8_t ok_reply[10] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0, 0 };

enum mode { TRICKLE, HUGE, HANGUP, SILENT };

static long long ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A one-connection server in a child; returns its port. */
static int server(enum mode m, pid_t *pid)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		exit(1);
	*pid = fork();
	if (*pid == 0) {
		uint8_t buf[64];
		int c = accept(s, NULL, NULL);
		ssize_t n = 0;

		while (c >= 0 && n < 12) {
			ssize_t k = read(c, buf + n, sizeof(buf) - n);
			if (k <= 0)
				_exit(1);
			n += k;
		}
		if (m == TRICKLE) {
			for (int i = 0; i < 10; i++) {
				if (write(c, ok_reply + i, 1) != 1)
					_exit(1);
				usleep(20000);
			}
		} else if (m == HUGE) {
			static const uint8_t h[10] = { 0x80, 0x01, 0, 1, 0, 0, 0, 0, 0, 0 };
			if (write(c, h, 10) != 10)
				_exit(1);
			sleep(5);
		} else if (m == HANGUP) {
			if (write(c, ok_reply, 5) != 5)
				_exit(1);
		} else {
			sleep(5);
		}
		_exit(0);
	}
	close(s);
	return ntohs(a.sin_port);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	struct lb_tpmdev d;
	uint8_t rsp[4096];
	size_t rlen;
	char hp[64];
	pid_t pid;

	TEST("tcp: a reply that comes a byte at a time") {
		snprintf(hp, sizeof(hp), "127.0.0.1:%d", server(TRICKLE, &pid));
		CHECK_INT(lb_tpmdev_open_tcp(&d, hp, 2000), 0);
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), 0);
		CHECK_INT(rlen, 10);
		CHECK(!memcmp(rsp, ok_reply, 10));
		lb_tpmdev_close(&d);
		reap(pid);
	}

	TEST("tcp: a size over our buffer ends the connection's use") {
		snprintf(hp, sizeof(hp), "localhost:%d", server(HUGE, &pid));
		CHECK_INT(lb_tpmdev_open_tcp(&d, hp, 2000), 0);
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), -EBADMSG);
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), -EIO);
		lb_tpmdev_close(&d);
		reap(pid);
	}

	TEST("tcp: a TPM that hangs up mid-reply") {
		snprintf(hp, sizeof(hp), "127.0.0.1:%d", server(HANGUP, &pid));
		CHECK_INT(lb_tpmdev_open_tcp(&d, hp, 2000), 0);
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), -ECONNRESET);
		lb_tpmdev_close(&d);
		reap(pid);
	}

	TEST("tcp: a TPM that never answers: -ETIMEDOUT at the timeout") {
		long long t0;

		snprintf(hp, sizeof(hp), "127.0.0.1:%d", server(SILENT, &pid));
		CHECK_INT(lb_tpmdev_open_tcp(&d, hp, 300), 0);
		t0 = ms();
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), -ETIMEDOUT);
		CHECK(ms() - t0 >= 290 && ms() - t0 < 3000);
		lb_tpmdev_close(&d);
		reap(pid);
	}

	TEST("tcp: nobody listening") {
		int s = socket(AF_INET, SOCK_STREAM, 0), port;
		struct sockaddr_in a = { .sin_family = AF_INET };
		socklen_t al = sizeof(a);

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		bind(s, (struct sockaddr *)&a, sizeof(a));
		getsockname(s, (struct sockaddr *)&a, &al);
		port = ntohs(a.sin_port);
		close(s); /* bound, never listened: the port refuses */
		snprintf(hp, sizeof(hp), "127.0.0.1:%d", port);
		CHECK_INT(lb_tpmdev_open_tcp(&d, hp, 1000), -ECONNREFUSED);
	}

	TEST("tcp: addresses refused before connecting") {
		static const char *const bad[] = { "nohost", "127.0.0.1:", ":5", "127.0.0.1:0",
			"127.0.0.1:65536", "127.0.0.1:5x", "256.1.1.1:5", "example.org:2321",
			"[::1:5", "127.0.0.1:-1" };
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_INT(lb_tpmdev_open_tcp(&d, bad[i], 1000), -EINVAL);
	}

	TEST("device: missing") {
		CHECK_INT(lb_tpmdev_open(&d, "/nonexistent/tpm0", 1000), -ENOENT);
	}

	TEST("device: one read per reply; a silent device times out and is not reused") {
		int sv[2];
		long long t0;

		CHECK_INT(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
		memset(&d, 0, sizeof(d));
		d.fd = sv[0];
		d.timeout_ms = 300;
		CHECK_INT(write(sv[1], ok_reply, 10), 10);
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), 0);
		CHECK_INT(rlen, 10);
		t0 = ms();
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), -ETIMEDOUT);
		CHECK(ms() - t0 >= 290 && ms() - t0 < 3000);
		CHECK(d.stuck);
		CHECK_INT(lb_tpmdev_xfer(&d, startup, 12, rsp, sizeof(rsp), &rlen), -EIO);
		/* close leaves a stuck device's descriptor open (closing would
		 * wait for the kernel's queued command) */
		lb_tpmdev_close(&d);
		CHECK(fcntl(sv[0], F_GETFD) >= 0);
		close(sv[0]);
		close(sv[1]);
	}
	return t_done();
}
