/*
 * GRUB script lexer: growable strings and string vectors, and the tokens
 * of grub-core/script/yylex.l (words kept raw, with their quotes and
 * escapes, for expansion to interpret; newlines, ';', '{', '}').
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "grub_int.h"

/* ------------------------------------------------------------------ */
/* growable string and string vector                                   */

void sb_putn(struct sb *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (n > G_MAX_WORD || b->n + n > G_MAX_WORD) {
		b->err = -E2BIG;
		return;
	}
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 64;
		void *ns;

		while (nc < b->n + n + 1)
			nc *= 2;
		if (b->ar) {
			int r = lb_arena_grow(b->ar, b->s, b->cap, nc, &ns);

			if (r) {
				b->err = r;
				return;
			}
		} else if (!(ns = realloc(b->s, nc))) {
			b->err = -ENOMEM;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void sb_putc(struct sb *b, char c)
{
	sb_putn(b, &c, 1);
}

void sb_puts(struct sb *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* Take the string out of b (never NULL unless error); b is empty again,
 * on the same arena. */
char *sb_take(struct sb *b)
{
	struct lb_arena *ar = b->ar;
	char *s = b->s;
	void *e;

	if (b->err) {
		if (!ar)
			free(s);
		s = NULL;
	} else if (!s) {
		if (!ar)
			s = strdup("");
		else if (!lb_arena_alloc(ar, 1, &e))
			*(s = e) = 0;
	}
	memset(b, 0, sizeof(*b));
	b->ar = ar;
	return s;
}

/* Push an owned string (freed on failure unless in the arena). */
void sv_push(struct sv *a, char *s)
{
	size_t l;

	if (!s) {
		if (!a->err)
			a->err = -ENOMEM;
		return;
	}
	l = strlen(s);
	if (a->err || a->n >= G_MAX_ARGS || l > G_MAX_CMD_BYTES - a->bytes) {
		if (!a->err)
			a->err = -E2BIG;
		if (!a->ar)
			free(s);
		return;
	}
	a->bytes += l + 1;
	if (a->n + 1 >= a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 8;
		void *nv;

		if (a->ar) {
			int r = lb_arena_grow(a->ar, a->v, a->cap * sizeof(char *),
					      nc * sizeof(char *), &nv);

			if (r) {
				a->err = r;
				return;
			}
		} else if (!(nv = realloc(a->v, nc * sizeof(char *)))) {
			a->err = -ENOMEM;
			free(s);
			return;
		}
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void sv_pushdup(struct sv *a, const char *s)
{
	size_t l;
	void *c;
	int r;

	if (!a->ar) {
		sv_push(a, strdup(s));
		return;
	}
	if (a->err)
		return;
	l = strlen(s);
	if ((r = lb_arena_alloc(a->ar, l + 1, &c))) {
		a->err = r;
		return;
	}
	memcpy(c, s, l + 1);
	sv_push(a, c);
}

void sv_shift(struct sv *a, size_t k)
{
	if (k > a->n)
		k = a->n;
	if (!k)
		return;
	for (size_t i = 0; i < k && !a->ar; i++)
		free(a->v[i]);
	memmove(a->v, a->v + k, (a->n - k + 1) * sizeof(char *));
	a->n -= k;
}

void sv_free(struct sv *a)
{
	if (!a->ar) {
		for (size_t i = 0; i < a->n; i++)
			free(a->v[i]);
		free(a->v);
	}
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------------ */
/* lexer                                                               */

const unsigned char g_ctype[256] = {
	[' '] = G_C_BLANK | G_C_STOP, ['\t'] = G_C_BLANK | G_C_STOP,
	['\r'] = G_C_BLANK | G_C_STOP | G_C_RAW, ['\f'] = G_C_BLANK | G_C_STOP,
	['\v'] = G_C_BLANK | G_C_STOP,
	[0] = G_C_STOP | G_C_DQ | G_C_RAW, ['\n'] = G_C_STOP | G_C_NL | G_C_DQ, [';'] = G_C_STOP,
	['{'] = G_C_STOP, ['}'] = G_C_STOP, ['|'] = G_C_STOP, ['&'] = G_C_STOP,
	['<'] = G_C_STOP, ['>'] = G_C_STOP, ['\\'] = G_C_STOP | G_C_EXP | G_C_DQ,
	['\''] = G_C_STOP | G_C_EXP, ['"'] = G_C_STOP | G_C_EXP | G_C_DQ,
	['$'] = G_C_STOP | G_C_EXP | G_C_DQ,
};

LB_NO_COV size_t g_span(const char *s, size_t n, unsigned mask)
{
	size_t i = 0;

	while (i < n && !(g_ctype[(unsigned char)s[i]] & mask))
		i++;
	return i;
}

LB_NO_COV size_t g_skip(const char *s, size_t n, unsigned mask)
{
	size_t i = 0;

	while (i < n && (g_ctype[(unsigned char)s[i]] & mask))
		i++;
	return i;
}

/* Copy the variable reference at s[L->i] == '$' into b, checked as GRUB's
 * lexer does: $name, $digits, $? $# $@ $*, ${name} (same names). Returns
 * 0, or -1 with L->err set. */
static int lex_dollar(struct lexer *L, struct sb *b)
{
	const char *s = L->s;
	size_t i = L->i + 1, j;

	if (i < L->n && s[i] == '{') {
		j = i + 1;
		if (j < L->n && (isalpha((unsigned char)s[j]) || s[j] == '_')) {
			while (j < L->n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
				j++;
		} else if (j < L->n && isdigit((unsigned char)s[j])) {
			while (j < L->n && isdigit((unsigned char)s[j]))
				j++;
		} else if (j < L->n && strchr("?#@*", s[j]) && s[j]) {
			j++;
		}
		if (j == i + 1 || j >= L->n || s[j] != '}') {
			L->err = "bad ${...} variable reference";
			return -1;
		}
		j++;
	} else if (i < L->n && (isalpha((unsigned char)s[i]) || s[i] == '_')) {
		for (j = i; j < L->n && (isalnum((unsigned char)s[j]) || s[j] == '_'); j++)
			;
	} else if (i < L->n && isdigit((unsigned char)s[i])) {
		for (j = i; j < L->n && isdigit((unsigned char)s[j]); j++)
			;
	} else if (i < L->n && s[i] && strchr("?#@*", s[i])) {
		j = i + 1;
	} else {
		L->err = "$ without a variable name";
		return -1;
	}
	sb_putn(b, s + L->i, j - L->i);
	L->i = j;
	return 0;
}

/* A backslash with a character after it: a line continuation is dropped,
 * any other escape is kept (both chars) for expansion to interpret. */
static void lex_escape(struct lexer *L, struct sb *b)
{
	if (L->s[L->i + 1] == '\n')
		L->line++;
	else
		sb_putn(b, L->s + L->i, 2);
	L->i += 2;
}

static enum tok lex_scan(struct lexer *L, char **word, int *line)
{
	const char *s = L->s;
	struct sb b = { .ar = L->ar };

	*word = NULL;
	for (;;) {
		L->i += g_skip(s + L->i, L->n - L->i, G_C_BLANK);
		if (L->i + 1 < L->n && s[L->i] == '\\' && s[L->i + 1] == '\n') {
			L->i += 2;
			L->line++;
			continue;
		}
		if (L->i < L->n && s[L->i] == '#') {
			L->i += g_span(s + L->i, L->n - L->i, G_C_NL);
			continue;
		}
		break;
	}
	*line = L->line;
	L->start = L->i;
	if (L->i >= L->n)
		return T_EOF;
	switch (s[L->i]) {
	case 0: /* NUL ends the config, as GRUB's line reader would */
		L->i = L->n;
		return T_EOF;
	case '\n':
		L->i++;
		L->line++;
		return T_NL;
	case ';':
		L->i++;
		return T_SEMI;
	case '{':
		L->i++;
		return T_LBR;
	case '}':
		L->i++;
		return T_RBR;
	}
	while (L->i < L->n) {
		char c = s[L->i];

		if (c == 0 || c == '\n' || c == ';' || c == '{' || c == '}' ||
		    g_is_blank(c))
			break;
		if (c == '|' || c == '&' || c == '<' || c == '>') {
			L->err = "unexpected |, &, < or >";
			goto err;
		}
		if (c == '\\') {
			if (L->i + 1 >= L->n) {
				L->err = "backslash at the end of the file";
				goto err;
			}
			lex_escape(L, &b);
			continue;
		}
		if (c == '\'') {
			size_t j = L->i + 1;

			while (j < L->n && s[j] != '\'' && s[j])
				j++;
			if (j >= L->n || !s[j]) {
				L->err = "unterminated single quote";
				goto err;
			}
			for (size_t k = L->i; k < j; k++)
				if (s[k] == '\n')
					L->line++;
			sb_putn(&b, s + L->i, j + 1 - L->i);
			L->i = j + 1;
			continue;
		}
		if (c == '"') {
			sb_putc(&b, '"');
			L->i++;
			while (L->i < L->n && s[L->i] != '"' && s[L->i]) {
				size_t j = L->i;

				/* a run of characters copied as they are, at once */
				j += g_span(s + j, L->n - j, G_C_DQ);
				if (j > L->i) {
					sb_putn(&b, s + L->i, j - L->i);
					L->i = j;
					continue;
				}
				if (s[L->i] == '\\' && L->i + 1 < L->n) {
					lex_escape(L, &b);
					continue;
				}
				if (s[L->i] == '$') {
					if (lex_dollar(L, &b))
						goto err;
					continue;
				}
				if (s[L->i] == '\n')
					L->line++;
				sb_putc(&b, s[L->i]);
				L->i++;
			}
			if (L->i >= L->n || !s[L->i]) {
				L->err = "unterminated double quote";
				goto err;
			}
			sb_putc(&b, '"');
			L->i++;
			continue;
		}
		if (c == '$') {
			if (lex_dollar(L, &b))
				goto err;
			continue;
		}
		/* a run of ordinary characters at once */
		{
			size_t j = L->i + 1;

			j += g_span(s + j, L->n - j, G_C_STOP);
			sb_putn(&b, s + L->i, j - L->i);
			L->i = j;
		}
	}
	if (b.ar && b.s && !b.err) {
		/* the word is the arena's latest allocation: give back the
		 * room it grew into (in place) */
		void *p;

		if (!lb_arena_grow(b.ar, b.s, b.cap, b.n + 1, &p)) {
			b.s = p;
			b.cap = b.n + 1;
		}
	}
	if (!(*word = sb_take(&b))) {
		L->err = "word too long";
		goto err;
	}
	return T_WORD;
err:
	if (!b.ar)
		free(b.s);
	L->errline = *line;
	/* resynchronise after the bad line */
	while (L->i < L->n && s[L->i] != '\n')
		L->i++;
	return T_ERR;
}

enum tok g_peek(struct lexer *L)
{
	if (!L->have) {
		L->t = lex_scan(L, &L->w, &L->tline);
		L->tstart = L->start;
		L->have = 1;
	}
	return L->t;
}

/* Consume the lookahead; the word (if any) is handed to the caller. */
char *g_take(struct lexer *L)
{
	char *w;

	g_peek(L);
	w = L->w;
	L->w = NULL;
	L->have = 0;
	return w;
}

void g_drop(struct lexer *L)
{
	char *w = g_take(L);

	if (!L->ar)
		free(w);
}

int g_peek_is(struct lexer *L, const char *kw)
{
	return g_peek(L) == T_WORD && g_streq(L->w, kw);
}
