/*
 * EFI variables through efivarfs, as systemd and libefivar reach them:
 * /sys/firmware/efi/efivars (mounted here when the firmware kernel booted
 * by EFI and nobody mounted it), files NAME-GUID (efivar.h). efivarfs marks
 * most variables immutable (FS_IMMUTABLE_FL) so that `rm` does not brick a
 * machine: a write or delete clears the flag first and puts it back after
 * a write, as systemd's efi_set_variable does.
 */
#ifndef LB_EFIVARS_H
#define LB_EFIVARS_H

#include <stddef.h>
#include <stdint.h>

#define LB_EFIVARS_DIR "/sys/firmware/efi/efivars"

/* Tests: use dir (a plain directory) instead; NULL: the default. */
void lb_efivars_set_dir(const char *dir);

/* 0 when variables can be read and written: the directory set by a test,
 * or efivarfs at LB_EFIVARS_DIR (mounted now if needed). -ENOENT when the
 * kernel was not booted by EFI, else the mount's error. */
int lb_efivars_open(void);

/* The value (without the attributes word) into val (valsz bytes): *vlen,
 * *attr (attr may be NULL). -ENOENT when unset, -EFBIG above valsz. */
int lb_efivar_get(const char *name, const char *guid, uint32_t *attr,
		  uint8_t *val, size_t valsz, size_t *vlen);
/* A UCS-2 string variable as UTF-8 (efivar.h); -ENOENT when unset. */
int lb_efivar_get_str(const char *name, const char *guid, char *out, size_t outsz);

/* Set (create or replace) with one write of attr + value. */
int lb_efivar_set(const char *name, const char *guid, uint32_t attr,
		  const void *val, size_t vlen);
/* A UTF-8 string stored as UCS-2 with its NUL. */
int lb_efivar_set_str(const char *name, const char *guid, uint32_t attr, const char *s);
/* Delete; 0 also when it was not there. */
int lb_efivar_del(const char *name, const char *guid);

#endif
