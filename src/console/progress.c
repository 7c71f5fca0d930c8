/* Progress stamps between the boot process and PID 1: see progress.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define LB_SKIP_MAX 32

static const char *const names[LB_PHASE_N] = {
	"start", "discover", "probe", "mount", "scan", "menu", "load",
};

static const int default_ms[LB_PHASE_N] = {
	[LB_PHASE_DISCOVER] = 30000, /* on top of lboot.wait */
	[LB_PHASE_PROBE] = 30000,
	[LB_PHASE_MOUNT] = 30000,
	[LB_PHASE_SCAN] = 30000,
	[LB_PHASE_LOAD] = 120000,
};

/* set in PID 1, inherited by the child at fork */
static struct {
	int ms[LB_PHASE_N]; /* < 0: the default */
	int hang_phase; /* -1: no fault */
	char hang_dev[LB_PROGRESS_DEV];
	char skip[LB_SKIP_MAX][LB_PROGRESS_DEV];
	size_t n_skip;
} cfg = { { -1, -1, -1, -1, -1, -1, -1 }, -1, "", { { 0 } }, 0 };

static struct lb_progress *cur;

const char *lb_phase_name(int phase)
{
	return phase >= 0 && phase < LB_PHASE_N ? names[phase] : "?";
}

int lb_phase_parse(const char *name)
{
	for (int i = 1; i < LB_PHASE_N; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

int lb_progress_configure(int phase_timeout_ms, const char *fault)
{
	char ph[16];
	const char *colon;
	size_t n;

	for (int i = 0; i < LB_PHASE_N; i++)
		cfg.ms[i] = phase_timeout_ms < 0 ? -1 : phase_timeout_ms;
	cfg.hang_phase = -1;
	cfg.hang_dev[0] = 0;
	if (!fault || !*fault)
		return 0;
	colon = strchr(fault, ':');
	n = colon ? (size_t)(colon - fault) : strlen(fault);
	if (n >= sizeof(ph))
		return -EINVAL;
	memcpy(ph, fault, n);
	ph[n] = 0;
	if ((cfg.hang_phase = lb_phase_parse(ph)) < 0)
		return -EINVAL;
	if (colon) {
		n = strlen(colon + 1);
		if (n >= sizeof(cfg.hang_dev)) {
			cfg.hang_phase = -1;
			return -EINVAL;
		}
		memcpy(cfg.hang_dev, colon + 1, n + 1);
	}
	return 0;
}

int lb_progress_default_ms(int phase)
{
	if (phase <= LB_PHASE_NONE || phase >= LB_PHASE_N || phase == LB_PHASE_MENU)
		return 0;
	if (cfg.ms[phase] >= 0)
		return cfg.ms[phase];
	return default_ms[phase];
}

int lb_progress_parse_timeouts(const char *spec, int ms[LB_PHASE_N])
{
	const char *p = spec;
	int v[LB_PHASE_N];

	for (int i = 0; i < LB_PHASE_N; i++)
		v[i] = ms[i];
	if (!p || !*p)
		return -EINVAL;
	for (;;) {
		const char *e = p + strcspn(p, ","), *colon = memchr(p, ':', (size_t)(e - p));
		int phase = -1;
		long secs = 0;

		if (colon) {
			char ph[16];
			size_t n = (size_t)(colon - p);

			if (n >= sizeof(ph))
				return -EINVAL;
			memcpy(ph, p, n);
			ph[n] = 0;
			if ((phase = lb_phase_parse(ph)) < 0 || phase == LB_PHASE_MENU)
				return -EINVAL;
			p = colon + 1;
		}
		if (p == e || e - p > 5)
			return -EINVAL;
		for (; p < e; p++) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			secs = secs * 10 + (*p - '0');
		}
		if (secs > 86400)
			return -EINVAL;
		for (int i = 0; i < LB_PHASE_N; i++)
			if (phase < 0 || i == phase)
				v[i] = (int)secs * 1000;
		if (!*e)
			break;
		p = e + 1;
	}
	for (int i = 0; i < LB_PHASE_N; i++)
		ms[i] = v[i];
	return 0;
}

int lb_progress_timeouts(const char *spec)
{
	return lb_progress_parse_timeouts(spec, cfg.ms);
}

void lb_progress_attach(struct lb_progress *p)
{
	cur = p;
}

static void copy_dev(char *dst, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= LB_PROGRESS_DEV)
		n = LB_PROGRESS_DEV - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = 0;
}

