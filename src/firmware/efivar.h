/*
 * EFI variables as Linux's efivarfs shows them: a file NAME-GUID whose
 * bytes are a 4-byte little-endian attributes word followed by the value.
 * The Boot Loader Interface (systemd.io/BOOT_LOADER_INTERFACE) stores its
 * strings as UCS-2 (UTF-16LE without surrogates in practice), NUL
 * terminated. Pure: no I/O, negative errno, never logs; every size bounded.
 */
#ifndef LB_EFIVAR_H
#define LB_EFIVAR_H

#include <stddef.h>
#include <stdint.h>

#define LB_EFIVAR_NON_VOLATILE 0x1u
#define LB_EFIVAR_BOOTSERVICE  0x2u
#define LB_EFIVAR_RUNTIME      0x4u
#define LB_EFIVAR_NV_BS_RT     0x7u
#define LB_EFIVAR_BS_RT        0x6u

/* The biggest value lboot reads or writes (strings are short). */
#define LB_EFIVAR_MAX 4096u

/* systemd's Boot Loader Interface vendor GUID (LoaderEntryOneShot ...) */
#define LB_EFIVAR_GUID_LOADER "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
/* lboot's own variables (LbootEntryLastBooted) */
#define LB_EFIVAR_GUID_LBOOT  "1091470e-9b9e-4c00-ba9b-e09ff089d37f"

/* Split an efivarfs file's bytes: *attr, and the value at *val (vlen
 * bytes, pointing into buf). -EINVAL when shorter than 4 bytes, -EFBIG
 * when the value exceeds LB_EFIVAR_MAX. */
int lb_efivar_parse(const uint8_t *buf, size_t len, uint32_t *attr,
		    const uint8_t **val, size_t *vlen);

/* The efivarfs bytes for attr + value into out (outsz bytes): *outlen =
 * 4 + vlen. -ENOSPC, -EFBIG (value above LB_EFIVAR_MAX). */
int lb_efivar_build(uint32_t attr, const void *val, size_t vlen,
		    uint8_t *out, size_t outsz, size_t *outlen);

/* A UCS-2/UTF-16LE value (vlen bytes, even; up to its first NUL, or all of
 * it without one) as a NUL-terminated UTF-8 string in out. Surrogate pairs
 * are decoded; a lone surrogate or an odd length: -EILSEQ; -ENOSPC when
 * out is too small. */
int lb_ucs2_to_utf8(const uint8_t *val, size_t vlen, char *out, size_t outsz);

/* A UTF-8 string as UCS-2LE with its terminating NUL (what systemd-boot
 * writes) into out: *outlen bytes. Invalid UTF-8 (overlong, surrogates,
 * truncated) or a code point above U+FFFF: -EILSEQ; -ENOSPC. */
int lb_utf8_to_ucs2(const char *s, uint8_t *out, size_t outsz, size_t *outlen);

/* "NAME-GUID" (the efivarfs file name) into out; -EINVAL for a name that
 * is empty or has '/', or a guid that is not 36 characters of the
 * 8-4-4-4-12 hex form; -ENOSPC. */
int lb_efivar_filename(char *out, size_t outsz, const char *name, const char *guid);

#endif
