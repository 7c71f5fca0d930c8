/* The clock's floor across boots: see timefloor.h. */
#include <errno.h>

#include "efivar.h"
#include "efivars.h"
#include "timefloor.h"

#define ATTRS 0x7u /* NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS */

static int64_t get_stored(int *bad)
{
	uint8_t v[8];
	size_t n = 0;
	uint64_t u = 0;
	int r;

	r = lb_efivar_get(LB_TIMEFLOOR_VAR, LB_EFIVAR_GUID_LBOOT, NULL, v, sizeof(v), &n);
	if (r == -ENOENT)
		return 0;
	if (r || n != sizeof(v)) {
		if (bad && (r == -EFBIG || (!r && n != sizeof(v))))
			*bad = 1;
		return 0;
	}
	for (int i = 7; i >= 0; i--)
		u = u << 8 | v[i];
	if (u > (uint64_t)INT64_MAX) {
		if (bad)
			*bad = 1;
		return 0;
	}
	return (int64_t)u;
}

int64_t lb_timefloor_load(int64_t build, int64_t *stored, int *bad)
{
	int64_t s;

	if (bad)
		*bad = 0;
	s = get_stored(bad);
	if (stored)
		*stored = s;
	return s > build ? s : build;
}

int64_t lb_timefloor_clamp(int64_t now, int64_t floor)
{
	return now < floor ? floor : now;
}

int lb_timefloor_may_set(int64_t now, int64_t floor, int64_t t)
{
	return t > now && t >= floor;
}

int64_t lb_timefloor_next(int64_t start, int64_t now)
{
	if (start > INT64_MAX - LB_TIMEFLOOR_STEP)
		return now;
	return now > start + LB_TIMEFLOOR_STEP ? start + LB_TIMEFLOOR_STEP : now;
}

int lb_timefloor_save(int64_t t)
{
	uint8_t v[8];
	uint64_t u = (uint64_t)t;
	int64_t cur = get_stored(NULL);

	/* at most one write an hour of clock time: NVRAM wears */
	if (t <= 0 || t <= cur || (cur && t - cur < LB_TIMEFLOOR_GRAIN))
		return 0;
	for (int i = 0; i < 8; i++, u >>= 8)
		v[i] = (uint8_t)u;
	return lb_efivar_set(LB_TIMEFLOOR_VAR, LB_EFIVAR_GUID_LBOOT, ATTRS, v, sizeof(v));
}
