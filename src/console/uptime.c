#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "uptime.h"

const char *lb_uptime(char *buf, size_t n)
{
	ssize_t got;
	int fd;

	if (n < 2)
		return "";
	strcpy(buf, "?");
	fd = open("/proc/uptime", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got <= 0) {
		strcpy(buf, "?");
		return buf;
	}
	buf[got] = 0;
	buf[strcspn(buf, " \n")] = 0;
	return buf;
}
