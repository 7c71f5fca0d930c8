/* Nobody at the console: options, rescan backoff, giving up (unattended.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "unattended.h"

void lb_unattended_init(struct lb_unattended_opts *u)
{
	u->idle = LB_DEFAULT_IDLE;
	u->giveup = LB_DEFAULT_GIVEUP;
	u->watchdog = 0;
	u->handover = LB_DEFAULT_HANDOVER;
}

/* decimal seconds 0..max, no sign, no spaces, at most 6 digits */
static int secs(const char *v, int max, int *out)
{
	long x = 0;
	size_t n = 0;

	for (; v[n]; n++) {
		if (v[n] < '0' || v[n] > '9' || n >= 6)
			return -EINVAL;
		x = x * 10 + (v[n] - '0');
	}
	if (!n || x > max)
		return -EINVAL;
	*out = (int)x;
	return 0;
}

int lb_unattended_parse(const char *word, struct lb_unattended_opts *u)
{
	static const struct {
		const char *key;
		int max;
		size_t off;
	} opts[] = {
		{ "lboot.idle=", 86400, offsetof(struct lb_unattended_opts, idle) },
		{ "lboot.giveup=", 86400, offsetof(struct lb_unattended_opts, giveup) },
		{ "lboot.watchdog=", 3600, offsetof(struct lb_unattended_opts, watchdog) },
		{ "lboot.watchdog.handover=", 3600, offsetof(struct lb_unattended_opts, handover) },
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t l = strlen(opts[i].key);
		int v;

		if (strncmp(word, opts[i].key, l))
			continue;
		if (secs(word + l, opts[i].max, &v))
			return -EINVAL;
		*(int *)((char *)u + opts[i].off) = v;
		return 1;
	}
	return 0;
}

int lb_rescan_delay(unsigned round)
{
	int d = LB_RESCAN_MIN;

	for (unsigned i = 0; i < round && d < LB_RESCAN_MAX; i++)
		d *= 2;
	return d < LB_RESCAN_MAX ? d : LB_RESCAN_MAX;
}

int lb_giveup_due(int giveup, long since_ms, long now_ms)
{
	return giveup > 0 && now_ms - since_ms >= (long)giveup * 1000;
}