void lb_progress_bound(int phase, const char *dev, int bound_ms)
{
	if (!cur)
		return;
	__atomic_store_n(&cur->seq, cur->seq + 1, __ATOMIC_RELEASE); /* odd */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cur->phase = phase;
	cur->bound_ms = bound_ms > 0 ? bound_ms : 0;
	copy_dev(cur->dev, dev);
	__atomic_store_n(&cur->seq, cur->seq + 1, __ATOMIC_RELEASE); /* even */
	if (cfg.hang_phase == phase && getpid() != 1 &&
	    (!cfg.hang_dev[0] || (dev && !strcmp(dev, cfg.hang_dev)))) {
		/* fault injection: this phase never ends */
		for (;;)
			pause();
	}
}

void lb_progress(int phase, const char *dev)
{
	lb_progress_bound(phase, dev, lb_progress_default_ms(phase));
}

void lb_progress_interactive(void)
{
	if (cur)
		__atomic_store_n(&cur->interactive, 1, __ATOMIC_RELEASE);
}

struct lb_progress *lb_progress_new(void)
{
	void *p = mmap(NULL, sizeof(struct lb_progress), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p; /* zero-filled */
}

void lb_progress_free(struct lb_progress *p)
{
	if (p)
		munmap(p, sizeof(*p));
}

void lb_watch_init(struct lb_watch *w, long now_ms)
{
	memset(w, 0, sizeof(*w));
	w->since_ms = now_ms;
}

int lb_watch_check(struct lb_watch *w, const struct lb_progress *p,
		   long now_ms, long *wait_ms)
{
	uint32_t s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE), s2;

	w->interactive |= __atomic_load_n(&p->interactive, __ATOMIC_ACQUIRE);
	if (!(s1 & 1) && s1 != w->seq) {
		struct lb_progress c;

		c.phase = p->phase;
		c.bound_ms = p->bound_ms;
		memcpy(c.dev, (const char *)p->dev, sizeof(c.dev));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (s1 == s2) { /* a whole stamp: a new phase began */
			w->seq = s1;
			w->since_ms = now_ms;
			w->phase = c.phase >= 0 && c.phase < LB_PHASE_N ? c.phase : 0;
			w->bound_ms = c.bound_ms > 0 ? c.bound_ms : 0;
			c.dev[sizeof(c.dev) - 1] = 0;
			memcpy(w->dev, c.dev, sizeof(w->dev));
		}
	}
	if (s1 != w->seq) { /* being written: look again soon */
		*wait_ms = 10;
		return 0;
	}
	if (!w->bound_ms) {
		*wait_ms = -1;
		return 0;
	}
	if (now_ms - w->since_ms >= w->bound_ms) {
		*wait_ms = 0;
		return 1;
	}
	*wait_ms = w->bound_ms - (now_ms - w->since_ms);
	return 0;
}

int lb_progress_skip_add(const char *dev)
{
	if (!dev || !*dev)
		return -EINVAL;
	if (lb_progress_skipped(dev))
		return 0;
	if (cfg.n_skip >= LB_SKIP_MAX)
		return -E2BIG;
	copy_dev(cfg.skip[cfg.n_skip++], dev);
	return 0;
}

int lb_progress_skipped(const char *dev)
{
	if (!dev)
		return 0;
	for (size_t i = 0; i < cfg.n_skip; i++)
		if (!strncmp(cfg.skip[i], dev, LB_PROGRESS_DEV - 1))
			return 1;
	return 0;
}

void lb_progress_skip_clear(void)
{
	cfg.n_skip = 0;
}

long lb_progress_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
