/*
 * libFuzzer harness for the UEFI image parser and serializer.
 * - Parse strictly and leniently (input capped at 2 MiB).
 * - A parsed image serialized without edits must be byte-identical.
 * - Walk the tree: names, finds, node bytes of every node (bounded).
 * - Edit: remove the first removable file, insert a small built FFS file
 *   into the DXE volume (or the victim's), serialize again; the result (if
 *   any) must have the input's size and parse again with the new file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uefi/uefi.h"

#define MAX_IN (2u << 20)

static size_t budget;

static void walk(struct lb_uefi_image *img, struct lb_uefi_node *n, struct lb_uefi_node **victim)
{
	uint8_t *b;
	size_t l;

	(void)lb_uefi_kind_name(n->kind);
	(void)lb_uefi_type_name(n);
	uint8_t g[16];
	if (n->kind == LB_UEFI_FILE && n->name && lb_guid_parse(n->name, g) &&
	    lb_uefi_find_file(img, n->name) == NULL)
		abort(); /* a file with a (non-GUID) name must be found by it */
	if (budget && n->size < (64u << 10)) {
		budget--;
		if (!lb_uefi_node_bytes(img, n, n->kind == LB_UEFI_SECTION, &b, &l))
			free(b);
	}
	if (!*victim && n->kind == LB_UEFI_FILE && n->parent && !n->parent->opaque &&
	    n->parent->kind == LB_UEFI_VOLUME)
		*victim = n;
	for (size_t i = 0; i < n->n_child; i++)
		walk(img, n->child[i], victim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_uefi_image *img = NULL, *re = NULL;
	struct lb_uefi_node *victim = NULL;
	char why[LB_UEFI_ERRLEN];
	uint8_t *out = NULL;
	size_t len = 0;

	if (size > MAX_IN)
		return 0;
	if (!lb_uefi_parse(data, size, 0, &img, why, sizeof(why)))
		lb_uefi_free(img);
	img = NULL;
	if (lb_uefi_parse(data, size, LB_UEFI_LENIENT, &img, why, sizeof(why)))
		return 0;
	if (lb_uefi_serialize(img, &out, &len) || len != size || memcmp(out, data, size))
		abort(); /* no-edit rewrite must be identical */
	free(out);
	out = NULL;
	budget = 64;
	walk(img, img->root, &victim);
	(void)lb_uefi_dxe_volume(img);
	if (victim) {
		struct lb_uefi_node *vol, *home = victim->parent;
		struct lb_uefi_ffs_spec sp = { 0 };
		uint8_t *ffs = NULL;
		size_t flen = 0;
		int ins = 0;

		if (lb_uefi_remove(img, victim))
			goto done;
		vol = lb_uefi_dxe_volume(img); /* after the removal: it may have gone */
		if (!vol || vol->opaque)
			vol = home;
		if (lb_guid_parse("F0F0F0F0-1234-4567-89AB-CDEF01234567", sp.guid))
			abort();
		sp.type = LB_FV_FILETYPE_DRIVER;
		sp.name = "FuzzDriver";
		sp.pe32 = data;
		sp.pe32_len = size < 300 ? size : 300;
		sp.depex = lb_uefi_depex_true;
		sp.depex_len = sizeof(lb_uefi_depex_true);
		sp.align = 16;
		if (!lb_uefi_ffs_build(&sp, &ffs, &flen))
			ins = !lb_uefi_insert(img, vol, ffs, flen, NULL);
		free(ffs);
		img->flags |= LB_UEFI_MOVE_XIP; /* reach the rebuild paths */
		if (!lb_uefi_serialize(img, &out, &len)) {
			if (len != size)
				abort();
			if (!lb_uefi_parse(out, len, LB_UEFI_LENIENT, &re, why, sizeof(why))) {
				if (ins && !lb_uefi_find_file(re, "FuzzDriver"))
					abort(); /* inserted and serialized, but gone */
				lb_uefi_free(re);
			}
			free(out);
		}
	}
done:
	lb_uefi_free(img);
	return 0;
}
