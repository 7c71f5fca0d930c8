/* Console input decoding: keys versus noise (see keys.h). */
#include <string.h>

#include "keys.h"

enum { S_GROUND, S_ESC, S_CSI, S_SS3, S_STR, S_STR_ESC };

void lb_key_init(struct lb_keydec *d)
{
	memset(d, 0, sizeof(*d));
}

int lb_key_busy(const struct lb_keydec *d)
{
	return d->state != S_GROUND;
}

static int emit(struct lb_keydec *d, struct lb_key *k, int kind, int code)
{
	k->kind = kind;
	k->code = code;
	k->n = d->n;
	d->state = S_GROUND;
	d->n = 0;
	return 1;
}

/* The CSI in buf[2..n-1] (buf[0..1] = ESC '[', the final byte last):
 * a key sequence, or a terminal answer / something else (noise). */
static int csi_key(const struct lb_keydec *d)
{
	const unsigned char *p = d->buf + 2, fin = d->buf[d->n - 1];
	size_t np = d->n - 3; /* parameter and intermediate bytes */
	unsigned v = 0;
	int digits = 0;

	if (np && (p[0] == '?' || p[0] == '>' || p[0] == '<' || p[0] == '='))
		return 0; /* private parameters: answers and mouse reports */
	for (size_t i = 0; i < np; i++)
		if (p[i] < 0x30 || p[i] > 0x3f)
			return 0; /* intermediates ($ y, SP q ...): answers */
	switch (fin) {
	case 'A': return LB_KS_UP;
	case 'B': return LB_KS_DOWN;
	case 'C': return LB_KS_RIGHT;
	case 'D': return LB_KS_LEFT;
	case 'H': return LB_KS_HOME;
	case 'F': return LB_KS_END;
	case 'Z': return LB_KS_BACKTAB;
	case 'P': case 'Q': case 'S': return LB_KS_FKEY;
	case 'E': return LB_KS_OTHER; /* keypad 5 */
	case '~':
		break;
	default:
		return 0; /* R (cursor position), c, n, t, I, O, ... */
	}
	/* ESC [ N ~ or ESC [ N ; mod ~ */
	for (size_t i = 0; i < np && p[i] != ';'; i++) {
		if (p[i] < '0' || p[i] > '9' || ++digits > 3)
			return 0;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (!digits)
		return 0;
	switch (v) {
	case 1: case 7: return LB_KS_HOME;
	case 4: case 8: return LB_KS_END;
	case 2: return LB_KS_INSERT;
	case 3: return LB_KS_DELETE;
	case 5: return LB_KS_PGUP;
	case 6: return LB_KS_PGDN;
	default:
		return v >= 11 && v <= 34 ? LB_KS_FKEY : 0;
	}
}

int lb_key_feed(struct lb_keydec *d, unsigned char c, struct lb_key *k)
{
	int cr = d->after_cr, ks;

	d->after_cr = 0;
	switch (d->state) {
	case S_GROUND:
		d->n = 1;
		if (c == 0x1b) {
			d->buf[0] = c;
			d->state = S_ESC;
			return 0;
		}
		if (c == '\r') {
			d->after_cr = 1;
			return emit(d, k, LB_KEY_ENTER, 0);
		}
		if (c == '\n')
			return emit(d, k, cr ? LB_KEY_NOISE : LB_KEY_ENTER, 0);
		if (c == 0 || c == 0x11 || c == 0x13 || c >= 0x80)
			return emit(d, k, LB_KEY_NOISE, 0);
		return emit(d, k, LB_KEY_CHAR, c);
	case S_ESC:
		d->buf[d->n++] = c;
		switch (c) {
		case '[':
			d->state = S_CSI;
			return 0;
		case 'O':
			d->state = S_SS3;
			return 0;
		case ']': case 'P': case 'X': case '^': case '_':
			d->state = S_STR;
			return 0;
		case '\\':
			return emit(d, k, LB_KEY_NOISE, 0); /* a stray ST */
		default:
			if (c >= 0x80 || c == 0)
				return emit(d, k, LB_KEY_NOISE, 0);
			return emit(d, k, LB_KEY_ALT, c);
		}
	case S_SS3:
		d->buf[d->n++] = c;
		if (c >= 0x40 && c <= 0x7e) {
			switch (c) {
			case 'A': ks = LB_KS_UP; break;
			case 'B': ks = LB_KS_DOWN; break;
			case 'C': ks = LB_KS_RIGHT; break;
			case 'D': ks = LB_KS_LEFT; break;
			case 'H': ks = LB_KS_HOME; break;
			case 'F': ks = LB_KS_END; break;
			case 'P': case 'Q': case 'R': case 'S': ks = LB_KS_FKEY; break;
			default: ks = LB_KS_OTHER; break;
			}
			return emit(d, k, LB_KEY_SPECIAL, ks);
		}
		return emit(d, k, LB_KEY_NOISE, 0);
	case S_CSI:
		if (c < 0x20 || c > 0x7e) { /* cut by a control byte: it goes too */
			d->n++;
			return emit(d, k, LB_KEY_NOISE, 0);
		}
		d->buf[d->n++] = c;
		if (c >= 0x40) {
			ks = csi_key(d);
			return ks ? emit(d, k, LB_KEY_SPECIAL, ks) : emit(d, k, LB_KEY_NOISE, 0);
		}
		if (d->n >= sizeof(d->buf))
			return emit(d, k, LB_KEY_NOISE, 0); /* too long for a key */
		return 0;
	case S_STR:
	case S_STR_ESC:
		d->n++;
		if (c == 0x07 || (d->state == S_STR_ESC && c == '\\'))
			return emit(d, k, LB_KEY_NOISE, 0);
		d->state = c == 0x1b ? S_STR_ESC : S_STR;
		if (d->n >= LB_KEY_STR_MAX)
			return emit(d, k, LB_KEY_NOISE, 0);
		return 0;
	}
	d->state = S_GROUND; /* not reached */
	d->n = 0;
	return 0;
}

int lb_key_flush(struct lb_keydec *d, struct lb_key *k)
{
	int st = d->state;

	d->after_cr = 0;
	if (st == S_GROUND)
		return 0;
	return emit(d, k, st == S_ESC ? LB_KEY_ESC : LB_KEY_NOISE, 0);
}
