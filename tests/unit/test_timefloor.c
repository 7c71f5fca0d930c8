/*
 * The clock's floor (src/firmware/timefloor.c, issue 23 finding 4): an
 * unauthenticated NTP time never moves the clock back, not even to a time
 * after the build date (before, any answer later than the build date was
 * taken, so an attacker's NTP server could bring an expired manifest or
 * certificate back to life); a floor stored by a previous boot (EFI
 * variable LbootTimeFloor, here a plain directory as efivarfs) is honoured
 * and only ever raised; a far-future answer moves the stored floor by at
 * most LB_TIMEFLOOR_STEP per boot. The boot flow's use of these (init.c
 * time_setup, ntp_once, time_save): tests/e2e/netboot-ntp.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "efivar.h"
#include "efivars.h"
#include "timefloor.h"
#include "t.h"

#define T_BUILD 1796342400ll          /* 2026-12-04 00:00:00 UTC */
#define DAY 86400ll

static char dir[] = "/tmp/lb-timefloor-XXXXXX";

static void put_raw(const void *v, size_t n)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/" LB_TIMEFLOOR_VAR "-" LB_EFIVAR_GUID_LBOOT, dir);
	f = fopen(p, "wb");
	if (f) {
		fwrite("\x07\x00\x00\x00", 1, 4, f);
		fwrite(v, 1, n, f);
		fclose(f);
	}
}

int main(void)
{
	int64_t stored;
	int bad;

	if (!mkdtemp(dir))
		return 1;
	lb_efivars_set_dir(dir);
	TEST("ntp: an answer earlier than the clock does not move it back") {
		int64_t rtc = T_BUILD + 400 * DAY;
		/* later than the build date, a year before the RTC: the
		 * rollback the attacker wants (expired signatures pass again) */
		CHECK_INT(lb_timefloor_may_set(rtc, T_BUILD, T_BUILD + 30 * DAY), 0);
		CHECK_INT(lb_timefloor_may_set(rtc, T_BUILD, rtc - 1), 0);
		CHECK_INT(lb_timefloor_may_set(rtc, T_BUILD, rtc), 0);
		/* forward is taken */
		CHECK_INT(lb_timefloor_may_set(rtc, T_BUILD, rtc + 1), 1);
		CHECK_INT(lb_timefloor_may_set(rtc, T_BUILD, rtc + 3650 * DAY), 1);
	}
	TEST("ntp: a flat RTC battery: NTP moves the clock forward, not below the floor") {
		int64_t rtc = 978307200ll;    /* 2001-01-01 */
		int64_t start = lb_timefloor_clamp(rtc, T_BUILD);
		CHECK_INT(start, T_BUILD);
		CHECK_INT(lb_timefloor_may_set(start, T_BUILD, T_BUILD + DAY), 1);
		/* the raw RTC is below the floor: a time between them is not taken */
		CHECK_INT(lb_timefloor_may_set(rtc, T_BUILD, T_BUILD - DAY), 0);
	}
	TEST("floor: none stored: the build date") {
		CHECK_INT(lb_efivars_open(), 0);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), T_BUILD);
		CHECK_INT(stored, 0);
		CHECK_INT(bad, 0);
	}
	TEST("floor: a previous boot's time is honoured and the clock raised to it") {
		int64_t prev = T_BUILD + 200 * DAY, rtc = T_BUILD + 10 * DAY, fl;
		CHECK_INT(lb_timefloor_save(prev), 0);
		fl = lb_timefloor_load(T_BUILD, &stored, &bad);
		CHECK_INT(fl, prev);
		CHECK_INT(stored, prev);
		CHECK_INT(bad, 0);
		/* an RTC set back below it is raised to it */
		CHECK_INT(lb_timefloor_clamp(rtc, fl), prev);
		/* an NTP answer after the build date but before the floor
		 * does not set the clock, even from the raw RTC's time */
		CHECK_INT(lb_timefloor_may_set(rtc, fl, prev - DAY), 0);
		CHECK_INT(lb_timefloor_may_set(prev, fl, prev + 60), 1);
	}
	TEST("floor: only ever raised") {
		int64_t prev = T_BUILD + 200 * DAY;
		CHECK_INT(lb_timefloor_save(T_BUILD + 5 * DAY), 0);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), prev);
		CHECK_INT(lb_timefloor_save(prev + DAY), 0);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), prev + DAY);
		/* less than LB_TIMEFLOOR_GRAIN later: no NVRAM write */
		CHECK_INT(lb_timefloor_save(prev + DAY + 600), 0);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), prev + DAY);
		CHECK_INT(lb_timefloor_save(-5), 0);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), prev + DAY);
	}
	TEST("floor: a far-future NTP answer moves the stored floor one step per boot") {
		int64_t start = T_BUILD + 300 * DAY;
		CHECK_INT(lb_timefloor_next(start, start + 3650 * DAY), start + LB_TIMEFLOOR_STEP);
		CHECK_INT(lb_timefloor_next(start, start + 600), start + 600);
		CHECK_INT(lb_timefloor_next(INT64_MAX - 5, INT64_MAX - 1), INT64_MAX - 1);
	}
	TEST("floor: a malformed variable is reported and ignored") {
		uint8_t big[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
		uint8_t neg[8] = { 0, 0, 0, 0, 0, 0, 0, 0x80 };
		put_raw(big, 3);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), T_BUILD);
		CHECK_INT(bad, 1);
		put_raw(big, 9);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), T_BUILD);
		CHECK_INT(bad, 1);
		put_raw(neg, 8);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), T_BUILD);
		CHECK_INT(bad, 1);
		/* a good value after it is stored again */
		CHECK_INT(lb_timefloor_save(T_BUILD + DAY), 0);
		CHECK_INT(lb_timefloor_load(T_BUILD, &stored, &bad), T_BUILD + DAY);
		CHECK_INT(bad, 0);
	}
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# cannot remove %s\n", dir);
	}
	lb_efivars_set_dir(NULL);
	return t_done();
}
