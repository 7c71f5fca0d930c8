/*
 * The Authenticode (PE image) digest, as UEFI's LoadImage measures it into
 * PCR 4 and as a signed image's PKCS#7 SpcIndirectDataContent carries it:
 * the headers without the CheckSum field and the certificate-table
 * directory entry, the sections' raw data in file order, then the data
 * after the last section up to the certificate table (excluded). The same
 * recipe as the kernel's verify_pefile.c, pesign and sbsigntool.
 */
#ifndef LB_AUTHENTICODE_H
#define LB_AUTHENTICODE_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/*
 * Digest the whole PE file in buf (len bytes, e.g. a mapped blob) with the
 * algorithms in mask (SHA-1/256/384/512; BLAKE2b is not an Authenticode
 * algorithm but allowed). -EINVAL when it is not a PE image or its
 * SizeOfHeaders, sections or certificate table do not fit the file.
 */
int lb_authenticode(const uint8_t *buf, size_t len, unsigned mask,
		    struct lb_digests *out);

#endif
