/* A LIFO arena: see arena.h. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#if defined(__SANITIZE_ADDRESS__)
#define LB_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LB_ARENA_ASAN 1
#endif
#endif

#ifdef LB_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define REDZONE 16
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define REDZONE 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK_DEFAULT (32u << 10)

/* Not instrumented for coverage (LB_NO_COV): the branches here follow
 * allocation sizes and chunk boundaries, not the structure of a fuzzer's
 * input, and the GRUB harness allocates from the arena for every word it
 * lexes and expands: tracing these comparisons was ~5% of its time for no
 * guidance (docs/fuzzing.md). ASan still checks it all. */

struct lb_arena_chunk {
	struct lb_arena_chunk *prev;
	size_t cap, used;
	size_t pad; /* data 16-byte aligned, as malloc's */
	unsigned char data[];
};

_Static_assert(offsetof(struct lb_arena_chunk, data) % 16 == 0, "chunk data alignment");

/* The bytes an allocation of n takes in a chunk: 8-aligned, plus the
 * redzone; (size_t)-1 on overflow. */
LB_NO_COV static size_t extent(size_t n)
{
	if (n > SIZE_MAX - 8 - REDZONE)
		return (size_t)-1;
	return ((n ? n : 1) + 7) / 8 * 8 + REDZONE;
}

void lb_arena_init(struct lb_arena *a, size_t max)
{
	memset(a, 0, sizeof(*a));
	a->max = max;
}

void lb_arena_chunk(struct lb_arena *a, size_t bytes)
{
	a->chunk = bytes;
}

LB_NO_COV static size_t chunk_size(const struct lb_arena *a)
{
	return a->chunk ? a->chunk : CHUNK_DEFAULT;
}

/* Chunks freed by any arena, kept for the next one (a process-wide
 * pool): a parser that makes an arena per file or per run (the GRUB
 * interpreter does for every script, expansion and menu entry) takes its
 * chunks from here instead of malloc. Chunks of at most POOL_CHUNK bytes,
 * lb_arena_pool_max bytes in all (POOL_DEFAULT unless set), in lists by
 * size class (class k holds caps from 2^k to 2^(k+1) - 1), so taking one
 * is a look at one list head. Their data stays poisoned under ASan, so a
 * pointer kept past lb_arena_free or a release is still caught until the
 * chunk is handed out again. */
#define POOL_CHUNK (1u << 20)
#define POOL_CLASSES 21 /* 2^20 = POOL_CHUNK is the last class */
#define POOL_DEFAULT (256u << 10)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lb_arena_chunk *pool[POOL_CLASSES];
static size_t pool_bytes, pool_max = POOL_DEFAULT;

/* floor(log2(n)), n > 0 */
LB_NO_COV static unsigned ilog2(size_t n)
{
	unsigned k = 0;

	while (n >>= 1)
		k++;
	return k;
}

size_t lb_arena_pool_max(size_t bytes)
{
	size_t old;

	pthread_mutex_lock(&pool_lock);
	old = pool_max;
	pool_max = bytes;
	/* what the pool holds past the new limit goes back to malloc */
	for (unsigned k = 0; k < POOL_CLASSES && pool_bytes > pool_max; k++) {
		while (pool[k] && pool_bytes > pool_max) {
			struct lb_arena_chunk *c = pool[k];

			pool[k] = c->prev;
			pool_bytes -= sizeof(*c) + c->cap;
			UNPOISON(c->data, c->cap);
			free(c);
		}
	}
	pthread_mutex_unlock(&pool_lock);
	return old;
}

size_t lb_arena_pool_held(void)
{
	size_t n;

	pthread_mutex_lock(&pool_lock);
	n = pool_bytes;
	pthread_mutex_unlock(&pool_lock);
	return n;
}

/* A pooled chunk of at least cap and at most most bytes, or NULL: the
 * head of the class that starts at or above cap, or of cap's own class
 * if that head is large enough. */
