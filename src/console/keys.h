/*
 * Console input decoding: which bytes on a serial line are keys a person
 * pressed and which are noise.
 *
 * A countdown that any byte stops can be held forever by a serial-over-LAN
 * session connecting, a BREAK, or a terminal answering a query. The decoder
 * sorts the byte stream into events:
 *
 *   keys   printable ASCII 0x20-0x7e; the C0 controls a person types
 *          (^C, backspace, tab, ^U, ^A ... except those below); DEL 0x7f;
 *          Enter (CR, or LF not right after a CR); Escape alone (no byte
 *          within the caller's short gap); ESC + one byte (Alt-key); key
 *          escape sequences: CSI with no private prefix ending in
 *          A B C D (arrows) H F (Home End) ~ (Insert Delete PgUp PgDn
 *          Home End F5-F12) Z (back-tab) P Q S E, and SS3 (ESC O x).
 *   noise  NUL (a BREAK reads as NUL), XON/XOFF (flow control), LF right
 *          after CR (CR LF is one Enter), every byte >= 0x80 (line garbage,
 *          wrong speed; a person types ASCII), terminal answers: CSI with
 *          a private prefix (? > < =) or ending in anything but the key
 *          finals above (cursor position report ESC [ r ; c R, device
 *          attributes ... c, status ... n, window reports ... t, mode
 *          reports ... $ y, focus ESC [ I / ESC [ O), string answers
 *          (OSC ESC ], DCS ESC P, SOS ESC X, PM ESC ^, APC ESC _ up to BEL
 *          or ESC \), a stray ST, and sequences cut off or longer than
 *          their caps (CSI 32 bytes, strings 4096).
 *
 * No I/O and no clock: the caller feeds bytes and calls lb_key_flush()
 * when no byte came for a short gap (100 ms) while lb_key_busy() (a lone
 * Escape becomes a key then, a cut sequence noise), and before a byte that
 * comes after such a gap (a CR long ago does not swallow a new LF).
 */
#ifndef LB_KEYS_H
#define LB_KEYS_H

#include <stddef.h>

enum lb_key_kind {
	LB_KEY_NOISE = 1,  /* n bytes that are not a key */
	LB_KEY_CHAR,       /* code: the byte (0x01-0x7f, not NUL/XON/XOFF/CR/LF/ESC) */
	LB_KEY_ENTER,      /* CR, or LF not after CR */
	LB_KEY_ESC,        /* Escape alone */
	LB_KEY_ALT,        /* code: the byte after ESC */
	LB_KEY_SPECIAL,    /* code: enum lb_keysym */
};

enum lb_keysym {
	LB_KS_UP = 1, LB_KS_DOWN, LB_KS_RIGHT, LB_KS_LEFT, LB_KS_HOME, LB_KS_END,
	LB_KS_INSERT, LB_KS_DELETE, LB_KS_PGUP, LB_KS_PGDN, LB_KS_BACKTAB,
	LB_KS_FKEY, LB_KS_OTHER, /* F1-F12; keypad and other key sequences */
};

struct lb_key {
	int kind;          /* enum lb_key_kind */
	int code;
	size_t n;          /* bytes this event covers */
};

#define LB_KEY_CSI_MAX 32
#define LB_KEY_STR_MAX 4096

struct lb_keydec {
	int state;         /* internal */
	int after_cr;      /* the last byte was a CR */
	size_t n;          /* bytes in the current sequence */
	unsigned char buf[LB_KEY_CSI_MAX];
};

void lb_key_init(struct lb_keydec *d);
/* Feed one byte: 1 and *k filled when it completes an event, else 0. */
int lb_key_feed(struct lb_keydec *d, unsigned char c, struct lb_key *k);
/* In the middle of a sequence (an Escape may still become one). */
int lb_key_busy(const struct lb_keydec *d);
/* No byte came for the gap: 1 and *k (a lone Escape: LB_KEY_ESC; a cut
 * sequence: LB_KEY_NOISE) when a sequence was pending, else 0. Either way
 * the decoder is back at its start (also forgets a preceding CR). */
int lb_key_flush(struct lb_keydec *d, struct lb_key *k);
/* A key (not noise): what stops a countdown. */
static inline int lb_key_is_key(const struct lb_key *k)
{
	return k->kind != LB_KEY_NOISE;
}

#endif
