/* A LIFO arena: bump allocation in chunks, freed back to a mark.
 *
 * For scratch memory with a stack discipline (the GRUB interpreter's word
 * expansions: a command's words live until the command returns, and the
 * commands it runs take and give back memory above them). One malloc per
 * chunk instead of one per string, and nothing to free one by one.
 *
 * Under AddressSanitizer (gcc or clang) every allocation is followed by a
 * poisoned redzone, the free space of a chunk is poisoned, and so is what
 * a release gives back and what a grow leaves behind: an overflow past an
 * allocation, or a use after its release, is reported as with malloc.
 *
 * Libc only, never logs; negative errno. */
#ifndef LB_ARENA_H
#define LB_ARENA_H

#include <stddef.h>

/* For code whose branches follow sizes and bytes rather than the
 * structure of its input (the arena, byte scans): not instrumented for
 * coverage when built for libFuzzer with clang 13+, where each of its
 * comparisons would be a traced call that guides nothing. */
#if defined(__clang__) && __clang_major__ >= 13
#define LB_NO_COV __attribute__((no_sanitize("coverage")))
#else
#define LB_NO_COV
#endif

struct lb_arena_chunk;

struct lb_arena {
	struct lb_arena_chunk *top;   /* the chunk allocations come from */
	struct lb_arena_chunk *spare; /* one chunk given back, kept for reuse */
	size_t total;                 /* bytes in chunks, spare included */
	size_t max;                   /* cap on total (0: no cap) */
	void *last;                   /* the latest allocation (grows in place) */
	size_t last_n;                /* its size */
	size_t chunk;                 /* chunk size (0: 32 KiB), see lb_arena_chunk */
};

struct lb_arena_mark {
	struct lb_arena_chunk *c;
	size_t used;
};

/* Zeroed is ready (no cap); this sets the cap on the chunk bytes held. */
void lb_arena_init(struct lb_arena *a, size_t max);
/* The size of the chunks taken from malloc from now on (an allocation
 * larger than that gets a chunk of that size doubled until it holds it,
 * or of its own size when that would pass the cap); 0: 32 KiB. For arenas
 * that usually hold little (a short script's syntax tree). */
void lb_arena_chunk(struct lb_arena *a, size_t bytes);
/* n bytes (n > 0 not required), 8-byte aligned, not initialised.
 * 0, -E2BIG past the cap, -ENOMEM. */
int lb_arena_alloc(struct lb_arena *a, size_t n, void **out);
/* Resize p, an allocation of this arena of `old` bytes, to n bytes: in
 * place when p is the latest allocation and its chunk has room, else a new
 * allocation with the first min(old, n) bytes copied (p then counts as
 * given back). p NULL: a plain allocation. *out is untouched on error. */
int lb_arena_grow(struct lb_arena *a, void *p, size_t old, size_t n, void **out);
/* Where the arena stands now. */
struct lb_arena_mark lb_arena_mark(const struct lb_arena *a);
/* Give back everything allocated after the mark m (taken on this arena,
 * and not already released past it). */
void lb_arena_release(struct lb_arena *a, struct lb_arena_mark m);
/* Free all chunks; the arena is zeroed except its cap and chunk size. */
void lb_arena_free(struct lb_arena *a);
/* The most bytes of freed chunks the process keeps for the next arenas
 * (default 256 KiB; what it holds past a lower limit is freed); returns
 * the limit before. */
size_t lb_arena_pool_max(size_t bytes);
/* The bytes of chunks the pool holds now. */
size_t lb_arena_pool_held(void);

#endif
