/*
 * A disk whose bytes change after they were read: an nbdkit plugin for
 * tests/e2e/verify-changing-disk.sh, compiled by nbdkit's cc plugin
 * (Debian's nbdkit, with nbdkit-plugin-dev for the header):
 *
 *   nbdkit -r cc tests/e2e/changing-disk.c first=A.img later=B.img log=LOG
 *
 * Two images of the same size. Every 512-byte sector is served from `first`
 * the first time it is read and from `later` on every read after that.
 * Only sectors whose bytes differ between the images are of interest: for
 * each read touching one, a line goes to `log`:
 *
 *   read OFFSET+LENGTH changed-first N changed-later M
 *
 * N: changed sectors served from `first` (read for the first time), M:
 * changed sectors read again and served from `later`. The sum of M over the
 * log is how many times the guest read a changed sector a second time.
 * Read-only (run nbdkit with -r); requests are serialised.
 */
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREAD_MODEL NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS
#define SECTOR 512u
#define MAX_SIZE (4ull << 30)

static char *first_path, *later_path, *log_path;
static int first_fd = -1, later_fd = -1;
static FILE *logf;
static uint64_t size, nsect;
static uint8_t *seen;    /* per sector: read before */
static uint8_t *differs; /* per sector: first and later differ there */

static int cd_config(const char *key, const char *value)
{
	char **dst = !strcmp(key, "first") ? &first_path :
		     !strcmp(key, "later") ? &later_path :
		     !strcmp(key, "log") ? &log_path : NULL;

	if (!dst) {
		nbdkit_error("unknown parameter '%s'", key);
		return -1;
	}
	free(*dst);
	/* the log need not exist yet */
	*dst = dst == &log_path ? nbdkit_absolute_path(value) : nbdkit_realpath(value);
	return *dst ? 0 : -1;
}

static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			nbdkit_error("pread: %s", n ? strerror(errno) : "short file");
			return -1;
		}
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int cd_config_complete(void)
{
	static uint8_t a[1 << 16], b[1 << 16];
	struct stat sa, sb;

	if (!first_path || !later_path || !log_path) {
		nbdkit_error("first=, later= and log= are required");
		return -1;
	}
	first_fd = open(first_path, O_RDONLY | O_CLOEXEC);
	later_fd = open(later_path, O_RDONLY | O_CLOEXEC);
	if (first_fd < 0 || later_fd < 0 || fstat(first_fd, &sa) || fstat(later_fd, &sb)) {
		nbdkit_error("open %s, %s: %m", first_path, later_path);
		return -1;
	}
	if (sa.st_size != sb.st_size || sa.st_size <= 0 ||
	    (uint64_t)sa.st_size > MAX_SIZE || sa.st_size % SECTOR) {
		nbdkit_error("the images must have the same size, a multiple of %u up to 4 GiB",
			     SECTOR);
		return -1;
	}
	size = (uint64_t)sa.st_size;
	nsect = size / SECTOR;
	seen = calloc(nsect, 1);
	differs = calloc(nsect, 1);
	if (!seen || !differs) {
		nbdkit_error("calloc: %m");
		return -1;
	}
	for (uint64_t off = 0; off < size; off += sizeof(a)) {
		size_t n = size - off < sizeof(a) ? (size_t)(size - off) : sizeof(a);

		if (pread_full(first_fd, a, n, off) || pread_full(later_fd, b, n, off))
			return -1;
		for (size_t s = 0; s < n; s += SECTOR)
			differs[(off + s) / SECTOR] = !!memcmp(a + s, b + s, SECTOR);
	}
	if (!(logf = fopen(log_path, "we"))) {
		nbdkit_error("open %s: %m", log_path);
		return -1;
	}
	setvbuf(logf, NULL, _IOLBF, 0);
	return 0;
}

static void cd_unload(void)
{
	if (logf)
		fclose(logf);
	if (first_fd >= 0)
		close(first_fd);
	if (later_fd >= 0)
		close(later_fd);
	free(seen);
	free(differs);
	free(first_path);
	free(later_path);
	free(log_path);
}

static void *cd_open(int readonly)
{
	static int handle;

	(void)readonly;
	return &handle;
}

static int64_t cd_get_size(void *h)
{
	(void)h;
	return (int64_t)size;
}

static int cd_pread(void *h, void *buf, uint32_t count, uint64_t offset, uint32_t flags)
{
	unsigned ch_first = 0, ch_later = 0;
	uint64_t off = offset, end;

	(void)h;
	(void)flags;
	if (offset > size || count > size - offset) {
		nbdkit_error("read beyond the end");
		errno = EIO;
		return -1;
	}
	end = offset + count;
	while (off < end) {
		uint64_t s = off / SECTOR;
		uint64_t stop = (s + 1) * SECTOR < end ? (s + 1) * SECTOR : end;
		int again = seen[s];

		if (pread_full(again ? later_fd : first_fd, (char *)buf + (off - offset),
			       (size_t)(stop - off), off))
			return -1;
		seen[s] = 1;
		if (differs[s] && again)
			ch_later++;
		else if (differs[s])
			ch_first++;
		off = stop;
	}
	if (ch_first || ch_later)
		fprintf(logf, "read %" PRIu64 "+%" PRIu32 " changed-first %u changed-later %u\n",
			offset, count, ch_first, ch_later);
	return 0;
}

static struct nbdkit_plugin plugin = {
	.name = "changing-disk",
	.longname = "lboot test: first read from one image, later reads from another",
	.config = cd_config,
	.config_complete = cd_config_complete,
	.config_help = "first=IMG later=IMG log=FILE",
	.unload = cd_unload,
	.open = cd_open,
	.get_size = cd_get_size,
	.pread = cd_pread,
};

NBDKIT_REGISTER_PLUGIN(plugin)
