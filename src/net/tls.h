/*
 * HTTPS for lb_fetch(): a BearSSL TLS 1.2 client behind netio's
 * lb_tls_open_fn, and the trust anchors it checks servers against.
 *
 * The engine (BearSSL's br_ssl_client_context and br_x509_minimal) does all
 * the cryptography: ECDHE key exchange (P-256, P-384, P-521, X25519) with
 * RSA or ECDSA server keys, AES-GCM and ChaCha20-Poly1305 records, the
 * certificate chain against the trust anchors, validity dates, and the
 * server name (SNI sent, dNSName/CN matched, one leading wildcard). For an
 * IP-literal host (https://192.0.2.1/, https://[2001:db8::1]/) no SNI is
 * sent (RFC 6066) and the end-entity certificate must carry that address as
 * a subjectAltName iPAddress: BearSSL 0.6 matches dNSName/CN only, so that
 * check is ours (lb_tls_cert_ip_match), run once the chain verified.
 *
 * Time: certificate validity is checked at max(the real clock, time_floor).
 * The caller passes a floor it knows is in the past, such as the build date
 * (lb_tls_build_date(__DATE__), which GCC takes from SOURCE_DATE_EPOCH when
 * set): a firmware whose RTC lost its battery (1970, 2000) then does not
 * refuse every certificate as "not yet valid", and a certificate that
 * expired before the build is refused whatever the clock says. A clock
 * that is wrong but later than the floor is believed.
 *
 * Timeouts: the handshake must finish within timeout_ms in all (a server
 * that stalls or trickles fails in bounded time); afterwards every read and
 * write waits at most timeout_ms for the socket. The transport's read
 * returns 0 only after the server's close_notify; a TCP close without it
 * is -EPIPE (a truncated body is never taken for the end of the file).
 *
 * Errors are one line naming the reason in words ("certificate not
 * trusted", "certificate name mismatch", "certificate expired or not yet
 * valid", "handshake failed: ..."). Library rules: no logging, negative
 * errno.
 */
#ifndef LB_TLS_H
#define LB_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "netio.h"

#define LB_TLS_MAX_ANCHORS  256          /* a full public CA bundle is ~150 */
#define LB_TLS_FILE_MAX     (1u << 20)   /* one CA file (PEM bundle or DER) */
#define LB_TLS_CERT_MAX     16384        /* one certificate, DER */
#define LB_TLS_DIR_MAX      256          /* CA files taken from a directory */

/* Default trust anchors on the target: every *.pem, *.crt, *.cer, *.der in
 * the directory, and the file mkinitramfs --ca writes. */
#define LB_TLS_DEFAULT_DIR  "/etc/lboot/tls"
#define LB_TLS_DEFAULT_FILE "/etc/lboot/ca.pem"

struct lb_tls_anchors;

struct lb_tls_anchors *lb_tls_anchors_new(void);
void lb_tls_anchors_free(struct lb_tls_anchors *a);
size_t lb_tls_anchors_count(const struct lb_tls_anchors *a);

/*
 * Add the certificates in buf: PEM (every "CERTIFICATE" or
 * "X509 CERTIFICATE" object; text around them and other objects are
 * skipped) or DER (one certificate, or several one after the other). A CA
 * certificate (basicConstraints cA) becomes a CA anchor; any other
 * certificate a "direct trust" anchor: a server presenting exactly that
 * certificate's key (a pinned self-signed server) is accepted.
 * All or nothing: the number added (>= 1), or -EINVAL (no certificate, a
 * certificate BearSSL cannot decode, a truncated PEM object, a certificate
 * larger than LB_TLS_CERT_MAX), -E2BIG (more than LB_TLS_MAX_ANCHORS in
 * all), -ENOMEM; the anchors are unchanged on failure.
 */
int lb_tls_anchors_add_mem(struct lb_tls_anchors *a, const uint8_t *buf, size_t len);

/*
 * Add a CA file, or every CA file (*.pem, *.crt, *.cer, *.der, regular
 * files, in name order) of a directory. Number of anchors added (0 for a
 * directory without CA files), or negative errno with one line in err
 * naming the file (all or nothing for the whole path).
 */
int lb_tls_anchors_add_path(struct lb_tls_anchors *a, const char *path,
			    char *err, size_t errsz);

/* What lb_tls_open needs (arg): kept by the caller while connections last. */
struct lb_tls_config {
	const struct lb_tls_anchors *anchors;
	int64_t time_floor;     /* seconds since 1970 (UTC); see above */
};

/*
 * lb_tls_open_fn (netio.h): a TLS 1.2 session over the connected socket fd
 * to host (a DNS name, or an IPv4/IPv6 literal without brackets), the
 * handshake done and the server checked. arg is a struct lb_tls_config.
 * Without anchors it refuses (-ENOKEY): never an unchecked connection.
 * On failure fd is closed and err has one line. Errors: -ENOKEY (no
 * anchors, certificate not trusted), -EKEYEXPIRED, -EKEYREJECTED (name
 * mismatch, bad certificate), -ETIMEDOUT, -EPIPE, -ECONNREFUSED (the server
 * sent a fatal alert), -EPROTO (other handshake failures), -ENOMEM.
 */
int lb_tls_open(void *arg, int fd, const char *host, unsigned timeout_ms,
		struct lb_net_transport *t, char *err, size_t errsz);

/* max(time(NULL), floor) */
int64_t lb_tls_clock(int64_t floor);

/* __DATE__ ("Mmm dd yyyy") -> seconds since 1970 at 00:00 UTC that day;
 * 0 when it does not parse. */
int64_t lb_tls_build_date(const char *date);

/*
 * Does the DER certificate carry ip (4 or 16 bytes) as a subjectAltName
 * iPAddress? 1 yes, 0 no (also when it has no subjectAltName), -EINVAL
 * when the certificate does not parse.
 */
int lb_tls_cert_ip_match(const uint8_t *der, size_t len, const uint8_t *ip, size_t iplen);

/* The words for a BearSSL error code (engine or X.509), e.g.
 * "certificate not trusted"; never NULL. */
const char *lb_tls_reason(int br_err);

#endif
