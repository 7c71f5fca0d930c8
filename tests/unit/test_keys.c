/* The console key decoder: keys versus noise (src/console/keys.h). */
#include <string.h>

#include "keys.h"
#include "t.h"

/* Decode bytes (with a flush at each '|' standing for a pause, and at the
 * end) into a compact string: K<c> char, E enter, X escape, A<c> alt,
 * S<n> special, N<n> noise of n bytes. */
static void decode(const char *in, size_t len, char *out, size_t outsz)
{
	struct lb_keydec d;
	struct lb_key k;
	size_t o = 0;

	lb_key_init(&d);
	out[0] = 0;
	for (size_t i = 0; i <= len; i++) {
		int got;

		if (i == len || in[i] == '|')
			got = lb_key_flush(&d, &k);
		else
			got = lb_key_feed(&d, (unsigned char)in[i], &k);
		if (!got)
			continue;
		switch (k.kind) {
		case LB_KEY_CHAR: o += snprintf(out + o, outsz - o, "K%c", k.code >= 0x20 ? k.code : '^'); break;
		case LB_KEY_ENTER: o += snprintf(out + o, outsz - o, "E"); break;
		case LB_KEY_ESC: o += snprintf(out + o, outsz - o, "X"); break;
		case LB_KEY_ALT: o += snprintf(out + o, outsz - o, "A%c", k.code); break;
		case LB_KEY_SPECIAL: o += snprintf(out + o, outsz - o, "S%d", k.code); break;
		case LB_KEY_NOISE: o += snprintf(out + o, outsz - o, "N%zu", k.n); break;
		default: o += snprintf(out + o, outsz - o, "?"); break;
		}
		if (o >= outsz)
			o = outsz - 1;
	}
}

int main(void)
{
	TEST("keys: what a person types") {
		static const struct { const char *in; size_t len; const char *want; } c[] = {
			{ "a", 1, "Ka" },
			{ " 1", 2, "K K1" },
			{ "\x03", 1, "K^" },                    /* ^C */
			{ "\x7f", 1, "K\x7f" },                 /* DEL: a key (backspace) */
			{ "\t", 1, "K^" },
			{ "\r", 1, "E" },
			{ "\n", 1, "E" },                       /* LF alone: Enter */
			{ "\x1b", 1, "X" },                     /* Escape alone */
			{ "\x1b" "x", 2, "Ax" },                /* Alt-x */
			{ "\x1b[A\x1b[B\x1b[C\x1b[D", 12, "S1S2S3S4" },
			{ "\x1bOA\x1bOP", 6, "S1S12" },         /* SS3 arrow, F1 */
			{ "\x1b[5~\x1b[6~\x1b[3~\x1b[2~", 16, "S9S10S8S7" },
			{ "\x1b[1~\x1b[4~\x1b[H\x1b[F", 14, "S5S6S5S6" },
			{ "\x1b[15~\x1b[1;5A\x1b[Z", 14, "S12S1S11" }, /* F5, ctrl-up, back-tab */
		};
		char got[128];

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			decode(c[i].in, c[i].len, got, sizeof(got));
			if (strcmp(got, c[i].want))
				printf("# case %zu: got %s want %s\n", i, got, c[i].want);
			CHECK_STR(got, c[i].want);
		}
	}

	TEST("keys: noise") {
		static const struct { const char *in; size_t len; const char *want; } c[] = {
			{ "\0", 1, "N1" },                      /* NUL: what a BREAK reads as */
			{ "\0\0\0", 3, "N1N1N1" },
			{ "\x11\x13", 2, "N1N1" },              /* XON, XOFF */
			{ "\r\n", 2, "EN1" },                   /* CR LF: one Enter */
			{ "\r|\n", 3, "EE" },                   /* a pause between: two */
			{ "\xff\xfe\x80\xc3\xa9", 5, "N1N1N1N1N1" },
			{ "\x1b[24;80R", 8, "N8" },             /* cursor position report */
			{ "\x1b[?1;2c", 7, "N7" },              /* device attributes */
			{ "\x1b[>0;136;0c", 11, "N11" },        /* secondary DA */
			{ "\x1b[0n", 4, "N4" },                 /* status report */
			{ "\x1b[8;24;80t", 10, "N10" },         /* window size report */
			{ "\x1b[?2004;1$y", 11, "N11" },        /* DECRPM */
			{ "\x1b[I\x1b[O", 6, "N3N3" },          /* focus in/out */
			{ "\x1b]11;rgb:0000/0000/0000\x07", 24, "N24" }, /* OSC, BEL */
			{ "\x1b]10;rgb:ffff/ffff/ffff\x1b\\", 25, "N25" }, /* OSC, ST */
			{ "\x1bP1$r0m\x1b\\", 9, "N9" },      /* DCS answer */
			{ "\x1b_x\x07\x1b^y\x07\x1bXz\x07", 12, "N4N4N4" },
			{ "\x1b\\", 2, "N2" },                  /* stray ST */
			{ "\x1b[24;8|0R", 9, "N6K0KR" },        /* cut by a pause */
			{ "\x1b[\0A", 4, "N3KA" },              /* cut by a control */
			{ "\x1b[<0;3;4M", 9, "N9" },          /* SGR mouse */
			{ "\x1b[99~", 5, "N5" },                /* no such key */
			{ "\x1b[1234~", 7, "N7" },
		};
		char got[128];

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			decode(c[i].in, c[i].len, got, sizeof(got));
			if (strcmp(got, c[i].want))
				printf("# case %zu: got %s want %s\n", i, got, c[i].want);
			CHECK_STR(got, c[i].want);
		}
	}

	TEST("keys: caps") {
		char in[LB_KEY_STR_MAX + 8], got[64];
		size_t n = 0;

		/* a CSI longer than any key: noise at its cap, the rest keys */
		in[n++] = 0x1b;
		in[n++] = '[';
		while (n < LB_KEY_CSI_MAX)
			in[n++] = '1';
		decode(in, n, got, sizeof(got));
		CHECK_STR(got, "N32");
		in[n++] = 'x';
		decode(in, n, got, sizeof(got));
		CHECK_STR(got, "N32Kx");
		/* an endless OSC: noise at its cap */
		n = 0;
		in[n++] = 0x1b;
		in[n++] = ']';
		while (n < LB_KEY_STR_MAX)
			in[n++] = 'a';
		decode(in, n, got, sizeof(got));
		CHECK_STR(got, "N4096");
		/* busy while in a sequence, not after */
		struct lb_keydec d;
		struct lb_key k;
		lb_key_init(&d);
		CHECK(!lb_key_busy(&d));
		CHECK_INT(lb_key_feed(&d, 0x1b, &k), 0);
		CHECK(lb_key_busy(&d));
		CHECK_INT(lb_key_feed(&d, '[', &k), 0);
		CHECK_INT(lb_key_feed(&d, 'A', &k), 1);
		CHECK(lb_key_is_key(&k));
		CHECK(!lb_key_busy(&d));
		CHECK_INT(lb_key_flush(&d, &k), 0);
	}
	return t_done();
}
