/*
 * Target only (static musl): Debian builds libsodium.a and libbearssl.a with
 * _FORTIFY_SOURCE, so their objects call glibc's checked variants of a few
 * string functions, which musl does not have. Each checks the destination
 * size it is given and traps on overflow, like glibc's (which aborts).
 */
#include <stddef.h>
#include <string.h>

void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen);
void *__memmove_chk(void *d, const void *s, size_t n, size_t dlen);
void *__memset_chk(void *d, int c, size_t n, size_t dlen);
void __explicit_bzero_chk(void *d, size_t n, size_t dlen);

void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen)
		__builtin_trap();
	return memcpy(d, s, n);
}

void *__memmove_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen)
		__builtin_trap();
	return memmove(d, s, n);
}

void *__memset_chk(void *d, int c, size_t n, size_t dlen)
{
	if (n > dlen)
		__builtin_trap();
	return memset(d, c, n);
}

void __explicit_bzero_chk(void *d, size_t n, size_t dlen)
{
	if (n > dlen)
		__builtin_trap();
	explicit_bzero(d, n);
}

/*
 * libsodium's misuse handler lives in core.o next to sodium_init(), which
 * references every primitive's CPU-dispatch setup (Argon2, ChaCha20,
 * Salsa20, Poly1305, X25519, randombytes: ~100 KB in a binary that
 * --gc-sections cannot trim, Debian's objects having one .text each).
 * lboot never calls sodium_init() (the reference BLAKE2b and Ed25519 code
 * needs no runtime dispatch), so defining the handler here keeps core.o
 * out. libsodium calls it only on API misuse (e.g. a bad output length).
 */
void sodium_misuse(void) __attribute__((noreturn));
void sodium_misuse(void)
{
	__builtin_trap();
}

/*
 * And randombytes_buf: utils.o (sodium_memzero, sodium_memcmp, needed by
 * Ed25519) also holds sodium_malloc, whose guard-page canary is the only
 * reference to randombytes, which pulls ChaCha20 (~12 KB). lboot never
 * calls sodium_malloc nor anything else that needs randomness from
 * libsodium, so reaching this is a bug: trap.
 */
void randombytes_buf(void *buf, size_t size);
void randombytes_buf(void *buf, size_t size)
{
	(void)buf;
	(void)size;
	__builtin_trap();
}
