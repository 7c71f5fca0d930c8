/* The LIFO arena (src/lib/arena.c): allocation, growth in place and by
 * moving, mark/release across chunks, the cap, and (the unit tests run
 * under ASan) redzones and released memory poisoned. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "t.h"

#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif
#ifdef T_ASAN
#include <sanitizer/asan_interface.h>
#define POISONED(p) __asan_address_is_poisoned(p)
#endif

int main(void)
{
	TEST("arena: allocations aligned, apart, freed with the arena") {
		struct lb_arena a = { 0 };
		void *p, *q;

		CHECK(!lb_arena_alloc(&a, 5, &p));
		CHECK(!lb_arena_alloc(&a, 13, &q));
		CHECK(((uintptr_t)p & 7) == 0 && ((uintptr_t)q & 7) == 0);
		CHECK((char *)q >= (char *)p + 5);
		memcpy(p, "abcd", 5);
		memset(q, 'x', 13);
		CHECK(!strcmp(p, "abcd"));
		lb_arena_free(&a);
		CHECK(!a.top && !a.total);
	}
	TEST("arena: the latest allocation grows in place, another one moves with its bytes") {
		struct lb_arena a = { 0 };
		void *p, *q, *r;

		CHECK(!lb_arena_alloc(&a, 8, &p));
		memcpy(p, "1234567", 8);
		CHECK(!lb_arena_grow(&a, p, 8, 100, &q));
		CHECK(q == p); /* the latest allocation grows where it is */
		CHECK(!lb_arena_alloc(&a, 4, &r));
		CHECK(!lb_arena_grow(&a, q, 100, 200, &q));
		CHECK(q != p && !strcmp(q, "1234567")); /* not the latest: moved */
		/* larger than a chunk: a chunk of its own */
		CHECK(!lb_arena_grow(&a, q, 200, 1u << 20, &r));
		CHECK(!strcmp(r, "1234567"));
		memset((char *)r + 8, 0, (1u << 20) - 8);
		lb_arena_free(&a);
	}
	TEST("arena: release goes back to the mark across chunks; a loop reuses the memory") {
		struct lb_arena a = { 0 };
		struct lb_arena_mark m0, m1;
		void *p, *q, *after = NULL;
		size_t total = 0;

		CHECK(!lb_arena_alloc(&a, 16, &p));
		m0 = lb_arena_mark(&a);
		for (int i = 0; i < 100; i++) { /* several chunks */
			CHECK(!lb_arena_alloc(&a, 1000, &q));
			if (!after)
				after = q;
		}
		CHECK(a.total > 64 * 1024);
		lb_arena_release(&a, m0);
		CHECK(!lb_arena_alloc(&a, 16, &q));
		CHECK(q == after); /* the arena stands where the mark was */
		CHECK(!strcmp(memcpy(p, "kept", 5), "kept"));
		/* given back and handed out again: a loop does not grow it */
		m1 = lb_arena_mark(&a);
		for (int r = 0; r < 50; r++) {
			for (int i = 0; i < 100; i++)
				CHECK(!lb_arena_alloc(&a, 1000, &q));
			if (r == 1)
				total = a.total;
			lb_arena_release(&a, m1);
		}
		CHECK(total && a.total <= total);
		CHECK(total < 512 * 1024);
		lb_arena_free(&a);
	}
	TEST("arena: the cap and a size overflow give -E2BIG") {
		struct lb_arena a;
		void *p;

		lb_arena_init(&a, 100 * 1024);
		CHECK(!lb_arena_alloc(&a, 40 * 1024, &p));
		CHECK(lb_arena_alloc(&a, 80 * 1024, &p) == -E2BIG);
		CHECK(lb_arena_alloc(&a, SIZE_MAX - 4, &p) == -E2BIG);
		CHECK(!lb_arena_alloc(&a, 10, &p));
		lb_arena_free(&a);
		CHECK(a.max == 100 * 1024);
	}
	TEST("arena: under ASan the redzone, a moved allocation and released memory are poisoned") {
#ifdef T_ASAN
		struct lb_arena a = { 0 };
		struct lb_arena_mark m;
		char *p, *q;

		CHECK(!lb_arena_alloc(&a, 5, (void **)&p));
		CHECK(!POISONED(p) && !POISONED(p + 4));
		CHECK(POISONED(p + 5)); /* one past the end */
		CHECK(POISONED(p + 8) && POISONED(p + 20));
		CHECK(!lb_arena_grow(&a, p, 5, 30, (void **)&p));
		CHECK(!POISONED(p + 29) && POISONED(p + 30));
		m = lb_arena_mark(&a);
		CHECK(!lb_arena_alloc(&a, 10, (void **)&q));
		CHECK(!POISONED(q));
		CHECK(!lb_arena_grow(&a, p, 30, 60, (void **)&p)); /* moved */
		CHECK(!POISONED(p + 59));
		lb_arena_release(&a, m);
		CHECK(POISONED(q)); /* use after release */
		CHECK(POISONED(p)); /* the moved copy was after the mark */
		lb_arena_free(&a);
#else
		SKIP("not built with AddressSanitizer");
#endif
	}
	TEST("arena: a chunk freed by one arena is the next arena's, poisoned in between") {
		struct lb_arena a = { 0 }, b = { 0 };
		char *p, *q, *r;

		lb_arena_chunk(&a, 4096);
		lb_arena_chunk(&b, 4096);
		CHECK(!lb_arena_alloc(&a, 100, (void **)&p));
		memset(p, 'x', 100);
		lb_arena_free(&a);
		CHECK(a.total == 0);
#ifdef T_ASAN
		CHECK(POISONED(p)); /* kept, not handed out: a stale pointer is caught */
#endif
		CHECK(!lb_arena_alloc(&b, 100, (void **)&q));
		CHECK(q == p);
		CHECK(b.total > 4096 && b.total < 4096 + 64); /* the chunk counts again */
		CHECK(!lb_arena_alloc(&b, 64 * 1024, (void **)&r));
		lb_arena_free(&b);
		CHECK(b.total == 0);
	}
	TEST("arena: larger chunks are powers of two of the chunk size, pooled by size class, within the limits") {
		struct lb_arena a = { 0 }, b = { 0 }, c = { 0 };
		size_t hdr, old = lb_arena_pool_max(4u << 20), held;
		char *p, *q;

		lb_arena_pool_max(0); /* empties the pool */
		CHECK(lb_arena_pool_held() == 0);
		lb_arena_pool_max(4u << 20);
		lb_arena_chunk(&a, 4096);
		CHECK(!lb_arena_alloc(&a, 100, (void **)&p));
		hdr = a.total - 4096;
		CHECK(hdr > 0 && hdr <= 64);
		CHECK(!lb_arena_alloc(&a, 5000, (void **)&p)); /* 4096 doubled */
		CHECK(a.total == 4096 + 8192 + 2 * hdr);
		CHECK(!lb_arena_alloc(&a, 40000, (void **)&q)); /* 4096 * 16 */
		CHECK(a.total == 4096 + 8192 + 65536 + 3 * hdr);
		lb_arena_free(&a);
		CHECK(lb_arena_pool_held() == 4096 + 8192 + 65536 + 3 * hdr);
		/* b asks for 6000 bytes: the 8192 chunk, the head of its class */
		lb_arena_chunk(&b, 6000);
		CHECK(!lb_arena_alloc(&b, 10, (void **)&q));
		CHECK(q == p);
		CHECK(b.total == 8192 + hdr);
		lb_arena_free(&b);
		/* c may hold 4096 + hdr + 100: the pooled 8192 chunk is too big
		 * for it, it gets a new one of its own size */
		lb_arena_init(&c, 4096 + hdr + 100);
		lb_arena_chunk(&c, 4096);
		CHECK(!lb_arena_alloc(&c, 4000, (void **)&q)); /* the pooled 4096 */
		CHECK(c.total == 4096 + hdr);
		CHECK(lb_arena_alloc(&c, 4000, (void **)&q) == -E2BIG);
		lb_arena_free(&c);
		lb_arena_init(&c, 6000 + hdr + 100);
		lb_arena_chunk(&c, 6000);
		held = lb_arena_pool_held();
		CHECK(!lb_arena_alloc(&c, 10, (void **)&q)); /* not the 8192 */
		CHECK(c.total == 6000 + hdr);
		CHECK(lb_arena_pool_held() == held);
		lb_arena_free(&c);
		/* a lower limit frees what is past it; nothing past it is kept */
		lb_arena_pool_max(8192);
		CHECK(lb_arena_pool_held() <= 8192);
		lb_arena_chunk(&a, 16384);
		CHECK(!lb_arena_alloc(&a, 10, (void **)&q));
		held = lb_arena_pool_held();
		lb_arena_free(&a);
		CHECK(lb_arena_pool_held() == held);
		lb_arena_pool_max(old);
	}
	return t_done();
}
