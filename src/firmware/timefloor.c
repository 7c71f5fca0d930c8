/* The clock's floor across boots: see timefloor.h. */
#include <errno.h>

#include "efivar.h"
#include "cmos.h"
#include "efivars.h"
#include "timefloor.h"

#define ATTRS 0x7u /* NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS */

/* under coreboot: lboot_timefloor, hours since 1970 (NULL: not there) */
static const struct lb_cmos_entry *cmos_entry(void)
{
	return lb_cmos_boot ? lb_cmos_option(&lb_cmos_boot->lay, LB_TIMEFLOOR_CMOS, 'h', 24, 64) : NULL;
}

const char *lb_timefloor_where(void)
{
	if (!lb_efivars_open())
		return "EFI variable " LB_TIMEFLOOR_VAR;
	return cmos_entry() ? "CMOS option " LB_TIMEFLOOR_CMOS : NULL;
}

static int64_t get_stored(int *bad)
{
	const struct lb_cmos_entry *e;
	uint8_t v[8];
	size_t n = 0;
	uint64_t u = 0;
	int r;

	if (lb_efivars_open()) {
		if (!(e = cmos_entry()))
			return 0;
		if (!lb_cmos_cks_ok(&lb_cmos_boot->lay, lb_cmos_boot->img)) {
			if (bad)
				*bad = 1;
			return 0;
		}
		return (int64_t)lb_cmos_get(lb_cmos_boot->img, e) * 3600;
	}
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
	const struct lb_cmos_entry *e;
	uint8_t v[8];
	uint64_t u = (uint64_t)t;
	int64_t cur = get_stored(NULL);

	/* at most one write an hour of clock time: NVRAM wears */
	if (t <= 0 || t <= cur || (cur && t - cur < LB_TIMEFLOOR_GRAIN))
		return 0;
	if (lb_efivars_open()) {
		char why[256];

		if (!(e = cmos_entry()))
			return -ENOENT;
		/* whole hours, rounded down: the floor never passes t */
		if (!lb_cmos_cks_ok(&lb_cmos_boot->lay, lb_cmos_boot->img))
			return -EBADMSG;
		if (lb_cmos_set(lb_cmos_boot->img, e, (uint64_t)t / 3600))
			return -ERANGE;
		return lb_cmos_commit(lb_cmos_boot, why, sizeof(why));
	}
	for (int i = 0; i < 8; i++, u >>= 8)
		v[i] = (uint8_t)u;
	return lb_efivar_set(LB_TIMEFLOOR_VAR, LB_EFIVAR_GUID_LBOOT, ATTRS, v, sizeof(v));
}