LB_NO_COV static struct lb_arena_chunk *pool_take(size_t cap, size_t most)
{
	struct lb_arena_chunk *c = NULL;
	unsigned k;

	if (!cap || cap > POOL_CHUNK)
		return NULL;
	k = ilog2(cap);
	pthread_mutex_lock(&pool_lock);
	if (!(pool[k] && pool[k]->cap >= cap) && (cap & (cap - 1)))
		k++;
	if (k < POOL_CLASSES && (c = pool[k]) && c->cap >= cap && c->cap <= most) {
		pool[k] = c->prev;
		pool_bytes -= sizeof(*c) + c->cap;
	} else {
		c = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	return c;
}

LB_NO_COV static void chunk_free(struct lb_arena *a, struct lb_arena_chunk *c)
{
	size_t sz = c->cap + sizeof(*c);
	int kept = 0;

	a->total -= sz;
	if (c->cap && c->cap <= POOL_CHUNK) {
		unsigned k = ilog2(c->cap);

		pthread_mutex_lock(&pool_lock);
		if (pool_bytes <= pool_max && sz <= pool_max - pool_bytes) {
			POISON(c->data, c->cap);
			c->prev = pool[k];
			pool[k] = c;
			pool_bytes += sz;
			kept = 1;
		}
		pthread_mutex_unlock(&pool_lock);
	}
	if (!kept) {
		UNPOISON(c->data, c->cap);
		free(c);
	}
}

/* Room for `bytes` more chunk bytes under the cap. */
LB_NO_COV static int fits(const struct lb_arena *a, size_t bytes)
{
	return !a->max || (a->total <= a->max && bytes <= a->max - a->total);
}

/* A chunk with room for `need` bytes on top of the stack. */
LB_NO_COV static int new_chunk(struct lb_arena *a, size_t need)
{
	struct lb_arena_chunk *c = a->spare;
	size_t cap = chunk_size(a), base = need > cap ? need : cap;

	/* more than a chunk: the chunk size doubled until it holds need, if
	 * that fits under the cap (a few sizes, which the pool hands out
	 * again), else just need */
	while (cap < need && cap <= (SIZE_MAX - sizeof(*c)) / 2)
		cap *= 2;
	if (cap < need || !fits(a, cap + sizeof(*c)))
		cap = base;

	if (c && c->cap >= need) {
		a->spare = NULL;
	} else {
		if (cap > SIZE_MAX - sizeof(*c))
			return -E2BIG;
		if (c && !fits(a, cap + sizeof(*c))) {
			a->spare = NULL;
			chunk_free(a, c);
		}
		if (!fits(a, cap + sizeof(*c)))
			return -E2BIG;
		if (!(c = pool_take(cap, a->max ? a->max - a->total - sizeof(*c) : SIZE_MAX))) {
			if (!(c = malloc(sizeof(*c) + cap)))
				return -ENOMEM;
			c->cap = cap;
			POISON(c->data, cap);
		}
		a->total += c->cap + sizeof(*c);
	}
	c->used = 0;
	c->prev = a->top;
	a->top = c;
	return 0;
}

LB_NO_COV int lb_arena_alloc(struct lb_arena *a, size_t n, void **out)
{
	size_t e = extent(n);
	void *p;
	int r;

	if (e == (size_t)-1)
		return -E2BIG;
	if (!a->top || a->top->cap - a->top->used < e) {
		if ((r = new_chunk(a, e)))
			return r;
	}
	p = a->top->data + a->top->used;
	a->top->used += e;
	UNPOISON(p, n);
	a->last = p;
	a->last_n = n;
	*out = p;
	return 0;
}

LB_NO_COV int lb_arena_grow(struct lb_arena *a, void *p, size_t old, size_t n, void **out)
{
	struct lb_arena_chunk *c = a->top;
	void *q;
	int r;

	if (!p)
		return lb_arena_alloc(a, n, out);
	if (p == a->last && c && (unsigned char *)p >= c->data &&
	    (unsigned char *)p < c->data + c->cap) {
		size_t off = (size_t)((unsigned char *)p - c->data), e = extent(n);

		if (e != (size_t)-1 && c->cap - off >= e) {
			size_t oe = extent(a->last_n);

			POISON(p, oe > e ? oe : e);
			c->used = off + e;
			UNPOISON(p, n);
			a->last_n = n;
			*out = p;
			return 0;
		}
	}
	if ((r = lb_arena_alloc(a, n, &q)))
		return r;
	memcpy(q, p, old < n ? old : n);
	POISON(p, old); /* moved: a stale pointer to it is caught */
	*out = q;
	return 0;
}

LB_NO_COV struct lb_arena_mark lb_arena_mark(const struct lb_arena *a)
{
	struct lb_arena_mark m = { a->top, a->top ? a->top->used : 0 };

	return m;
}

LB_NO_COV void lb_arena_release(struct lb_arena *a, struct lb_arena_mark m)
{
	while (a->top && a->top != m.c) {
		struct lb_arena_chunk *c = a->top;

		a->top = c->prev;
		POISON(c->data, c->cap);
		/* keep one default-sized chunk: a loop that takes and gives
		 * back memory across a chunk boundary does not malloc each time */
		if (!a->spare && c->cap == chunk_size(a))
			a->spare = c;
		else
			chunk_free(a, c);
	}
	if (a->top && m.used < a->top->used) {
		POISON(a->top->data + m.used, a->top->used - m.used);
		a->top->used = m.used;
	}
	a->last = NULL;
	a->last_n = 0;
}

void lb_arena_free(struct lb_arena *a)
{
	size_t max = a->max, chunk = a->chunk;

	while (a->top) {
		struct lb_arena_chunk *c = a->top;

		a->top = c->prev;
		chunk_free(a, c);
	}
	if (a->spare)
		chunk_free(a, a->spare);
	lb_arena_init(a, max);
	a->chunk = chunk;
}
