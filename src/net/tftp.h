/*
 * TFTP client state machine without I/O (RFC 1350, options RFC 2347,
 * blksize 2348, timeout/tsize 2349, windowsize 7440).
 *
 * The caller sends what lb_tftp_rrq() builds to the server's port 69, then
 * feeds every packet that comes back from the server's transfer ID (the
 * caller checks the source address and port) to lb_tftp_feed(), sends the
 * reply it asks for, appends the data at the offset given, and on a timeout
 * calls lb_tftp_timeout() for what to send again. Nothing here blocks.
 *
 * Rules: an OACK may only lower blksize/windowsize to values we asked for;
 * options the server omits fall back to RFC 1350 (512, window 1, no tsize);
 * a DATA block 1 in answer to an RRQ with options means "no options".
 * Blocks are numbered modulo 65536 (rollover to 0 as tftp-hpa, dnsmasq and
 * atftpd do) and counted in 64 bits. A duplicate of the last in-order
 * block re-ACKs it (the server's retransmission: our ACK was lost); a block
 * ahead of the next expected one (a gap in the window) re-ACKs the last
 * in-order block once, so the server restarts the window from there.
 * The transfer is complete on a block shorter than blksize; its length
 * must equal the tsize the server announced, and never exceed max_size.
 */
#ifndef LB_TFTP_H
#define LB_TFTP_H

#include <stddef.h>
#include <stdint.h>

#define LB_TFTP_RRQ   1
#define LB_TFTP_WRQ   2
#define LB_TFTP_DATA  3
#define LB_TFTP_ACK   4
#define LB_TFTP_ERROR 5
#define LB_TFTP_OACK  6

#define LB_TFTP_BLKSIZE_MIN 8
#define LB_TFTP_BLKSIZE_MAX 65464
#define LB_TFTP_WINDOW_MAX  64      /* tftp-hpa-derived servers break past 64 */
#define LB_TFTP_NAME_MAX    255
#define LB_TFTP_PKT_MAX     (LB_TFTP_BLKSIZE_MAX + 4)
#define LB_TFTP_REPLY_MAX   (4 + 128)

struct lb_tftp_opts {
	unsigned blksize;     /* 0 or 512: not asked */
	unsigned windowsize;  /* 0 or 1: not asked */
	unsigned timeout;     /* seconds, 0: not asked (then 1 s is used) */
	int tsize;            /* ask for tsize (RRQ carries tsize 0) */
	uint64_t max_size;    /* refuse files larger than this (0: 4 GiB) */
	unsigned retries;     /* timeouts in a row before giving up (0: 6) */
};

enum lb_tftp_state {
	LB_TFTP_S_RRQ,        /* RRQ sent, nothing received */
	LB_TFTP_S_DATA,       /* transferring */
	LB_TFTP_S_DONE,
	LB_TFTP_S_FAILED,
};

struct lb_tftp {
	struct lb_tftp_opts req;
	char file[LB_TFTP_NAME_MAX + 1];
	enum lb_tftp_state state;
	/* negotiated */
	unsigned blksize, windowsize, timeout;
	int have_tsize;
	uint64_t tsize;
	/* progress */
	uint64_t received;    /* bytes received in order */
	uint64_t block;       /* last in-order block (absolute count) */
	uint64_t acked;       /* last block we ACKed */
	uint64_t gap_acked;   /* block re-ACKed for a gap (once per value) */
	unsigned in_window;   /* in-order blocks since our last ACK */
	unsigned timeouts;    /* consecutive */
	int errcode;          /* TFTP error code from the server, -1 none */
	char errmsg[128];     /* server's error text or ours (printable) */
};

/* What one received packet asks of the caller. */
struct lb_tftp_ev {
	const uint8_t *data;  /* data to store (points into the packet) */
	size_t datalen;
	uint64_t offset;      /* where it goes in the file */
	uint8_t reply[LB_TFTP_REPLY_MAX]; /* send this to the server if replylen */
	size_t replylen;
};

/* Set up a transfer of file (octet mode). -EINVAL on a bad name/option. */
int lb_tftp_init(struct lb_tftp *t, const char *file, const struct lb_tftp_opts *o);
/* Build the RRQ into buf. */
int lb_tftp_rrq(struct lb_tftp *t, uint8_t *buf, size_t cap, size_t *len);
/*
 * Feed one packet from the server. Returns 0 (go on; ev says what to do,
 * possibly nothing), 1 (complete: send ev->reply, the last ACK, then stop),
 * or a negative errno: -EPROTO malformed/unexpected packet from the server
 * (ev->reply may hold an ERROR to send), -ENOENT/-EACCES/-ENOSPC/-EIO for
 * an ERROR packet from the server (text in t->errmsg), -EFBIG over max_size
 * or tsize, -EOPNOTSUPP a refused option. t->errmsg is always set on error.
 */
int lb_tftp_feed(struct lb_tftp *t, const uint8_t *pkt, size_t len,
		 struct lb_tftp_ev *ev);
/*
 * Nothing came within the timeout: builds what to send again (the RRQ
 * before any answer, else the ACK of the last in-order block) into buf.
 * -ETIMEDOUT after opts.retries timeouts in a row.
 */
int lb_tftp_timeout(struct lb_tftp *t, uint8_t *buf, size_t cap, size_t *len);
/* Build an ERROR packet (code, text) for the caller to send. */
int lb_tftp_error_pkt(unsigned code, const char *msg, uint8_t *buf, size_t cap,
		      size_t *len);

#endif
