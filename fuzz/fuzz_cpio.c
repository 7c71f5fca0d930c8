/*
 * Fuzz the newc cpio reader (src/lib/cpio.c) and the initramfs walker
 * (src/host/mkinitramfs.c: concatenated, xz/gzip compressed archives).
 * Oracle: every member read is written back with the writer and must read
 * back identically. Input capped at 1 MiB, decompressed output at 4 MiB.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"
#include "mkinitramfs.h"

#define MAX_IN  (1u << 20)
#define MAX_OUT (4u << 20)

static volatile unsigned sink;

static int touch(void *ctx, const struct lb_cpio_entry *e)
{
	char safe[LB_CPIO_MAX_NAME];
	unsigned s = 0;

	(void)ctx;
	for (const char *p = e->name; *p; p++)
		s += (uint8_t)*p;
	for (uint32_t i = 0; i < e->filesize; i++)
		s += e->data[i];
	if (lb_cpio_safe_path(e->name, safe, sizeof(safe)) == 0) {
		/* a safe path never climbs or starts at the root */
		if (safe[0] == '/' || !strcmp(safe, "..") || !strncmp(safe, "../", 3) ||
		    strstr(safe, "/../") || strstr(safe, "//"))
			__builtin_trap();
		s += (unsigned)strlen(safe);
	}
	sink += s;
	return 0;
}

static void same(const struct lb_cpio_entry *a, const struct lb_cpio_entry *b)
{
	if (strcmp(a->name, b->name) || a->ino != b->ino || a->mode != b->mode ||
	    a->uid != b->uid || a->gid != b->gid || a->nlink != b->nlink ||
	    a->mtime != b->mtime || a->filesize != b->filesize ||
	    a->devmajor != b->devmajor || a->devminor != b->devminor ||
	    a->rdevmajor != b->rdevmajor || a->rdevminor != b->rdevminor ||
	    memcmp(a->data, b->data, a->filesize))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_cpio_reader r, r2;
	struct lb_cpio_entry e, e2;
	struct lb_cpio_buf out = { .max = 2 * MAX_IN + 4096 };
	struct lb_cpio_writer w;
	int rc;

	if (size > MAX_IN)
		return 0;

	/* 1: plain reader, round trip through the writer */
	lb_cpio_writer_init(&w, lb_cpio_buf_write, &out);
	lb_cpio_reader_init(&r, data, size, 0);
	while ((rc = lb_cpio_next(&r, &e)) > 0) {
		touch(NULL, &e);
		if (e.offset % 4 || e.offset >= size || r.off > size ||
		    e.data + e.filesize > data + size)
			__builtin_trap();
		if (lb_cpio_write_entry(&w, &e) < 0)
			__builtin_trap(); /* anything readable is writable */
	}
	if (rc > 0 || (rc < 0 && lb_cpio_next(&r, &e) != rc))
		__builtin_trap(); /* errors are sticky */
	if (lb_cpio_write_trailer(&w, 512) < 0 || out.len % 512)
		__builtin_trap();
	lb_cpio_reader_init(&r2, out.p, out.len, 0);
	lb_cpio_reader_init(&r, data, size, 0);
	while (lb_cpio_next(&r, &e) > 0) {
		if (lb_cpio_next(&r2, &e2) != 1)
			__builtin_trap();
		same(&e, &e2);
	}
	if (lb_cpio_next(&r2, &e2) != 0 || r2.off != out.len)
		__builtin_trap();
	lb_cpio_buf_free(&out);

	/* 2: the kernel-like walk: concatenation, compression, padding */
	lb_initramfs_walk(data, size, MAX_OUT, touch, NULL, NULL);
	return 0;
}
