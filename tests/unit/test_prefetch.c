/* Parallel, time-bounded device reads (prefetch.c) on stand-ins: regular
 * files as devices, and a FIFO as a device that never answers (its open
 * blocks until a writer comes). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prefetch.h"
#include "probe.h"
#include "t.h"

static long ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

int main(void)
{
	char dir[] = "/tmp/lboot-test-prefetch-XXXXXX", path[PATH_MAX];
	struct lb_blkdev devs[4];
	struct lb_prefetch *pf;
	const uint8_t *h, *tl;
	uint64_t toff;
	size_t hl, tlen;
	struct timespec t0;
	uint8_t *big;
	int fd;

	if (!mkdtemp(dir))
		return 1;
	memset(devs, 0, sizeof(devs));
	/* vda: 1 MiB with a pattern; vdb: 1000 bytes; vdc: a FIFO; sr0: a CD */
	big = malloc(1 << 20);
	for (size_t i = 0; big && i < (1u << 20); i++)
		big[i] = (uint8_t)(i * 7 + (i >> 12));
	snprintf(path, sizeof(path), "%s/vda", dir);
	if (!big || (fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0 ||
	    write(fd, big, 1 << 20) != 1 << 20)
		return 1;
	close(fd);
	snprintf(path, sizeof(path), "%s/vdb", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0 || write(fd, big, 1000) != 1000)
		return 1;
	close(fd);
	snprintf(path, sizeof(path), "%s/vdc", dir);
	if (mkfifo(path, 0600))
		return 1;
	strcpy(devs[0].name, "vda");
	devs[0].size = 2048;
	strcpy(devs[1].name, "vdb");
	devs[1].size = 2;
	strcpy(devs[2].name, "vdc");
	devs[2].size = 2048;
	strcpy(devs[3].name, "sr0");
	devs[3].is_cd = 1;
	devs[3].size = 2048;

	TEST("heads and tails read in parallel; a device that never answers is left out") {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pf = lb_prefetch_start(dir, devs, 4);
		CHECK(pf != NULL);
		if (!pf)
			continue;
		CHECK_INT(lb_prefetch_wait(pf, 300), 1); /* vdc still opening */
		CHECK(ms_since(&t0) >= 290 && ms_since(&t0) < 3000);
		CHECK_INT(lb_prefetch_get(pf, "vda", &h, &hl, &tl, &toff, &tlen), 0);
		CHECK_INT(hl, LB_PROBE_BYTES);
		CHECK(!memcmp(h, big, LB_PROBE_BYTES));
		CHECK_INT(toff, (1u << 20) - LB_PREFETCH_TAIL);
		CHECK_INT(tlen, LB_PREFETCH_TAIL);
		CHECK(!memcmp(tl, big + toff, LB_PREFETCH_TAIL));
		/* a short device: what there is, no tail */
		CHECK_INT(lb_prefetch_get(pf, "vdb", &h, &hl, &tl, &toff, &tlen), 0);
		CHECK_INT(hl, 1000);
		CHECK_INT(tlen, 0);
		CHECK_INT(lb_prefetch_get(pf, "vdc", &h, &hl, &tl, &toff, &tlen), -ETIMEDOUT);
		/* CD drives are not read here; unknown names neither */
		CHECK_INT(lb_prefetch_get(pf, "sr0", &h, &hl, &tl, &toff, &tlen), -ENOENT);
		CHECK_INT(lb_prefetch_get(pf, "vdz", &h, &hl, &tl, &toff, &tlen), -ENOENT);
		/* the owner lets go while vdc's reader still blocks */
		lb_prefetch_free(pf);
		/* a writer releases the FIFO: the reader finishes on its own
		 * (EOF: nothing read) and frees what it holds */
		snprintf(path, sizeof(path), "%s/vdc", dir);
		fd = open(path, O_WRONLY | O_NONBLOCK);
		if (fd < 0)
			fd = open(path, O_WRONLY);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		usleep(200 * 1000);
	}

	TEST("no devices") {
		pf = lb_prefetch_start(dir, devs, 0);
		CHECK(pf != NULL);
		CHECK_INT(lb_prefetch_wait(pf, 10), 0);
		lb_prefetch_free(pf);
	}
	free(big);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/vd%c", dir, 'a' + i);
		unlink(path);
	}
	rmdir(dir);
	return t_done();
}
