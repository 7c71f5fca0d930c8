/* Fuzz lboot.update= (src/boot/fwsource.c): whatever is accepted is an
 * absolute path without a ".." component (fs:) or a URL that parses with
 * its ".minisig" sibling (https://, http://); a refusal says why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwsource.h"
#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char opt[LB_URL_MAX + 64], why[1024], sib[LB_URL_MAX + 16];
	enum lb_fwsrc_kind kind;
	const char *arg;
	struct lb_url u;
	int r;

	if (size >= sizeof(opt))
		return 0;
	memcpy(opt, data, size);
	opt[size] = 0;
	r = lb_fwsrc_parse(opt, &kind, &arg, why, sizeof(why));
	if (r) {
		if (kind != LB_FWSRC_NONE || arg || !why[0])
			abort();
		return 0;
	}
	switch (kind) {
	case LB_FWSRC_NONE:
		if (opt[0] || arg)
			abort();
		break;
	case LB_FWSRC_FS:
		if (arg != opt + 3 || arg[0] != '/' || strstr(arg, "/../") ||
		    (strlen(arg) >= 3 && !strcmp(arg + strlen(arg) - 3, "/..")))
			abort();
		break;
	case LB_FWSRC_URL:
		if (arg != opt || lb_url_parse(arg, &u) || u.scheme == LB_URL_TFTP)
			abort();
		if ((size_t)snprintf(sib, sizeof(sib), "%s.minisig", arg) >= LB_URL_MAX ||
		    lb_url_parse(sib, &u))
			abort();
		break;
	default:
		abort();
	}
	return 0;
}
