/*
 * GRUB script parser: recursive descent over the lexer's tokens into the
 * syntax tree of grub_int.h (commands, if/for/while/until, functions,
 * menuentry/submenu blocks), as strict as GRUB's own parser
 * (grub-script-check).
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
/* syntax tree                                                         */

void g_list_free(struct list *l)
{
	if (!l->ar) {
		for (size_t i = 0; i < l->n; i++)
			g_node_free(l->v[i]);
		free(l->v);
	}
	memset(l, 0, sizeof(*l));
}

/* A node of a parsed script (its lists are in the script's arena) is
 * freed with the script's arena, never on its own. */
void g_node_free(struct node *n)
{
	if (!n || n->body.ar)
		return;
	sv_free(&n->w);
	g_list_free(&n->body);
	g_list_free(&n->cond);
	for (size_t i = 0; i < n->narms; i++) {
		g_list_free(&n->arms[i].cond);
		g_list_free(&n->arms[i].body);
	}
	free(n->arms);
	free(n);
}

int g_list_push(struct list *l, struct node *n)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;
		void *nv;

		if (nc > (1u << 20))
			return -ENOMEM;
		if (l->ar) {
			if (lb_arena_grow(l->ar, l->v, l->cap * sizeof(*l->v),
					  nc * sizeof(*l->v), &nv))
				return -ENOMEM;
		} else if (!(nv = realloc(l->v, nc * sizeof(*l->v)))) {
			return -ENOMEM;
		}
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n++] = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* parser                                                              */

static int perr(struct parser *P, const char *why)
{
	if (!P->err) {
		P->err = P->L.err ? P->L.err : why;
		P->errline = P->L.err ? P->L.errline : P->L.tline;
	}
	return -EINVAL;
}

static const char *const reserved_end[] = {
	"then", "elif", "else", "fi", "do", "done", NULL
};

static int is_end_word(const char *w)
{
	for (int i = 0; reserved_end[i]; i++)
		if (g_streq(w, reserved_end[i]))
			return 1;
	return 0;
}

void g_skip_nl(struct parser *P)
{
	while (g_peek(&P->L) == T_NL)
		g_drop(&P->L);
}

/* After a command: one optional ';', then newlines. */
static void skip_sep(struct parser *P)
{
	if (g_peek(&P->L) == T_SEMI)
		g_drop(&P->L);
	g_skip_nl(P);
}

/* Commands until EOF, `}` or a reserved end word (not consumed). GRUB
 * wants at least one command in every list and no empty command (";"). */
static int parse_list(struct parser *P, struct list *l)
{
	for (;;) {
		struct node *n;
		enum tok t;
		int r;

		g_skip_nl(P);
		t = g_peek(&P->L);
		if (t == T_EOF || t == T_RBR || (t == T_WORD && is_end_word(P->L.w))) {
			if (!l->n)
				return perr(P, t == T_EOF ? "unexpected end of file" :
					    "empty command list");
			return 0;
		}
		if (t == T_ERR)
			return perr(P, "syntax error");
		if (t == T_SEMI)
			return perr(P, "unexpected ;");
		if ((r = g_parse_command(P, &n)))
			return r;
		if (g_list_push(l, n)) {
			g_node_free(n);
			return -ENOMEM;
		}
		skip_sep(P);
	}
}

static int expect_word(struct parser *P, const char *kw)
{
	g_skip_nl(P);
	if (!g_peek_is(&P->L, kw)) {
		return perr(P, !strcmp(kw, "fi") ? "missing fi" :
			    !strcmp(kw, "then") ? "missing then" :
			    !strcmp(kw, "do") ? "missing do" :
			    !strcmp(kw, "done") ? "missing done" : "syntax error");
	}
	g_drop(&P->L);
	return 0;
}

/* "{ list }"; newlines before "{" only where GRUB takes them (function). */
static int parse_block(struct parser *P, struct list *body, int nl_ok)
{
	int r;

	if (nl_ok)
		g_skip_nl(P);
	if (g_peek(&P->L) != T_LBR)
		return perr(P, "missing {");
	g_drop(&P->L);
	if ((r = parse_list(P, body)))
		return r;
	if (g_peek(&P->L) != T_RBR)
		return perr(P, g_peek(&P->L) == T_EOF ? "missing }" : "syntax error");
	g_drop(&P->L);
	/* a block ends the command */
	switch (g_peek(&P->L)) {
	case T_NL: case T_SEMI: case T_EOF: case T_RBR:
		return 0;
	default:
		return perr(P, "unexpected text after }");
	}
}

/* Words of a simple command up to a separator (not consumed). */
static int parse_words(struct parser *P, struct sv *w, int stop_at_lbr)
{
	for (;;) {
		enum tok t = g_peek(&P->L);

		if (t == T_WORD) {
			sv_push(w, g_take(&P->L));
			if (w->err)
				return w->err == -ENOMEM ? -ENOMEM : perr(P, "too many words");
			continue;
		}
		if (t == T_ERR)
			return perr(P, "syntax error");
		if (t == T_LBR && !stop_at_lbr)
			return perr(P, "unexpected {");
		return 0;
	}
}

