/*
 * LZMA (EDK2 LzmaCompress format: 13-byte header = 5 property bytes,
 * 64-bit little-endian uncompressed size, then a raw LZMA1 stream without
 * end marker) and LZMA + x86 BCJ (the F86 GUID), through liblzma's raw
 * LZMA1EXT coder.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "uefi.h"
#include "uefi_int.h"

#define LZMA_HDR 13u

int uefi_lzma_decode(const uint8_t *in, size_t len, int x86, size_t max,
		     uint8_t **out, size_t *out_len)
{
	lzma_options_lzma *opt = NULL;
	lzma_filter lf = { .id = LZMA_FILTER_LZMA1, .options = NULL };
	lzma_filter filters[3];
	lzma_stream s = LZMA_STREAM_INIT;
	uint64_t size;
	uint8_t *buf;
	int rc = -EBADMSG, n = 0;

	if (len < LZMA_HDR)
		return -EBADMSG;
	size = le64(in + 5);
	if (size == UINT64_MAX)
		return -EBADMSG; /* EDK2 needs the size; so do we */
	if (size > max)
		return -E2BIG;
	if (lzma_properties_decode(&lf, NULL, in, 5) != LZMA_OK)
		return -EBADMSG;
	opt = lf.options;
	/* the dictionary never needs to exceed the output */
	if (opt->dict_size > size)
		opt->dict_size = size < 4096 ? 4096 : (uint32_t)size;
	opt->ext_flags = LZMA_LZMA1EXT_ALLOW_EOPM;
	opt->ext_size_low = (uint32_t)size;
	opt->ext_size_high = (uint32_t)(size >> 32);
	if (x86)
		filters[n++] = (lzma_filter){ .id = LZMA_FILTER_X86, .options = NULL };
	filters[n++] = (lzma_filter){ .id = LZMA_FILTER_LZMA1EXT, .options = opt };
	filters[n] = (lzma_filter){ .id = LZMA_VLI_UNKNOWN, .options = NULL };

	buf = malloc(size ? size : 1);
	if (!buf) {
		free(opt);
		return -ENOMEM;
	}
	if (lzma_raw_decoder(&s, filters) != LZMA_OK) {
		rc = -ENOMEM;
		goto out;
	}
	s.next_in = in + LZMA_HDR;
	s.avail_in = len - LZMA_HDR;
	s.next_out = buf;
	s.avail_out = size;
	for (;;) {
		lzma_ret r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_MEM_ERROR) {
			rc = -ENOMEM;
			goto out;
		}
		if (r != LZMA_OK)
			goto out; /* corrupt / truncated */
		if (!s.avail_out)
			break;
	}
	if (s.avail_out)
		goto out;
	*out = buf;
	*out_len = size;
	buf = NULL;
	rc = 0;
out:
	lzma_end(&s);
	free(buf);
	free(opt);
	return rc;
}

int lb_uefi_lzma_decode(const uint8_t *in, size_t len, size_t max, uint8_t **out,
			size_t *out_len)
{
	return uefi_lzma_decode(in, len, 0, max, out, out_len);
}

int lb_uefi_lzma_encode(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	return uefi_lzma_encode(in, len, 0, out, out_len);
}

int uefi_lzma_encode(const uint8_t *in, size_t len, int x86, uint8_t **out, size_t *out_len)
{
	lzma_options_lzma opt;
	lzma_filter filters[3];
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf;
	size_t cap, n = 0;
	int rc = -ENOMEM, k = 0;

	if (lzma_lzma_preset(&opt, 9))
		return -EINVAL;
	/* a dictionary no bigger than the input (memory: ~11x dict) */
	opt.dict_size = 1u << 16;
	while (opt.dict_size < len && opt.dict_size < (16u << 20))
		opt.dict_size <<= 1;
	opt.ext_flags = 0; /* no end marker: the header carries the size */
	opt.ext_size_low = UINT32_MAX;
	opt.ext_size_high = UINT32_MAX;
	if (x86)
		filters[k++] = (lzma_filter){ .id = LZMA_FILTER_X86, .options = NULL };
	filters[k++] = (lzma_filter){ .id = LZMA_FILTER_LZMA1EXT, .options = &opt };
	filters[k] = (lzma_filter){ .id = LZMA_VLI_UNKNOWN, .options = NULL };

	cap = len + len / 8 + 4096 + LZMA_HDR;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	lzma_filter pf = { .id = LZMA_FILTER_LZMA1, .options = &opt };
	if (lzma_properties_encode(&pf, buf) != LZMA_OK) {
		rc = -EINVAL;
		goto fail;
	}
	put_le32(buf + 1, opt.dict_size);
	put_le64(buf + 5, (uint64_t)len);
	if (lzma_raw_encoder(&s, filters) != LZMA_OK)
		goto fail;
	s.next_in = in;
	s.avail_in = len;
	s.next_out = buf + LZMA_HDR;
	s.avail_out = cap - LZMA_HDR;
	for (;;) {
		lzma_ret r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_OK && !s.avail_out) {
			size_t used = cap - s.avail_out;
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
			s.next_out = buf + used;
			s.avail_out = cap - used;
			continue;
		}
		if (r != LZMA_OK) {
			rc = r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
			goto fail;
		}
	}
	n = cap - s.avail_out;
	lzma_end(&s);
	*out = buf;
	*out_len = n;
	return 0;
fail:
	lzma_end(&s);
	free(buf);
	return rc;
}
