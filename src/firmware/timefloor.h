/*
 * The clock's floor across boots (issue 23): signatures, manifests and
 * certificates expire only if the clock cannot be turned back. The floor
 * is the later of the build date and the time stored at the end of the
 * last good boot (EFI variable LbootTimeFloor, lboot's vendor GUID, 8
 * bytes little-endian Unix seconds; NV+BS+RT). A clock below the floor is
 * raised to it; an unauthenticated time (NTP) may move the clock forward
 * only, never back, and never below the floor.
 *
 * A time from NTP far ahead of the clock is taken for this boot (it can
 * only make things expire sooner), but the stored floor moves at most
 * LB_TIMEFLOOR_STEP past the clock the boot started with, so a lying NTP
 * server cannot push the floor into the far future for every later boot.
 */
#ifndef LB_TIMEFLOOR_H
#define LB_TIMEFLOOR_H

#include <stdint.h>

#define LB_TIMEFLOOR_VAR  "LbootTimeFloor"
/* Under coreboot (no EFI variables): coreboot's CMOS option of this name
 * (cmos.h), whole hours since 1970, at least 24 bits, used only when the
 * options' checksum holds. */
#define LB_TIMEFLOOR_CMOS "lboot_timefloor"
#define LB_TIMEFLOOR_STEP (24 * 3600ll)
#define LB_TIMEFLOOR_GRAIN 3600ll  /* the stored floor moves by an hour or more */

/* The floor: max(build, the stored value). *stored gets the variable's
 * value (0 when unset, unreadable or not 8 bytes; *bad set then for a
 * variable that is there but malformed). */
int64_t lb_timefloor_load(int64_t build, int64_t *stored, int *bad);

/* Where the floor is kept here ("EFI variable LbootTimeFloor", "CMOS
 * option lboot_timefloor"), or NULL: nowhere, the floor is the build date. */
const char *lb_timefloor_where(void);

/* The clock a boot starts with: now raised to floor. */
int64_t lb_timefloor_clamp(int64_t now, int64_t floor);

/* May an unauthenticated time `t` set the clock that reads `now`? 1 when
 * it is later than both now and floor; 0 (clock kept) otherwise. */
int lb_timefloor_may_set(int64_t now, int64_t floor, int64_t t);

/* The value to store after a good boot: now, but at most start +
 * LB_TIMEFLOOR_STEP (start: the clock when the boot began). */
int64_t lb_timefloor_next(int64_t start, int64_t now);

/* Store t when it is at least LB_TIMEFLOOR_GRAIN above the stored value
 * (else 0, nothing written: one NVRAM write an hour of clock time at most).
 * 0 or the store's error (-ENOENT: no EFI variables, no CMOS option). */
int lb_timefloor_save(int64_t t);

#endif
