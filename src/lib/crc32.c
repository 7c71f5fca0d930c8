/* CRC-32 (IEEE 802.3, reflected 0xEDB88320): GPT headers and entry arrays,
 * UEFI CRC32 GUID-defined sections. */
#include "crc32.h"

static uint32_t crc_table[256];

uint32_t lb_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
			crc_table[i] = c;
		}
	}
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}
