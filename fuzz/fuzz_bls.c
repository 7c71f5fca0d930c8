/* Fuzz the BLS type 1 entry parser, the os-release reader and the UAPI
 * version comparison. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bls.h"
#include "vercmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_entries m = LB_ENTRIES_INIT;
	struct lb_entry e;
	char name[64], *a, *b;
	size_t nl = 0, half;
	int left;

	if (size > (1u << 20))
		return 0;
	/* file name from the first line (up to 63 bytes) */
	while (nl < size && nl < sizeof(name) - 1 && data[nl] != '\n') {
		name[nl] = data[nl] ? (char)data[nl] : '_';
		nl++;
	}
	name[nl] = 0;
	if (!lb_bls_parse_entry(name, "fuzz", (const char *)data, size, &e,
				&left, &m))
		lb_entry_free(&e);
	lb_entries_free(&m);
	free(lb_osrel_get((const char *)data, size, "PRETTY_NAME"));
	free(lb_osrel_get((const char *)data, size, "ID"));
	half = size / 2;
	a = strndup((const char *)data, half);
	b = strndup((const char *)data + half, size - half);
	if (a && b) {
		int x = lb_vercmp(a, b), y = lb_vercmp(b, a);
		/* antisymmetric and reflexive */
		if ((x > 0) != (y < 0) || (x == 0) != (y == 0) ||
		    lb_vercmp(a, a) != 0)
			abort();
	}
	free(a);
	free(b);
	return 0;
}
