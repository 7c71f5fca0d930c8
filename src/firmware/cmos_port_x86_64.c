/* x86-64: the PC CMOS through /dev/port (cmos.h lb_cmos_port_open). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "cmos.h"

const char lb_cmos_port_name[] = "/dev/port";

int lb_cmos_port_open(void)
{
	int fd = open("/dev/port", O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* one byte at index i: the index port, then the data port (bytes 128-255:
 * 0x72/0x73), as coreboot's cmos_read/cmos_write */
int lb_cmos_port_xfer(int fd, unsigned i, uint8_t *v, int wr)
{
	uint8_t idx = (uint8_t)(i & 0x7f);
	off_t base = i < 128 ? 0x70 : 0x72;

	if (pwrite(fd, &idx, 1, base) != 1)
		return errno ? -errno : -EIO;
	if ((wr ? pwrite(fd, v, 1, base + 1) : pread(fd, v, 1, base + 1)) != 1)
		return errno ? -errno : -EIO;
	return 0;
}
