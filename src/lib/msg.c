/* One-line error messages of applets: "lboot APPLET: what: why". */
#include <stdarg.h>
#include <stdio.h>

#include "lboot.h"

const char *lb_prog = "lboot";

void lb_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lboot %s: ", lb_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
