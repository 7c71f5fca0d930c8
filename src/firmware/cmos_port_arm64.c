/* arm64: no PC CMOS (ports 0x70-0x73 are an x86 PC's RTC; /dev/port on
 * arm64 would reach PCI I/O space). Option tables in a dump (`lboot cmos
 * --file`) still work; the hardware is -ENODEV (cmos.h). */
#include <errno.h>
#include <stdint.h>

#include "cmos.h"

const char lb_cmos_port_name[] = "CMOS";

int lb_cmos_port_open(void)
{
	return -ENODEV;
}

int lb_cmos_port_xfer(int fd, unsigned i, uint8_t *v, int wr)
{
	(void)fd; (void)i; (void)v; (void)wr;
	return -ENODEV;
}
