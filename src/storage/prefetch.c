/* Parallel, time-bounded reads of every device's head and tail (see
 * prefetch.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "prefetch.h"
#include "probe.h"
#include "progress.h"

struct slot {
	char name[64];
	char path[PATH_MAX];
	unsigned ma, mi;
	uint64_t bytes;            /* device size */
	uint8_t *head, *tail;
	size_t hlen, tlen;
	uint64_t tail_off;
	int err;
	int done;                  /* under pf->lock */
	int refs;                  /* the thread and the owner: last one frees */
};

struct lb_prefetch {
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	size_t n;
	struct slot **s;
	struct timespec start;
	int *shared_refs;          /* lock and cond outlive the owner while a thread runs */
};

struct job {
	struct slot *s;
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	int *shared_refs;
};

static void slot_put(struct slot *s, pthread_mutex_t *lock)
{
	int last;

	pthread_mutex_lock(lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(lock);
	if (last) {
		free(s->head);
		free(s->tail);
		free(s);
	}
}

static void shared_put(pthread_mutex_t *lock, pthread_cond_t *cond, int *refs)
{
	int last;

	pthread_mutex_lock(lock);
	last = --*refs == 0;
	pthread_mutex_unlock(lock);
	if (last) {
		pthread_cond_destroy(cond);
		pthread_mutex_destroy(lock);
		free(cond);
		free(lock);
		free(refs);
	}
}

static void *reader(void *arg)
{
	struct job *j = arg;
	struct slot *s = j->s;
	int fd, err = 0;

	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (s->ma || s->mi) &&
	    (!mknod(s->path, S_IFBLK | 0600, makedev(s->ma, s->mi)) || errno == EEXIST))
		fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
	} else {
		size_t got = 0;
		int r = lb_pread_full(fd, s->head, LB_PROBE_BYTES, 0, &got);

		if (r && !got)
			err = r;
		s->hlen = got;
		if (!err && s->tail && s->bytes > LB_PREFETCH_TAIL) {
			s->tail_off = (s->bytes - LB_PREFETCH_TAIL) & ~(uint64_t)4095;
			got = 0;
			lb_pread_full(fd, s->tail, LB_PREFETCH_TAIL, s->tail_off, &got);
			s->tlen = got;
		}
		close(fd);
	}
	pthread_mutex_lock(j->lock);
	s->err = err;
	s->done = 1;
	pthread_cond_broadcast(j->cond);
	pthread_mutex_unlock(j->lock);
	slot_put(s, j->lock);
	shared_put(j->lock, j->cond, j->shared_refs);
	free(j);
	return NULL;
}

struct lb_prefetch *lb_prefetch_start(const char *devdir,
				      const struct lb_blkdev *devs, size_t n)
{
	struct lb_prefetch *pf = calloc(1, sizeof(*pf));
	pthread_attr_t attr;

	if (!pf)
		return NULL;
	pf->lock = malloc(sizeof(*pf->lock));
	pf->cond = malloc(sizeof(*pf->cond));
	pf->shared_refs = malloc(sizeof(*pf->shared_refs));
	pf->s = calloc(n ? n : 1, sizeof(*pf->s));
	if (!pf->lock || !pf->cond || !pf->shared_refs || !pf->s) {
		free(pf->lock);
		free(pf->cond);
		free(pf->shared_refs);
		free(pf->s);
		free(pf);
		return NULL;
	}
	pthread_mutex_init(pf->lock, NULL);
	pthread_cond_init(pf->cond, NULL);
	*pf->shared_refs = 1;
	clock_gettime(CLOCK_MONOTONIC, &pf->start);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (size_t i = 0; i < n && pf->n < LB_PREFETCH_MAX; i++) {
		const struct lb_blkdev *d = &devs[i];
		struct slot *s;
		struct job *j;
		pthread_t t;

		char disk[PATH_MAX];

		if (d->is_cd || strlen(d->name) >= sizeof(s->name))
			continue;
		/* a device (or its disk) that hung a boot process before */
		snprintf(disk, sizeof(disk), "%s/%s", devdir, d->disk);
		if (lb_progress_skipped(disk))
			continue;
		snprintf(disk, sizeof(disk), "%s/%s", devdir, d->name);
		if (lb_progress_skipped(disk))
			continue;
		if (!(s = calloc(1, sizeof(*s))) || !(j = calloc(1, sizeof(*j)))) {
			free(s);
			break;
		}
		strcpy(s->name, d->name);
		snprintf(s->path, sizeof(s->path), "%s/%s", devdir, d->name);
		s->ma = d->dev_major;
		s->mi = d->dev_minor;
		s->bytes = d->size <= UINT64_MAX / 512 ? d->size * 512 : 0;
		s->head = malloc(LB_PROBE_BYTES);
		s->tail = malloc(LB_PREFETCH_TAIL);
		s->refs = 2;
		*j = (struct job){ s, pf->lock, pf->cond, pf->shared_refs };
		if (!s->head || !s->tail) {
			free(s->head);
			free(s->tail);
			free(s);
			free(j);
			break;
		}
		pthread_mutex_lock(pf->lock);
		(*pf->shared_refs)++;
		pthread_mutex_unlock(pf->lock);
		if (pthread_create(&t, &attr, reader, j)) {
			pthread_mutex_lock(pf->lock);
			(*pf->shared_refs)--;
			pthread_mutex_unlock(pf->lock);
			free(s->head);
			free(s->tail);
			free(s);
			free(j);
			continue; /* read directly later */
		}
		pf->s[pf->n++] = s;
	}
	pthread_attr_destroy(&attr);
	return pf;
}

size_t lb_prefetch_wait(struct lb_prefetch *pf, int bound_ms)
{
	struct timespec until = pf->start;
	size_t left = 0;

	until.tv_sec += bound_ms / 1000;
	until.tv_nsec += (long)(bound_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(pf->lock);
	for (;;) {
		left = 0;
		for (size_t i = 0; i < pf->n; i++)
			left += !pf->s[i]->done;
		if (!left)
			break;
		/* the condition variable uses CLOCK_REALTIME by default:
		 * wait in short steps against the monotonic deadline */
		struct timespec now, step;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > until.tv_sec ||
		    (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec))
			break;
		clock_gettime(CLOCK_REALTIME, &step);
		step.tv_nsec += 50 * 1000000L;
		if (step.tv_nsec >= 1000000000L) {
			step.tv_sec++;
			step.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(pf->cond, pf->lock, &step);
	}
	pthread_mutex_unlock(pf->lock);
	return left;
}

int lb_prefetch_get(const struct lb_prefetch *pf, const char *name,
		    const uint8_t **head, size_t *hlen, const uint8_t **tail,
		    uint64_t *tail_off, size_t *tlen)
{
	for (size_t i = 0; pf && i < pf->n; i++) {
		struct slot *s = pf->s[i];
		int done, err;

		if (strcmp(s->name, name))
			continue;
		pthread_mutex_lock(pf->lock);
		done = s->done;
		err = s->err;
		pthread_mutex_unlock(pf->lock);
		if (!done)
			return -ETIMEDOUT;
		if (err)
			return err;
		*head = s->head;
		*hlen = s->hlen;
		*tail = s->tail;
		*tail_off = s->tail_off;
		*tlen = s->tlen;
		return 0;
	}
	return -ENOENT;
}

void lb_prefetch_free(struct lb_prefetch *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->n; i++)
		slot_put(pf->s[i], pf->lock);
	free(pf->s);
	shared_put(pf->lock, pf->cond, pf->shared_refs);
	free(pf);
}