/* A zeroed node, in the script's arena when the lexer has one (then its
 * words and lists are too). */
static int new_node(struct parser *P, struct node **out)
{
	struct lb_arena *ar = P->L.ar;
	void *p;

	if (!ar)
		return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
	if (lb_arena_alloc(ar, sizeof(**out), &p))
		return -ENOMEM;
	memset(p, 0, sizeof(**out));
	*out = p;
	(*out)->w.ar = (*out)->body.ar = (*out)->cond.ar = ar;
	return 0;
}

/* Room for one more arm of an if. */
static int grow_arms(struct parser *P, struct node *n)
{
	size_t sz = sizeof(*n->arms);
	void *a;

	if (!P->L.ar) {
		if (!(a = realloc(n->arms, (n->narms + 1) * sz)))
			return -ENOMEM;
	} else if (lb_arena_grow(P->L.ar, n->arms, n->narms * sz,
				 (n->narms + 1) * sz, &a)) {
		return -ENOMEM;
	}
	n->arms = a;
	return 0;
}

int g_parse_command(struct parser *P, struct node **out)
{
	struct node *n;
	const char *w;
	int r = 0;

	*out = NULL;
	if (++P->depth > G_MAX_NEST) {
		P->depth--;
		return perr(P, "nesting too deep");
	}
	if ((r = new_node(P, &n))) {
		P->depth--;
		return r;
	}
	n->file = P->file;
	n->line = P->L.tline;
	g_peek(&P->L);
	w = P->L.t == T_WORD ? P->L.w : "";
	if (P->L.t != T_WORD) {
		r = perr(P, P->L.t == T_LBR ? "unexpected {" : "syntax error");
	} else if (g_streq(w, "if")) {
		n->k = N_IF;
		g_drop(&P->L);
		for (;;) {
			struct arm *a;

			if ((r = grow_arms(P, n)))
				break;
			a = &n->arms[n->narms++];
			memset(a, 0, sizeof(*a));
			a->cond.ar = a->body.ar = P->L.ar;
			if ((r = parse_list(P, &a->cond)) || (r = expect_word(P, "then")) ||
			    (r = parse_list(P, &a->body)))
				break;
			if (g_peek_is(&P->L, "elif")) {
				g_drop(&P->L);
				continue;
			}
			if (g_peek_is(&P->L, "else")) {
				g_drop(&P->L);
				n->has_else = 1;
				if ((r = parse_list(P, &n->body)))
					break;
			}
			r = expect_word(P, "fi");
			break;
		}
	} else if (g_streq(w, "for")) {
		n->k = N_FOR;
		g_drop(&P->L);
		if (g_peek(&P->L) != T_WORD) {
			r = perr(P, "for without a name");
		} else {
			sv_push(&n->w, g_take(&P->L));
			if (!g_peek_is(&P->L, "in")) {
				r = perr(P, "for without in");
			} else {
				g_drop(&P->L);
				if (!(r = parse_words(P, &n->w, 0)) &&
				    (skip_sep(P), 1) &&
				    !(r = expect_word(P, "do")) &&
				    !(r = parse_list(P, &n->body)))
					r = expect_word(P, "done");
			}
		}
		if (!r && n->w.err)
			r = -ENOMEM;
	} else if (g_streq(w, "while") || g_streq(w, "until")) {
		n->k = w[0] == 'w' ? N_WHILE : N_UNTIL;
		g_drop(&P->L);
		if (!(r = parse_list(P, &n->cond)) && !(r = expect_word(P, "do")) &&
		    !(r = parse_list(P, &n->body)))
			r = expect_word(P, "done");
	} else if (g_streq(w, "function")) {
		n->k = N_FUNC;
		g_drop(&P->L);
		if (g_peek(&P->L) != T_WORD) {
			r = perr(P, "function without a name");
		} else {
			sv_push(&n->w, g_take(&P->L));
			r = n->w.err ? -ENOMEM : parse_block(P, &n->body, 1);
		}
	} else if (g_streq(w, "menuentry") || g_streq(w, "submenu") ||
		   g_streq(w, "hiddenentry")) {
		n->k = N_MENU;
		n->mk = w[0] == 'm' ? M_ENTRY : w[0] == 's' ? M_SUBMENU : M_HIDDEN;
		sv_push(&n->w, g_take(&P->L));
		if (!(r = n->w.err ? -ENOMEM : parse_words(P, &n->w, 1)))
			r = parse_block(P, &n->body, 0);
	} else if (is_end_word(w)) {
		r = perr(P, "unexpected reserved word");
	} else {
		/* any command may take a { block } as its last argument
		 * (GRUB_SCRIPT_ARG_TYPE_BLOCK); only menu commands use it */
		n->k = N_CMD;
		if (!(r = parse_words(P, &n->w, 1)) && g_peek(&P->L) == T_LBR)
			r = parse_block(P, &n->body, 0);
	}
	P->depth--;
	if (r) {
		g_node_free(n);
		return r;
	}
	*out = n;
	return 0;
}
