/*
 * Parallel probing with a time bound: the first bytes (LB_PROBE_BYTES)
 * and the last 128 KiB (where MD 0.90/1.0 superblocks are) of every block
 * device are read at once, one thread per device, so that one dying disk
 * does not stall the others; a device whose reads have not finished by
 * the bound is left out of this round (its thread is left to finish or
 * block on its own: nothing waits for it, it owns what it uses). CD drives
 * are not read here (discover.c asks them for a disc first), nor devices
 * PID 1 left out after a hang (lb_progress_skipped).
 */
#ifndef LB_PREFETCH_H
#define LB_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "discover.h"

#define LB_PREFETCH_TAIL (128u * 1024)
#define LB_PREFETCH_MAX 256 /* devices read in parallel; the rest directly */

struct lb_prefetch;

/* Start the reads (devdir: /dev). NULL on ENOMEM (callers read directly). */
struct lb_prefetch *lb_prefetch_start(const char *devdir,
				      const struct lb_blkdev *devs, size_t n);
/* Wait until every read has finished or bound_ms have passed since the
 * start. Returns how many devices are still being read. */
size_t lb_prefetch_wait(struct lb_prefetch *pf, int bound_ms);
/*
 * What was read from device name: 0 with *head (hlen bytes from 0) and
 * *tail (tlen bytes from tail_off; tlen 0 when the device is small),
 * valid until lb_prefetch_free; -ETIMEDOUT when it did not finish in the
 * bound; -ENOENT when it was not read here (read it directly); or the
 * open/read error.
 */
int lb_prefetch_get(const struct lb_prefetch *pf, const char *name,
		    const uint8_t **head, size_t *hlen, const uint8_t **tail,
		    uint64_t *tail_off, size_t *tlen);
void lb_prefetch_free(struct lb_prefetch *pf);

#endif
