/* Fuzz the firmware update decision (src/firmware/update.h): the input is
 * a 2-byte length, that many bytes of a .minisig, then the update file; the
 * header parser, the firmware kind and variable store finders (on the file
 * and on it as the current flash) and the whole check with a fixed update
 * key must stay inside the input and never accept a file the key did not
 * sign. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "update.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct lb_pubkey key = { { 1, 2, 3, 4, 5, 6, 7, 8 }, { 9 } };
	const struct lb_keyring keys = { &key, 1, NULL, 0 };
	const struct lb_update_ctx c = { &keys, 1, 1, 2, 'A' };
	struct lb_update_hdr h;
	struct lb_flash_range r, keep[1];
	size_t sl, nkeep;
	char why[512];

	if (size < 2 || size > (1u << 20))
		return 0;
	sl = (size_t)data[0] | (size_t)data[1] << 8;
	if (sl > size - 2)
		return 0;
	const uint8_t *sig = data + 2, *file = data + 2 + sl;
	size_t len = size - 2 - sl;

	if (!lb_update_parse(file, len, &h, why, sizeof(why)) &&
	    (h.img_off + h.img_len != len || strlen(h.label) > 63))
		abort();
	(void)lb_flash_image_kind(file, len);
	if (!lb_update_store(file, len, &r) && (r.off + r.len > len || r.len < 4096))
		abort();
	/* no signature by that key can be in a fuzzer's input: never accepted */
	if (!lb_update_check(file, len, sig, sl, &c, file, len, &h, keep, &nkeep, why, sizeof(why)))
		abort();
	return 0;
}
