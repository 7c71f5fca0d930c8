/*
 * GRUB 2 configuration interpreter.
 *
 * A lexer and recursive descent parser for the GRUB script language
 * (grub-core/script: words, quotes, $variables, if/for/while/until,
 * functions, menuentry/submenu blocks) and an evaluator without side
 * effects: file access goes through lb_fs, `search`/`set root`/(dev)/paths
 * resolve against the filesystem set, and the menu GRUB would show is turned
 * into lb_entry records.
 *
 * Semantics follow GRUB's normal mode:
 *  - the whole config runs first; menuentry/submenu only record the item;
 *  - then each menu entry body is evaluated as GRUB does when the entry is
 *    booted: in a copy of the global context as it stands after the config
 *    ran (so a `set root` after the entries affects them, as in GRUB), with
 *    the entry's arguments as $1..; submenu bodies run in a new context that
 *    holds only the exported variables (grub_env_context_open), and their
 *    entries in a copy of that context;
 *  - `default` and `timeout` are read after the config ran; "a>b" paths walk
 *    submenus by index, --id or title; an unresolvable default is entry 0.
 *  - `configfile` is approximated by evaluating the file in place (GRUB would
 *    open a new context and show the new menu instead of the current one; the
 *    configs that use it, ESP stubs and chain-loaded menus, define no entries
 *    of their own before it); config_file/config_directory follow it.
 *  - syntax as strict as GRUB's parser (checked against grub-script-check);
 *    a command with a syntax error is skipped with a message and parsing
 *    resumes on the line after the one it started on (GRUB would lose the
 *    rest of the file after an unclosed block).
 *  - an unknown GRUB device name (hd0,gpt2: the BIOS/firmware disk order is
 *    unknown here) falls back to the config's filesystem, with a message.
 *  - blscfg as Fedora's: see cmd_blscfg. The kernel command line is the
 *    linux arguments as written (GRUB's loader adds BOOT_IMAGE=; not here).
 *
 * Library code: negative errno, never logs; everything skipped becomes a
 * "file:line: reason" message.
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

#include "bls.h"
#include "grub.h"

#define LB_STR_(x) #x
#define LB_STR(x) LB_STR_(x)

/* caps */
#define G_MAX_SRC_DEPTH 8        /* source/configfile nesting */
#define G_MAX_NEST      64       /* parser nesting, call depth */
#define G_MAX_STEPS     50000    /* commands executed per phase (config, menu) */
#define G_MAX_LOOP      1000     /* iterations of one loop */
#define G_MAX_VARS      1024
#define G_MAX_VAL       (64u << 10)
#define G_MAX_WORD      (64u << 10)
#define G_MAX_ARGS      4096
#define G_MAX_FUNCS     256
#define G_MAX_ITEMS     1024     /* menu items, all menus */
#define G_MAX_SCRIPTS   64       /* parsed files and eval strings kept alive */
#define G_MAX_ENV_FILE  (64u << 10)
#define G_MAX_ENV_BYTES (256u << 10) /* all names and values of one context */
#define G_MAX_CMD_BYTES (256u << 10) /* the expanded words of one command */
#define G_MAX_MSGS      256
#define G_MAX_WORK      (32u << 20)  /* bytes expanded and copied per parse */

/* ------------------------------------------------------------------ */
/* growable string and string vector                                   */

struct sb {
	char *s;
	size_t n, cap;
	int err;
};

static void sb_putn(struct sb *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (n > G_MAX_WORD || b->n + n > G_MAX_WORD) {
		b->err = -E2BIG;
		return;
	}
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 64;
		char *ns;

		while (nc < b->n + n + 1)
			nc *= 2;
		if (!(ns = realloc(b->s, nc))) {
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

static void sb_putc(struct sb *b, char c)
{
	sb_putn(b, &c, 1);
}

static void sb_puts(struct sb *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* Take the string out of b (never NULL unless error). */
static char *sb_take(struct sb *b)
{
	char *s;

	if (b->err) {
		free(b->s);
		memset(b, 0, sizeof(*b));
		return NULL;
	}
	s = b->s ? b->s : strdup("");
	memset(b, 0, sizeof(*b));
	return s;
}

struct sv {
	char **v;
	size_t n, cap;
	size_t bytes; /* sum of the string lengths */
	int err;
};

/* Push an owned string (freed on failure). */
static void sv_push(struct sv *a, char *s)
{
	if (!s) {
		if (!a->err)
			a->err = -ENOMEM;
		return;
	}
	if (a->err || a->n >= G_MAX_ARGS || strlen(s) > G_MAX_CMD_BYTES - a->bytes) {
		if (!a->err)
			a->err = -E2BIG;
		free(s);
		return;
	}
	a->bytes += strlen(s) + 1;
	if (a->n + 1 >= a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 8;
		char **nv = realloc(a->v, nc * sizeof(*nv));

		if (!nv) {
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

static void sv_free(struct sv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------------ */
/* syntax tree                                                         */

enum nkind { N_CMD, N_IF, N_FOR, N_WHILE, N_UNTIL, N_FUNC, N_MENU };
enum mkind { M_ENTRY, M_SUBMENU, M_HIDDEN };

struct node;

struct list {
	struct node **v;
	size_t n, cap;
};

struct arm {
	struct list cond, body;
};

struct node {
	enum nkind k;
	int line;
	const char *file;
	struct sv w;          /* CMD/MENU words, FOR values, FUNC/FOR name at w.v[0] */
	struct list body;     /* FOR/WHILE/UNTIL/FUNC/MENU body, IF else */
	struct list cond;     /* WHILE/UNTIL condition */
	struct arm *arms;     /* IF: if + elifs */
	size_t narms;
	int has_else;
	enum mkind mk;
};

static void node_free(struct node *n);

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		node_free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	sv_free(&n->w);
	list_free(&n->body);
	list_free(&n->cond);
	for (size_t i = 0; i < n->narms; i++) {
		list_free(&n->arms[i].cond);
		list_free(&n->arms[i].body);
	}
	free(n->arms);
	free(n);
}

static int list_push(struct list *l, struct node *n)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;
		struct node **nv;

		if (nc > (1u << 20) || !(nv = realloc(l->v, nc * sizeof(*nv))))
			return -ENOMEM;
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n++] = n;
	return 0;
}

/* one parsed file (or eval string / generated BLS body), kept alive while
 * functions and menu items point into it */
struct script {
	char *name;
	struct list top;
	struct script *next;
};

/* ------------------------------------------------------------------ */
/* lexer                                                               */

enum tok { T_EOF, T_NL, T_SEMI, T_LBR, T_RBR, T_WORD, T_ERR };

struct lexer {
	const char *s;
	size_t n, i;
	int line;
	/* one token of lookahead */
	int have;
	enum tok t;
	char *w;
	int tline;
	size_t tstart, start;
	const char *err;
	int errline;
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
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
	struct sb b = { 0 };

	*word = NULL;
	for (;;) {
		while (L->i < L->n && is_blank(s[L->i]))
			L->i++;
		if (L->i + 1 < L->n && s[L->i] == '\\' && s[L->i + 1] == '\n') {
			L->i += 2;
			L->line++;
			continue;
		}
		if (L->i < L->n && s[L->i] == '#') {
			while (L->i < L->n && s[L->i] != '\n')
				L->i++;
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
		    is_blank(c))
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
		sb_putc(&b, c);
		L->i++;
	}
	if (!(*word = sb_take(&b))) {
		L->err = "word too long";
		goto err;
	}
	return T_WORD;
err:
	free(b.s);
	L->errline = *line;
	/* resynchronise after the bad line */
	while (L->i < L->n && s[L->i] != '\n')
		L->i++;
	return T_ERR;
}

static enum tok peek(struct lexer *L)
{
	if (!L->have) {
		L->t = lex_scan(L, &L->w, &L->tline);
		L->tstart = L->start;
		L->have = 1;
	}
	return L->t;
}

/* Consume the lookahead; the word (if any) is handed to the caller. */
static char *take(struct lexer *L)
{
	char *w;

	peek(L);
	w = L->w;
	L->w = NULL;
	L->have = 0;
	return w;
}

static void drop(struct lexer *L)
{
	free(take(L));
}

static int peek_is(struct lexer *L, const char *kw)
{
	return peek(L) == T_WORD && !strcmp(L->w, kw);
}

/* ------------------------------------------------------------------ */
/* parser                                                              */

struct parser {
	struct lexer L;
	const char *file;
	int depth;
	const char *err;
	int errline;
};

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
		if (!strcmp(w, reserved_end[i]))
			return 1;
	return 0;
}

static int parse_command(struct parser *P, struct node **out);

static void skip_nl(struct parser *P)
{
	while (peek(&P->L) == T_NL)
		drop(&P->L);
}

/* After a command: one optional ';', then newlines. */
static void skip_sep(struct parser *P)
{
	if (peek(&P->L) == T_SEMI)
		drop(&P->L);
	skip_nl(P);
}

/* Commands until EOF, `}` or a reserved end word (not consumed). GRUB
 * wants at least one command in every list and no empty command (";"). */
static int parse_list(struct parser *P, struct list *l)
{
	for (;;) {
		struct node *n;
		enum tok t;
		int r;

		skip_nl(P);
		t = peek(&P->L);
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
		if ((r = parse_command(P, &n)))
			return r;
		if (list_push(l, n)) {
			node_free(n);
			return -ENOMEM;
		}
		skip_sep(P);
	}
}

static int expect_word(struct parser *P, const char *kw)
{
	skip_nl(P);
	if (!peek_is(&P->L, kw)) {
		return perr(P, !strcmp(kw, "fi") ? "missing fi" :
			    !strcmp(kw, "then") ? "missing then" :
			    !strcmp(kw, "do") ? "missing do" :
			    !strcmp(kw, "done") ? "missing done" : "syntax error");
	}
	drop(&P->L);
	return 0;
}

/* "{ list }"; newlines before "{" only where GRUB takes them (function). */
static int parse_block(struct parser *P, struct list *body, int nl_ok)
{
	int r;

	if (nl_ok)
		skip_nl(P);
	if (peek(&P->L) != T_LBR)
		return perr(P, "missing {");
	drop(&P->L);
	if ((r = parse_list(P, body)))
		return r;
	if (peek(&P->L) != T_RBR)
		return perr(P, peek(&P->L) == T_EOF ? "missing }" : "syntax error");
	drop(&P->L);
	/* a block ends the command */
	switch (peek(&P->L)) {
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
		enum tok t = peek(&P->L);

		if (t == T_WORD) {
			sv_push(w, take(&P->L));
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

static int parse_command(struct parser *P, struct node **out)
{
	struct node *n;
	const char *w;
	int r = 0;

	*out = NULL;
	if (++P->depth > G_MAX_NEST) {
		P->depth--;
		return perr(P, "nesting too deep");
	}
	if (!(n = calloc(1, sizeof(*n)))) {
		P->depth--;
		return -ENOMEM;
	}
	n->file = P->file;
	n->line = P->L.tline;
	peek(&P->L);
	w = P->L.t == T_WORD ? P->L.w : "";
	if (P->L.t != T_WORD) {
		r = perr(P, P->L.t == T_LBR ? "unexpected {" : "syntax error");
	} else if (!strcmp(w, "if")) {
		n->k = N_IF;
		drop(&P->L);
		for (;;) {
			struct arm *a = realloc(n->arms, (n->narms + 1) * sizeof(*a));

			if (!a) {
				r = -ENOMEM;
				break;
			}
			n->arms = a;
			a = &n->arms[n->narms++];
			memset(a, 0, sizeof(*a));
			if ((r = parse_list(P, &a->cond)) || (r = expect_word(P, "then")) ||
			    (r = parse_list(P, &a->body)))
				break;
			if (peek_is(&P->L, "elif")) {
				drop(&P->L);
				continue;
			}
			if (peek_is(&P->L, "else")) {
				drop(&P->L);
				n->has_else = 1;
				if ((r = parse_list(P, &n->body)))
					break;
			}
			r = expect_word(P, "fi");
			break;
		}
	} else if (!strcmp(w, "for")) {
		n->k = N_FOR;
		drop(&P->L);
		if (peek(&P->L) != T_WORD) {
			r = perr(P, "for without a name");
		} else {
			sv_push(&n->w, take(&P->L));
			if (!peek_is(&P->L, "in")) {
				r = perr(P, "for without in");
			} else {
				drop(&P->L);
				if (!(r = parse_words(P, &n->w, 0)) &&
				    (skip_sep(P), 1) &&
				    !(r = expect_word(P, "do")) &&
				    !(r = parse_list(P, &n->body)))
					r = expect_word(P, "done");
			}
		}
		if (!r && n->w.err)
			r = -ENOMEM;
	} else if (!strcmp(w, "while") || !strcmp(w, "until")) {
		n->k = w[0] == 'w' ? N_WHILE : N_UNTIL;
		drop(&P->L);
		if (!(r = parse_list(P, &n->cond)) && !(r = expect_word(P, "do")) &&
		    !(r = parse_list(P, &n->body)))
			r = expect_word(P, "done");
	} else if (!strcmp(w, "function")) {
		n->k = N_FUNC;
		drop(&P->L);
		if (peek(&P->L) != T_WORD) {
			r = perr(P, "function without a name");
		} else {
			sv_push(&n->w, take(&P->L));
			r = n->w.err ? -ENOMEM : parse_block(P, &n->body, 1);
		}
	} else if (!strcmp(w, "menuentry") || !strcmp(w, "submenu") ||
		   !strcmp(w, "hiddenentry")) {
		n->k = N_MENU;
		n->mk = w[0] == 'm' ? M_ENTRY : w[0] == 's' ? M_SUBMENU : M_HIDDEN;
		sv_push(&n->w, take(&P->L));
		if (!(r = n->w.err ? -ENOMEM : parse_words(P, &n->w, 1)))
			r = parse_block(P, &n->body, 0);
	} else if (is_end_word(w)) {
		r = perr(P, "unexpected reserved word");
	} else {
		/* any command may take a { block } as its last argument
		 * (GRUB_SCRIPT_ARG_TYPE_BLOCK); only menu commands use it */
		n->k = N_CMD;
		if (!(r = parse_words(P, &n->w, 1)) && peek(&P->L) == T_LBR)
			r = parse_block(P, &n->body, 0);
	}
	P->depth--;
	if (r) {
		node_free(n);
		return r;
	}
	*out = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* interpreter state                                                   */

struct var {
	char *name, *val;
	int exp;
};

struct env {
	struct var *v;
	size_t n, cap;
	size_t bytes; /* names and values */
};

struct func {
	char *name;
	struct node *def;
};

struct menu;

struct mitem {
	enum mkind kind;
	char *title, *id;
	struct sv args;       /* positional parameters of the body: title, extra args */
	struct node *def;     /* N_MENU node (body) */
	const char *file;
	int line;
	char *source;         /* "file:line" when not the node's (BLS entries) */
	struct menu *sub;
	long flat;            /* index of the entry in the result, -1 none */
};

struct menu {
	struct mitem *v;
	size_t n, cap;
};

/* what an entry body loaded */
struct ectx {
	char *kernel, *kfs, *cmdline, *dtb;
	char *initrd[LB_MAX_INITRDS];
	size_t n_initrd;
	const struct lb_fs *kfsp; /* where the kernel is, NULL: unknown */
	char *kdev_unknown;       /* the GRUB device that was not found */
	const char *other; /* a non-Linux loader seen (chainloader ...) */
	const char *bad;   /* why the entry cannot boot as GRUB would */
	int initrd_before_linux;
};

enum flow { F_NONE, F_BREAK, F_CONTINUE, F_RETURN };

struct interp {
	const struct lb_fsset *all;
	const struct lb_fs *cfgfs;
	struct lb_entries *out;
	struct env *env;
	struct func funcs[G_MAX_FUNCS];
	size_t nfuncs;
	struct script *scripts;
	size_t nscripts;
	struct menu top;
	struct menu *cur;     /* menu receiving menuentry commands, NULL: none */
	size_t nitems;
	struct ectx *ectx;    /* entry body being evaluated */
	struct sv *pos;       /* positional parameters */
	long steps;
	size_t work;          /* see work() */
	int depth, src_depth, loop_depth;
	int status;
	enum flow flow;
	long flow_n;
	int fatal;            /* stop everything: budget, ENOMEM */
	int oom;
	const char *file;     /* current location for messages */
	int line;
	int warned_budget, warned_work;
	int ran_blscfg;
	size_t nmsgs;
};

static void msg(struct interp *ip, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void msg(struct interp *ip, const char *file, int line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (ip->nmsgs >= G_MAX_MSGS) {
		if (ip->nmsgs++ == G_MAX_MSGS &&
		    lb_entries_msg(ip->out, "%s:%d: too many messages, the rest are not shown",
				   file ? file : "?", line) == -ENOMEM)
			ip->oom = 1;
		return;
	}
	ip->nmsgs++;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (lb_entries_msg(ip->out, "%s:%d: %s", file ? file : "?", line, buf) == -ENOMEM)
		ip->oom = 1;
}

static void env_free(struct env *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].name);
		free(e->v[i].val);
	}
	free(e->v);
	free(e);
}

static struct var *env_find(struct env *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name))
			return &e->v[i];
	return NULL;
}

static const char *getvar(struct interp *ip, const char *name)
{
	struct var *v = env_find(ip->env, name);

	return v ? v->val : NULL;
}

static int env_set(struct env *e, const char *name, const char *val, int *oom)
{
	struct var *v = env_find(e, name);
	char *c;

	size_t vl = strlen(val), old = v ? strlen(v->val) : 0;
	size_t add = vl + (v ? 0 : strlen(name) + 2);

	if (vl > G_MAX_VAL || e->bytes - old + add > G_MAX_ENV_BYTES)
		return -E2BIG;
	if (!(c = strdup(val))) {
		*oom = 1;
		return -ENOMEM;
	}
	if (v) {
		free(v->val);
		v->val = c;
		e->bytes = e->bytes - old + vl;
		return 0;
	}
	if (e->n >= G_MAX_VARS) {
		free(c);
		return -E2BIG;
	}
	if (e->n == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 32;
		struct var *nv = realloc(e->v, nc * sizeof(*nv));

		if (!nv) {
			free(c);
			*oom = 1;
			return -ENOMEM;
		}
		e->v = nv;
		e->cap = nc;
	}
	v = &e->v[e->n];
	if (!(v->name = strdup(name))) {
		free(c);
		*oom = 1;
		return -ENOMEM;
	}
	v->val = c;
	v->exp = 0;
	e->n++;
	e->bytes += add;
	return 0;
}

static int setvar(struct interp *ip, const char *name, const char *val)
{
	return env_set(ip->env, name, val, &ip->oom);
}

static void unsetvar(struct interp *ip, const char *name)
{
	struct var *v = env_find(ip->env, name);

	if (!v)
		return;
	ip->env->bytes -= strlen(v->name) + 2 + strlen(v->val);
	free(v->name);
	free(v->val);
	*v = ip->env->v[--ip->env->n];
}

/* A copy of e: all variables, or only the exported ones. */
static struct env *env_clone(struct env *e, int exported_only, int *oom)
{
	struct env *c = calloc(1, sizeof(*c));

	if (!c) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < e->n; i++) {
		if (exported_only && !e->v[i].exp)
			continue;
		if (env_set(c, e->v[i].name, e->v[i].val, oom)) {
			env_free(c);
			return NULL;
		}
		env_find(c, e->v[i].name)->exp = e->v[i].exp;
	}
	return c;
}

static int valid_name(const char *s)
{
	if (!*s || (!isalpha((unsigned char)*s) && *s != '_'))
		return 0;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* expansion                                                           */

/* Parse a variable reference at w[0] == '$'. Returns its length (0: not a
 * reference, a literal '$'), the name in nb. */
static size_t var_ref(const char *w, char *nb, size_t nbsz)
{
	size_t i = 1, k = 0;

	if (w[1] == '{') {
		const char *e = strchr(w + 2, '}');
		size_t len;

		if (!e)
			return 0;
		len = (size_t)(e - (w + 2));
		if (!len || len >= nbsz)
			return 0;
		memcpy(nb, w + 2, len);
		nb[len] = 0;
		return len + 3;
	}
	if (isalpha((unsigned char)w[1]) || w[1] == '_') {
		while (isalnum((unsigned char)w[i]) || w[i] == '_') {
			if (k + 1 < nbsz)
				nb[k++] = w[i];
			i++;
		}
	} else if (isdigit((unsigned char)w[1])) {
		while (isdigit((unsigned char)w[i])) {
			if (k + 1 < nbsz)
				nb[k++] = w[i];
			i++;
		}
	} else if (w[1] == '?' || w[1] == '#' || w[1] == '@' || w[1] == '*') {
		nb[k++] = w[1];
		i = 2;
	} else {
		return 0;
	}
	nb[k] = 0;
	return i;
}

/* Value of a variable (special names included) appended to b. */
static void var_value(struct interp *ip, const char *name, struct sb *b)
{
	char num[24];

	if (!strcmp(name, "?")) {
		snprintf(num, sizeof(num), "%d", ip->status);
		sb_puts(b, num);
	} else if (!strcmp(name, "#")) {
		snprintf(num, sizeof(num), "%zu", ip->pos ? ip->pos->n : 0);
		sb_puts(b, num);
	} else if (!strcmp(name, "@") || !strcmp(name, "*")) {
		for (size_t i = 0; ip->pos && i < ip->pos->n; i++) {
			if (i)
				sb_putc(b, ' ');
			sb_puts(b, ip->pos->v[i]);
		}
	} else if (isdigit((unsigned char)name[0])) {
		char *end;
		unsigned long k = strtoul(name, &end, 10);

		if (!*end && k >= 1 && ip->pos && k <= ip->pos->n)
			sb_puts(b, ip->pos->v[k - 1]);
	} else {
		const char *v = getvar(ip, name);

		if (v)
			sb_puts(b, v);
	}
}

/* "\\xHH" with two hex digits at s */
static int is_hex_esc(const char *s)
{
	return s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
	       isxdigit((unsigned char)s[3]);
}

/* Expand one raw word into fields (unquoted expansions are split on
 * blanks, as GRUB does). */
static void expand_word(struct interp *ip, const char *w, struct sv *out)
{
	struct sb cur = { 0 };
	int have = 0;
	size_t i = 0, n = strlen(w);
	char name[128];

	while (i < n) {
		char c = w[i];

		if (c == '\\') {
			/* GRUB (as RHEL/Fedora build it) keeps \xHH as written for
			 * the kernel to decode (LABEL=CentOS\x207); any other
			 * escaped character stands for itself */
			if (is_hex_esc(w + i)) {
				sb_putn(&cur, w + i, 4);
				have = 1;
				i += 4;
				continue;
			}
			if (i + 1 < n) {
				sb_putc(&cur, w[i + 1]);
				have = 1;
			}
			i += 2;
			continue;
		}
		if (c == '\'') {
			size_t j = i + 1;

			while (j < n && w[j] != '\'')
				j++;
			sb_putn(&cur, w + i + 1, j - i - 1);
			have = 1;
			i = j < n ? j + 1 : j;
			continue;
		}
		if (c == '"') {
			have = 1;
			i++;
			while (i < n && w[i] != '"') {
				if (w[i] == '\\' && i + 1 < n && strchr("\\\"$", w[i + 1])) {
					sb_putc(&cur, w[i + 1]);
					i += 2;
					continue;
				}
				if (w[i] == '$') {
					size_t used = var_ref(w + i, name, sizeof(name));

					if (used) {
						var_value(ip, name, &cur);
						i += used;
						continue;
					}
				}
				sb_putc(&cur, w[i]);
				i++;
			}
			if (i < n)
				i++;
			continue;
		}
		if (c == '$') {
			size_t used = var_ref(w + i, name, sizeof(name));

			if (used) {
				struct sb v = { 0 };

				var_value(ip, name, &v);
				if (v.err && !cur.err)
					cur.err = v.err;
				for (size_t k = 0; k < v.n; k++) {
					if (is_blank(v.s[k]) || v.s[k] == '\n') {
						if (have || cur.n) {
							sv_push(out, sb_take(&cur));
							have = 0;
						}
					} else {
						sb_putc(&cur, v.s[k]);
						have = 1;
					}
				}
				free(v.s);
				i += used;
				continue;
			}
		}
		sb_putc(&cur, c);
		have = 1;
		i++;
	}
	if (cur.err) {
		if (!out->err)
			out->err = cur.err;
		free(cur.s);
		return;
	}
	if (have)
		sv_push(out, sb_take(&cur));
	else
		free(cur.s);
}

static int work(struct interp *ip, size_t bytes);

static int expand_words(struct interp *ip, char *const *w, size_t n, struct sv *out)
{
	for (size_t i = 0; i < n && !out->err; i++)
		expand_word(ip, w[i], out);
	if (out->err == -ENOMEM)
		ip->oom = 1;
	/* a failed expansion cost up to the cap as well */
	if (work(ip, out->err ? G_MAX_CMD_BYTES : out->bytes) && !out->err)
		out->err = -E2BIG;
	return out->err;
}

/* ------------------------------------------------------------------ */
/* devices and paths                                                   */

/* Compare GRUB device names, "hd0,gpt2" == "hd0,2" == "hd0,msdos2". */
static int grub_dev_eq(const char *a, const char *b)
{
	for (;;) {
		if (*a == ',' && *b == ',') {
			a++;
			b++;
			if (!strncmp(a, "gpt", 3))
				a += 3;
			else if (!strncmp(a, "msdos", 5))
				a += 5;
			if (!strncmp(b, "gpt", 3))
				b += 3;
			else if (!strncmp(b, "msdos", 5))
				b += 5;
			continue;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

static int fs_matches(const struct lb_fs *f, const char *dev)
{
	return (f->grub && grub_dev_eq(f->grub, dev)) ||
	       (f->uuid && !strcasecmp(f->uuid, dev)) ||
	       (f->label && !strcmp(f->label, dev)) ||
	       (f->name && !strcmp(f->name, dev));
}

/* Filesystems in search order: the set, then the config's own if it is
 * not part of it. */
static size_t n_cands(struct interp *ip)
{
	size_t n = ip->all ? ip->all->n : 0;
	int in = 0;

	for (size_t i = 0; i < n; i++)
		if (&ip->all->v[i] == ip->cfgfs)
			in = 1;
	return n + (ip->cfgfs && !in ? 1 : 0);
}

static const struct lb_fs *cand(struct interp *ip, size_t i)
{
	size_t n = ip->all ? ip->all->n : 0;

	return i < n ? &ip->all->v[i] : ip->cfgfs;
}

/* Look up a device name ("hd0,gpt2", a uuid, label, name); NULL if none.
 * Parentheses are stripped. */
static const struct lb_fs *find_dev(struct interp *ip, const char *dev)
{
	char buf[512];
	size_t n = strlen(dev), nc = n_cands(ip);

	if (n && dev[0] == '(' && dev[n - 1] == ')') {
		dev++;
		n -= 2;
	}
	if (!n || n >= sizeof(buf))
		return NULL;
	memcpy(buf, dev, n);
	buf[n] = 0;
	/* GRUB names first: they are what configs use most */
	for (size_t i = 0; i < nc; i++)
		if (cand(ip, i)->grub && grub_dev_eq(cand(ip, i)->grub, buf))
			return cand(ip, i);
	for (size_t i = 0; i < nc; i++)
		if (fs_matches(cand(ip, i), buf))
			return cand(ip, i);
	return NULL;
}

/* The value that names fs in $root after `search --set`. */
static const char *dev_value(const struct lb_fs *f)
{
	return f->grub ? f->grub : lb_fs_ident(f);
}

struct gpath {
	const struct lb_fs *fs; /* NULL when the device is unknown */
	char dev[256];          /* the device as written (or $root) */
	char path[4096];
	int dev_unknown;
};

/* Split "(dev)/path" or "/path" (on $root) and find the filesystem. An
 * unknown device name falls back to the config's filesystem, as the
 * numbering of GRUB devices is unknown here (dev_unknown says so). */
static int resolve_path(struct interp *ip, const char *s, struct gpath *g)
{
	const char *p = s, *root;
	size_t dl;

	memset(g, 0, sizeof(*g));
	if (*s == '(') {
		const char *e = strchr(s, ')');

		if (!e)
			return -EINVAL;
		dl = (size_t)(e - s - 1);
		if (dl >= sizeof(g->dev))
			return -ENAMETOOLONG;
		memcpy(g->dev, s + 1, dl);
		g->dev[dl] = 0;
		p = e + 1;
	} else {
		root = getvar(ip, "root");
		dl = root ? strlen(root) : 0;
		if (dl >= 2 && root[0] == '(' && root[dl - 1] == ')') {
			root++; /* set root=(hd0,1) */
			dl -= 2;
		}
		if (dl < sizeof(g->dev)) {
			memcpy(g->dev, root ? root : "", dl);
			g->dev[dl] = 0;
		}
	}
	if (strlen(p) + 2 > sizeof(g->path))
		return -ENAMETOOLONG;
	/* "/" + p with repeated slashes collapsed, as GRUB's filesystems see it */
	dl = 0;
	g->path[dl++] = '/';
	for (; *p; p++)
		if (*p != '/' || g->path[dl - 1] != '/')
			g->path[dl++] = *p;
	g->path[dl] = 0;
	if (g->dev[0])
		g->fs = find_dev(ip, g->dev);
	if (!g->fs) {
		g->dev_unknown = g->dev[0] != 0;
		g->fs = ip->cfgfs;
	}
	return 0;
}

static int path_stat(struct interp *ip, const char *s, struct stat *st)
{
	struct gpath g;

	if (resolve_path(ip, s, &g) || !g.fs)
		return -ENOENT;
	return lb_fs_stat(g.fs, g.path, st);
}

/* ------------------------------------------------------------------ */
/* evaluation                                                          */

static int exec_list(struct interp *ip, struct list *l);
static int run_script_buf(struct interp *ip, const char *name, const char *buf,
			  size_t len, struct script **keep);

static int budget(struct interp *ip)
{
	if (ip->fatal)
		return 0;
	if (ip->oom) {
		ip->fatal = 1;
		return 0;
	}
	if (++ip->steps > G_MAX_STEPS) {
		if (!ip->warned_budget) {
			ip->warned_budget = 1;
			msg(ip, ip->file, ip->line, "evaluation stopped after %d commands",
			    G_MAX_STEPS);
		}
		ip->fatal = 1;
		return 0;
	}
	return 1;
}

/* Account bytes expanded or copied; past G_MAX_WORK evaluation stops
 * (bounds the time a hostile config can take). Returns nonzero then. */
static int work(struct interp *ip, size_t bytes)
{
	ip->work += bytes;
	if (ip->work <= G_MAX_WORK)
		return 0;
	if (!ip->warned_work) {
		ip->warned_work = 1;
		msg(ip, ip->file, ip->line, "evaluation stopped after %u MiB of expansions",
		    G_MAX_WORK >> 20);
	}
	ip->fatal = 1;
	return 1;
}

static struct func *find_func(struct interp *ip, const char *name)
{
	for (size_t i = 0; i < ip->nfuncs; i++)
		if (!strcmp(ip->funcs[i].name, name))
			return &ip->funcs[i];
	return NULL;
}

/* --- test / [ --- */

struct texpr {
	struct interp *ip;
	char **a;
	size_t n, i;
	int depth;
};

static int t_or(struct texpr *t);

static int is_int(const char *s, long long *v)
{
	char *e;

	errno = 0;
	*v = strtoll(s, &e, 10);
	return *s && !*e && !errno;
}

static int t_prim(struct texpr *t)
{
	const char *a, *op, *b;
	long long x, y;
	struct stat st;

	if (t->i >= t->n)
		return 0;
	a = t->a[t->i];
	if (!strcmp(a, "(") && t->depth < G_MAX_NEST) {
		int r;

		t->i++;
		t->depth++;
		r = t_or(t);
		t->depth--;
		if (t->i < t->n && !strcmp(t->a[t->i], ")"))
			t->i++;
		return r;
	}
	/* binary operators */
	if (t->i + 2 < t->n) {
		int done = 1, r = 0;

		op = t->a[t->i + 1];
		b = t->a[t->i + 2];
		if (!strcmp(op, "=") || !strcmp(op, "=="))
			r = !strcmp(a, b);
		else if (!strcmp(op, "!="))
			r = !!strcmp(a, b);
		else if (!strcmp(op, "<"))
			r = strcmp(a, b) < 0;
		else if (!strcmp(op, "<="))
			r = strcmp(a, b) <= 0;
		else if (!strcmp(op, ">"))
			r = strcmp(a, b) > 0;
		else if (!strcmp(op, ">="))
			r = strcmp(a, b) >= 0;
		else if (!strcmp(op, "-eq") || !strcmp(op, "-ne") ||
			 !strcmp(op, "-lt") || !strcmp(op, "-le") ||
			 !strcmp(op, "-gt") || !strcmp(op, "-ge")) {
			/* GRUB: strtol, garbage counts as its numeric prefix */
			x = strtoll(a, NULL, 10);
			y = strtoll(b, NULL, 10);
			r = op[1] == 'e' ? x == y :
			    op[1] == 'n' ? x != y :
			    op[1] == 'l' ? (op[2] == 't' ? x < y : x <= y) :
			    (op[2] == 't' ? x > y : x >= y);
		} else if (!strcmp(op, "-nt") || !strcmp(op, "-ot")) {
			struct stat sa, sbb;
			int ea = path_stat(t->ip, a, &sa), eb = path_stat(t->ip, b, &sbb);

			r = !ea && !eb &&
			    (op[1] == 'n' ? sa.st_mtime > sbb.st_mtime :
			     sa.st_mtime < sbb.st_mtime);
		} else {
			done = 0;
		}
		if (done) {
			t->i += 3;
			return r;
		}
	}
	/* unary operators */
	if (t->i + 1 < t->n && a[0] == '-' && a[1] && !a[2] && strchr("nzefds", a[1])) {
		b = t->a[t->i + 1];
		t->i += 2;
		switch (a[1]) {
		case 'n':
			return *b != 0;
		case 'z':
			return *b == 0;
		case 'e':
			return !path_stat(t->ip, b, &st);
		case 'f':
			return !path_stat(t->ip, b, &st) && S_ISREG(st.st_mode);
		case 'd':
			return !path_stat(t->ip, b, &st) && S_ISDIR(st.st_mode);
		case 's':
			/* GRUB opens the file: a directory or an empty name is
			 * false */
			return *b && !path_stat(t->ip, b, &st) && S_ISREG(st.st_mode) &&
			       st.st_size > 0;
		}
	}
	t->i++;
	return *a != 0;
}

static int t_not(struct texpr *t)
{
	if (t->i < t->n && !strcmp(t->a[t->i], "!") && t->depth < G_MAX_NEST) {
		int r;

		t->i++;
		t->depth++;
		r = !t_not(t);
		t->depth--;
		return r;
	}
	return t_prim(t);
}

static int t_and(struct texpr *t)
{
	int r = t_not(t);

	while (t->i < t->n && !strcmp(t->a[t->i], "-a")) {
		t->i++;
		r = t_not(t) && r;
	}
	return r;
}

static int t_or(struct texpr *t)
{
	int r = t_and(t);

	while (t->i < t->n && !strcmp(t->a[t->i], "-o")) {
		t->i++;
		r = t_and(t) || r;
	}
	return r;
}

static int cmd_test(struct interp *ip, char **a, size_t n)
{
	struct texpr t = { ip, a, n, 0, 0 };
	int r;

	if (!n)
		return 1;
	r = t_or(&t);
	return r ? 0 : 1;
}

/* --- grubenv --- */

/* The grubenv block: "# GRUB Environment Block\n", then name=value lines
 * where a backslash escapes the next character (a backslash or a newline,
 * as grub-editenv writes them), '#' padding to 1024 bytes. */
static int load_envblk(struct interp *ip, const char *file, char **only, size_t n_only)
{
	struct gpath g;
	char *buf = NULL;
	size_t len, i;
	static const char sig[] = "# GRUB Environment Block\n";

	if (resolve_path(ip, file, &g) || !g.fs)
		return 1;
	if (lb_fs_read(g.fs, g.path, G_MAX_ENV_FILE, &buf, &len))
		return 1;
	if (len < sizeof(sig) - 1 || memcmp(buf, sig, sizeof(sig) - 1)) {
		free(buf);
		return 1;
	}
	i = sizeof(sig) - 1;
	while (i < len) {
		struct sb name = { 0 }, val = { 0 };
		int has_eq = 0;

		if (buf[i] == '#') {
			while (i < len && buf[i] != '\n')
				i++;
			i++;
			continue;
		}
		while (i < len && buf[i] != '\n' && buf[i] != '=')
			sb_putc(&name, buf[i++]);
		if (i < len && buf[i] == '=') {
			has_eq = 1;
			i++;
			while (i < len && buf[i] != '\n') {
				if (buf[i] == '\\' && i + 1 < len)
					i++;
				sb_putc(&val, buf[i++]);
			}
		}
		i++;
		if (has_eq && !name.err && !val.err && name.s && valid_name(name.s)) {
			int ok = !n_only;

			for (size_t k = 0; k < n_only; k++)
				if (!strcmp(only[k], name.s))
					ok = 1;
			if (ok)
				setvar(ip, name.s, val.s ? val.s : "");
		}
		free(name.s);
		free(val.s);
	}
	free(buf);
	return 0;
}

static int cmd_load_env(struct interp *ip, char **a, size_t n)
{
	const char *file = NULL;
	char *deffile = NULL;
	size_t i;
	int r;

	for (i = 1; i < n; i++) {
		if ((!strcmp(a[i], "-f") || !strcmp(a[i], "--file")) && i + 1 < n)
			file = a[++i];
		else if (!strncmp(a[i], "--file=", 7))
			file = a[i] + 7;
		else if (!strcmp(a[i], "-s") || !strcmp(a[i], "--skip-sig"))
			;
		else
			break;
	}
	if (!file) {
		const char *prefix = getvar(ip, "prefix");

		if (!prefix || asprintf(&deffile, "%s/grubenv", prefix) < 0)
			return 1;
		file = deffile;
	}
	r = load_envblk(ip, file, a + i, n - i);
	free(deffile);
	return r;
}

/* --- search / probe --- */

static int cmd_search(struct interp *ip, char **a, size_t n, int mode)
{
	/* mode: 'u' fs-uuid, 'l' label, 'f' file; 0: `search`, from options.
	 * search [--no-floppy] [-f|-l|-u] [--set[=VAR]] [--hint[-*]=DEV] NAME
	 * search.fs_uuid NAME [VARIABLE [HINTS...]] (and .fs_label, .file) */
	const char *setv = NULL, *key = NULL;
	struct sv hints = { 0 };
	const struct lb_fs *found = NULL;
	size_t nc = n_cands(ip), npos = 0;
	int r = 1, fixed = mode != 0;

	for (size_t i = 1; i < n; i++) {
		const char *o = a[i];

		if (fixed) {
			if (o[0] == '-' && !key)
				continue;
			if (!key)
				key = o;
			else if (!npos++)
				setv = o;
			else
				sv_push(&hints, strdup(o));
			continue;
		}
		if (!strcmp(o, "--fs-uuid") || !strcmp(o, "-u"))
			mode = 'u';
		else if (!strcmp(o, "--label") || !strcmp(o, "-l"))
			mode = 'l';
		else if (!strcmp(o, "--file") || !strcmp(o, "-f"))
			mode = 'f';
		else if (!strcmp(o, "--set") || !strcmp(o, "-s"))
			setv = "root";
		else if (!strncmp(o, "--set=", 6))
			setv = o + 6;
		else if (!strncmp(o, "--hint", 6)) {
			const char *eq = strchr(o, '=');

			if (eq)
				sv_push(&hints, strdup(eq + 1));
			else if (i + 1 < n)
				sv_push(&hints, strdup(a[++i]));
		} else if (o[0] == '-' && o[1])
			; /* --no-floppy, --efidisk-only, --cryptodisk-only ... */
		else if (!key)
			key = o;
	}
	if (!key || !mode)
		goto out;
	/* hints first, then every filesystem in order */
	for (size_t pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i < (pass ? nc : hints.n) && !found; i++) {
			const struct lb_fs *f = pass ? cand(ip, i) : find_dev(ip, hints.v[i]);
			struct stat st;

			if (!f)
				continue;
			if ((mode == 'u' && f->uuid && !strcasecmp(f->uuid, key)) ||
			    (mode == 'l' && f->label && !strcmp(f->label, key)) ||
			    (mode == 'f' && !lb_fs_stat(f, key, &st)))
				found = f;
		}
	}
	if (found) {
		r = 0;
		if (setv && valid_name(setv))
			setvar(ip, setv, dev_value(found));
	}
out:
	sv_free(&hints);
	return r;
}

static int cmd_probe(struct interp *ip, char **a, size_t n)
{
	const char *setv = NULL, *dev = NULL, *val = NULL;
	int what = 0;
	const struct lb_fs *f;

	for (size_t i = 1; i < n; i++) {
		if ((!strcmp(a[i], "--set") || !strcmp(a[i], "-s")) && i + 1 < n)
			setv = a[++i];
		else if (!strncmp(a[i], "--set=", 6))
			setv = a[i] + 6;
		else if (!strcmp(a[i], "-u") || !strcmp(a[i], "--fs-uuid"))
			what = 'u';
		else if (!strcmp(a[i], "-l") || !strcmp(a[i], "--label"))
			what = 'l';
		else if (!strcmp(a[i], "-f") || !strcmp(a[i], "--fs"))
			what = 'f';
		else if (!strcmp(a[i], "-a") || !strcmp(a[i], "--part-uuid"))
			what = 'a';
		else if (a[i][0] != '-')
			dev = a[i];
	}
	if (!dev || !(f = find_dev(ip, dev)))
		return 1;
	val = what == 'u' ? f->uuid : what == 'l' ? f->label :
	      what == 'f' ? f->fstype : what == 'a' ? f->partuuid : NULL;
	if (!val)
		return 1;
	if (setv && valid_name(setv))
		setvar(ip, setv, val);
	return 0;
}

/* --- loaders inside entry bodies --- */

/* One argument of the kernel command line as GRUB's loader writes it
 * (grub_create_loader_cmdline): in double quotes when it holds a space,
 * backslashes and quotes escaped, \xHH kept as written. */
static void cmdline_arg(struct sb *b, const char *a)
{
	int space = strchr(a, ' ') != NULL;

	if (space)
		sb_putc(b, '"');
	while (*a) {
		if (is_hex_esc(a)) {
			sb_putn(b, a, 4);
			a += 4;
			continue;
		}
		if (*a == '\\' || *a == '\'' || *a == '"')
			sb_putc(b, '\\');
		sb_putc(b, *a++);
	}
	if (space)
		sb_putc(b, '"');
}

static const char bad_nokernel[] = "linux names no kernel file";
static const char bad_initrds[] = "initrd: more than " LB_STR(LB_MAX_INITRDS) " files";

static int cmd_linux(struct interp *ip, char **a, size_t n)
{
	struct ectx *e = ip->ectx;
	struct gpath g;
	struct sb cl = { 0 };
	size_t i = 1;

	if (!e)
		return 0;
	if (n < 2 || resolve_path(ip, a[1], &g))
		return 1;
	if (g.path[strlen(g.path) - 1] == '/') {
		/* `linux (hd0,1)`: GRUB cannot open a directory as the kernel;
		 * the failed command leaves no kernel loaded */
		free(e->kernel);
		e->kernel = NULL;
		for (i = 0; i < e->n_initrd; i++)
			free(e->initrd[i]);
		e->n_initrd = 0;
		e->bad = bad_nokernel;
		return 1;
	}
	for (i = 2; i < n; i++) {
		if (i > 2)
			sb_putc(&cl, ' ');
		cmdline_arg(&cl, a[i]);
	}
	if (cl.err) {
		free(cl.s);
		return 1;
	}
	free(e->kernel);
	free(e->kfs);
	free(e->cmdline);
	e->kernel = strdup(g.path);
	e->kfs = g.fs ? strdup(lb_fs_ident(g.fs)) : g.dev[0] ? strdup(g.dev) : NULL;
	e->kfsp = g.fs;
	free(e->kdev_unknown);
	e->kdev_unknown = g.dev_unknown ? strdup(g.dev) : NULL;
	e->cmdline = cl.s ? cl.s : strdup("");
	e->bad = NULL;
	if (!e->kernel || !e->cmdline)
		ip->oom = 1;
	/* GRUB's linux command unloads a previously loaded initrd */
	for (i = 0; i < e->n_initrd; i++)
		free(e->initrd[i]);
	e->n_initrd = 0;
	return 0;
}

static int cmd_initrd(struct interp *ip, char **a, size_t n)
{
	struct ectx *e = ip->ectx;
	size_t i, k = 0;
	char *v[LB_MAX_INITRDS];

	if (!e)
		return 0;
	if (!e->kernel) {
		e->initrd_before_linux = 1;
		return 1; /* GRUB: "you need to load the kernel first" */
	}
	for (i = 1; i < n; i++) {
		struct gpath g;

		if (!strncmp(a[i], "--", 2))
			continue; /* --newc:name: options */
		if (k >= LB_MAX_INITRDS) {
			/* never boot this entry without all of its initrds */
			e->bad = bad_initrds;
			goto fail;
		}
		if (resolve_path(ip, a[i], &g))
			goto fail;
		if (!(v[k] = strdup(g.path))) {
			ip->oom = 1;
			goto fail;
		}
		k++;
	}
	for (i = 0; i < e->n_initrd; i++)
		free(e->initrd[i]);
	memcpy(e->initrd, v, k * sizeof(v[0]));
	e->n_initrd = k;
	if (e->bad == bad_initrds)
		e->bad = NULL;
	return 0;
fail:
	while (k)
		free(v[--k]);
	return 1;
}

/* --- menu items --- */

static int cmd_menu(struct interp *ip, struct node *nd, char **a, size_t n)
{
	struct menu *m = ip->cur;
	struct mitem *it;
	const char *title = NULL, *id = NULL;
	struct sv args = { 0 };

	if (!m)
		return 0; /* inside an entry body: GRUB would add to the menu at boot */
	for (size_t i = 1; i < n; i++) {
		const char *o = a[i];

		if (!strcmp(o, "--id") || !strcmp(o, "--class") || !strcmp(o, "--users") ||
		    !strcmp(o, "--hotkey") || !strcmp(o, "--source")) {
			if (i + 1 < n) {
				if (o[2] == 'i')
					id = a[i + 1];
				i++;
			}
		} else if (!strncmp(o, "--id=", 5)) {
			id = o + 5;
		} else if (!strncmp(o, "--", 2) && o[2]) {
			; /* --unrestricted, --class=x, --users=x ... */
		} else if (!title) {
			title = o;
			sv_push(&args, strdup(o));
		} else {
			sv_push(&args, strdup(o));
		}
	}
	if (!title) {
		msg(ip, nd->file, nd->line, "%s without a title", a[0]);
		sv_free(&args);
		return 1;
	}
	if (args.err || ip->nitems >= G_MAX_ITEMS) {
		if (args.err == -ENOMEM)
			ip->oom = 1;
		else
			msg(ip, nd->file, nd->line, "too many menu entries");
		sv_free(&args);
		return 1;
	}
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		struct mitem *nv = realloc(m->v, nc * sizeof(*nv));

		if (!nv) {
			ip->oom = 1;
			sv_free(&args);
			return 1;
		}
		m->v = nv;
		m->cap = nc;
	}
	it = &m->v[m->n];
	memset(it, 0, sizeof(*it));
	it->kind = nd->mk;
	it->title = strdup(title);
	it->id = id && *id ? strdup(id) : NULL;
	it->args = args;
	it->def = nd;
	it->file = nd->file;
	it->line = nd->line;
	it->flat = -1;
	if (!it->title || (id && *id && !it->id)) {
		free(it->title);
		free(it->id);
		sv_free(&it->args);
		ip->oom = 1;
		return 1;
	}
	m->n++;
	ip->nitems++;
	return 0;
}

/* --- blscfg --- */

/* Append " '(dev)'PATH" to the generated entry source. PATH is p inside
 * the boot directory bootdir when that file exists or neither does, else p
 * as written (kernel-install's 20-grub.install already writes /boot/... into
 * entries when /boot is a directory of the root filesystem). A word starting
 * with '$' (Fedora's "$tuned_initrd") is pasted as it is. */
static void bls_path(const struct lb_fs *fs, struct sb *b, const char *dev,
		     const char *bootdir, const char *p, size_t pn)
{
	char path[4096];
	struct stat st;

	sb_putc(b, ' ');
	if (p[0] == '$') {
		sb_putn(b, p, pn);
		return;
	}
	if (pn + strlen(bootdir) + 2 > sizeof(path)) {
		b->err = -ENAMETOOLONG;
		return;
	}
	snprintf(path, sizeof(path), "%s%s%.*s", bootdir, p[0] == '/' ? "" : "/", (int)pn, p);
	if (bootdir[0] && lb_fs_stat(fs, path, &st)) {
		snprintf(path, sizeof(path), "%s%.*s", p[0] == '/' ? "" : "/", (int)pn, p);
		if (lb_fs_stat(fs, path, &st))
			snprintf(path, sizeof(path), "%s%s%.*s", bootdir,
				 p[0] == '/' ? "" : "/", (int)pn, p);
	}
	sb_puts(b, "'(");
	for (const char *c = dev; *c; c++) {
		if (*c == '\'')
			sb_puts(b, "'\\''");
		else
			sb_putc(b, *c);
	}
	sb_puts(b, ")'");
	for (const char *c = path; *c; c++) {
		if (strchr(" \t\n;{}'\"\\$", *c))
			sb_putc(b, '\\');
		sb_putc(b, *c);
	}
}

/* Each word of a BLS path list (initrd lines may hold several). */
static void bls_paths(const struct lb_fs *fs, struct sb *b, const char *dev,
		      const char *bootdir, const char *v)
{
	while (*v) {
		size_t n;

		while (*v == ' ' || *v == '\t')
			v++;
		n = strcspn(v, " \t");
		if (n)
			bls_path(fs, b, dev, bootdir, v, n);
		v += n;
	}
}

/*
 * Fedora's blscfg: the entries of $blsdir, else /loader/entries on $root
 * (a separate /boot), else /boot/loader/entries (/boot a directory of the
 * root filesystem); paths in the entries are relative to the boot
 * directory, so they get the directory the entries were found under as a
 * prefix (see bls_path). Each entry becomes a menuentry whose body is the source blscfg
 * generates ("linux PATH OPTIONS", "initrd ...", "devicetree ..."), options
 * pasted verbatim so $kernelopts and friends expand when it runs; --id is the
 * entry id (file name stem), so saved_entry selects it.
 */
static int cmd_blscfg(struct interp *ip, const char *file, int line)
{
	struct lb_entries bls = LB_ENTRIES_INIT;
	const char *root = getvar(ip, "root"), *blsdir = getvar(ip, "blsdir");
	const struct lb_fs *fs;
	const char *dir;
	static const char tail[] = "/loader/entries";
	const size_t tl = sizeof(tail) - 1;
	char dev[256], bootdir[4096];
	size_t dl;
	int r;

	fs = root && *root ? find_dev(ip, root) : NULL;
	if (!fs)
		fs = ip->cfgfs;
	if (!fs)
		return 1;
	snprintf(dev, sizeof(dev), "%s", root && *root && strlen(root) < sizeof(dev) ?
		 root : dev_value(fs));
	dl = strlen(dev);
	if (dl >= 2 && dev[0] == '(' && dev[dl - 1] == ')') {
		memmove(dev, dev + 1, dl - 2);
		dev[dl - 2] = 0;
	}
	r = -ENOENT;
	if (blsdir && *blsdir) {
		dir = blsdir;
		r = lb_bls_load_dir(fs, dir, &bls);
	}
	/* $blsdir may name a btrfs subvolume path ("/root/boot/loader/entries")
	 * that is not visible in the mounted default subvolume: fall back */
	if (r == -ENOENT) {
		lb_entries_free(&bls);
		dir = tail;
		r = lb_bls_load_dir(fs, dir, &bls);
		if (r == -ENOENT) {
			lb_entries_free(&bls);
			dir = "/boot/loader/entries";
			r = lb_bls_load_dir(fs, dir, &bls);
		}
	}
	if (r) {
		lb_entries_free(&bls);
		if (r == -ENOMEM)
			ip->oom = 1;
		msg(ip, file, line, "blscfg: cannot load %s: %s", dir, strerror(-r));
		return 1;
	}
	dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	bootdir[0] = 0;
	if (dl > tl && dl - tl < sizeof(bootdir) && !strncmp(dir + dl - tl, tail, tl) &&
	    dir[0] == '/') {
		memcpy(bootdir, dir, dl - tl);
		bootdir[dl - tl] = 0;
	}
	for (size_t i = 0; i < bls.n_msgs; i++)
		msg(ip, file, line, "blscfg: %s", bls.msgs[i]);
	for (size_t i = 0; i < bls.n && !ip->oom && !ip->fatal; i++) {
		struct lb_entry *e = &bls.v[i];
		struct sb src = { 0 };
		struct sv pos = { 0 }, *save = ip->pos;
		const char *title;
		size_t before = ip->cur ? ip->cur->n : 0;

		if (e->type != LB_ENTRY_LINUX || !e->kernel)
			continue;
		sb_puts(&src, "menuentry \"$1\" --id \"$2\" {\nlinux");
		bls_path(fs, &src, dev, bootdir, e->kernel, strlen(e->kernel));
		if (e->cmdline) {
			sb_putc(&src, ' ');
			sb_puts(&src, e->cmdline);
		}
		sb_putc(&src, '\n');
		if (e->n_initrd) {
			sb_puts(&src, "initrd");
			for (size_t k = 0; k < e->n_initrd; k++)
				bls_paths(fs, &src, dev, bootdir, e->initrd[k]);
			sb_putc(&src, '\n');
		}
		if (e->devicetree) {
			sb_puts(&src, "devicetree");
			bls_path(fs, &src, dev, bootdir, e->devicetree, strlen(e->devicetree));
			sb_putc(&src, '\n');
		}
		sb_puts(&src, "}\n");
		title = e->title ? e->title : e->id ? e->id : e->kernel;
		sv_push(&pos, strdup(title));
		sv_push(&pos, strdup(e->id ? e->id : title));
		if (!src.err && !pos.err) {
			ip->pos = &pos;
			run_script_buf(ip, e->source ? e->source : dir, src.s, src.n, NULL);
			ip->pos = save;
			if (ip->cur && ip->cur->n == before + 1) {
				struct mitem *it = &ip->cur->v[before];

				if (e->hidden)
					it->kind = M_HIDDEN;
				if (e->source && lb_setstr(&it->source, e->source))
					ip->oom = 1;
			}
		} else if (src.err == -ENOMEM || pos.err == -ENOMEM) {
			ip->oom = 1;
		}
		sv_free(&pos);
		free(src.s);
	}
	lb_entries_free(&bls);
	return 0;
}

/* --- include --- */

static int cmd_source(struct interp *ip, const char *f, int configfile)
{
	struct gpath g;
	char *buf = NULL;
	size_t len;
	int r;

	if (ip->src_depth >= G_MAX_SRC_DEPTH) {
		msg(ip, ip->file, ip->line, "%s %s: nesting too deep", configfile ?
		    "configfile" : "source", f);
		return 1;
	}
	if (resolve_path(ip, f, &g) || !g.fs)
		return 1;
	r = lb_fs_read(g.fs, g.path, LB_FS_MAX_CONFIG, &buf, &len);
	if (r) {
		msg(ip, ip->file, ip->line, "%s: %s", f, strerror(-r));
		return 1;
	}
	if (configfile) {
		/* GRUB's normal mode sets these for the file it reads */
		char *d = strdup(f), *slash;

		setvar(ip, "config_file", f);
		if (d && (slash = strrchr(d, '/'))) {
			*slash = 0;
			setvar(ip, "config_directory", d);
		}
		free(d);
	}
	ip->src_depth++;
	r = run_script_buf(ip, g.path, buf, len, NULL);
	ip->src_depth--;
	free(buf);
	return r ? 1 : ip->status;
}

/* --- simple commands --- */

/* commands that only change the display or hardware state: accepted */
static const char *const ignored_ok[] = {
	"insmod", "rmmod", "echo", "terminal_output", "terminal_input", "terminal",
	"loadfont", "font", "background_image", "background_color", "sleep", "play",
	"gfxterm_background", "set_background", "clear", "cls", "serial", "keystatus",
	"save_env", "boot", "savedefault", "hello", "gettext",
	"lsfonts", "videoinfo", "cpuid", "nativedisk", "usb", "terminfo", "ls",
	"dump", "cat", "list_env", "pager", "loopback", "password", "password_pbkdf2",
	"smbios", "tpm2_key_protector_init", "set_gfxmode", "vbeinfo",
	"lsmod", "rescue", "normal", "normal_exit", "read", "module",
	"net_bootp", "net_dhcp", "cutmem", "badram", "gptsync", "parttool",
	"drivemap", "acpi", "fakebios", "fix_video", "outb", "inb", "halt", "reboot",
	"tr", "keymap", "lsefi", "lsefisystab", "lssal", "efiemu_loadcore",
	"efiemu_unload", "efiemu_prepare", "blocklist", "crc", "hashsum", "md5sum",
	"sha1sum", "sha256sum", "sha512sum", "date", "time", "xnu_uuid", "plainmount",
	NULL
};

static int in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

static int call_func(struct interp *ip, struct func *f, char **a, size_t n);

static int exec_simple(struct interp *ip, struct node *nd)
{
	struct sv w = { 0 };
	char **a;
	size_t n;
	const char *c;
	int r = 0;
	struct func *fn;

	if (expand_words(ip, nd->w.v, nd->w.n, &w)) {
		if (w.err != -ENOMEM)
			msg(ip, nd->file, nd->line, "command too long");
		sv_free(&w);
		return 1;
	}
	a = w.v;
	n = w.n;
	if (!n) {
		sv_free(&w);
		return 0;
	}
	c = a[0];
	if (!strcmp(c, "set")) {
		for (size_t i = 1; i < n; i++) {
			char *eq = strchr(a[i], '=');

			if (eq) {
				*eq = 0;
				if (!valid_name(a[i]) || setvar(ip, a[i], eq + 1))
					r = 1;
			} else if (!valid_name(a[i])) {
				r = 1;
			}
			/* `set x` prints x */
		}
	} else if (!strcmp(c, "unset")) {
		for (size_t i = 1; i < n; i++)
			unsetvar(ip, a[i]);
	} else if (!strcmp(c, "export")) {
		for (size_t i = 1; i < n; i++) {
			struct var *v;

			if (!valid_name(a[i]))
				continue;
			if (!(v = env_find(ip->env, a[i]))) {
				setvar(ip, a[i], "");
				v = env_find(ip->env, a[i]);
			}
			if (v)
				v->exp = 1;
		}
	} else if (!strcmp(c, "true") || !strcmp(c, ":")) {
		r = 0;
	} else if (!strcmp(c, "false")) {
		r = 1;
	} else if (!strcmp(c, "[")) {
		if (strcmp(a[n - 1], "]"))
			r = 1;
		else
			r = cmd_test(ip, a + 1, n - 2);
	} else if (!strcmp(c, "test")) {
		r = cmd_test(ip, a + 1, n - 1);
	} else if (!strcmp(c, "return") || !strcmp(c, "break") || !strcmp(c, "continue")) {
		long k = n > 1 ? strtol(a[1], NULL, 10) : (c[0] == 'r' ? ip->status : 1);

		if (c[0] == 'r') {
			ip->flow = F_RETURN;
			r = (int)(k & 0xff);
		} else if (ip->loop_depth) {
			ip->flow = c[0] == 'b' ? F_BREAK : F_CONTINUE;
			ip->flow_n = k < 1 ? 1 : k;
			r = 0;
		}
	} else if (!strcmp(c, "shift")) {
		long k = n > 1 ? strtol(a[1], NULL, 10) : 1;

		if (!ip->pos || k < 0 || (size_t)k > ip->pos->n) {
			r = 1;
		} else if (k > 0) {
			for (long i = 0; i < k; i++)
				free(ip->pos->v[i]);
			memmove(ip->pos->v, ip->pos->v + k,
				(ip->pos->n - (size_t)k + 1) * sizeof(char *));
			ip->pos->n -= (size_t)k;
		}
	} else if (!strcmp(c, "setparams")) {
		if (ip->pos) {
			struct sv np = { 0 };

			for (size_t i = 1; i < n; i++)
				sv_push(&np, strdup(a[i]));
			if (np.err) {
				sv_free(&np);
				r = 1;
			} else {
				sv_free(ip->pos);
				*ip->pos = np;
			}
		}
	} else if (!strcmp(c, "linux") || !strcmp(c, "linuxefi") ||
		   !strcmp(c, "linux16") || !strcmp(c, "multiboot") ||
		   !strcmp(c, "multiboot2") || !strcmp(c, "kfreebsd") ||
		   !strcmp(c, "knetbsd") || !strcmp(c, "kopenbsd") ||
		   !strcmp(c, "chainloader") || !strcmp(c, "appleloader") ||
		   !strcmp(c, "xnu_kernel") || !strcmp(c, "xnu_kernel64") ||
		   !strcmp(c, "legacy_kernel") || !strcmp(c, "ntldr") ||
		   !strcmp(c, "freedos") || !strcmp(c, "truecrypt") || !strcmp(c, "pxechain")) {
		if (c[0] == 'l' && c[1] == 'i')
			r = cmd_linux(ip, a, n);
		else if (ip->ectx)
			ip->ectx->other = c[0] == 'c' ? "chainloader" : c;
	} else if (!strcmp(c, "initrd") || !strcmp(c, "initrdefi") || !strcmp(c, "initrd16")) {
		r = cmd_initrd(ip, a, n);
	} else if (!strcmp(c, "devicetree")) {
		struct gpath g;

		if (ip->ectx && n > 1 && !resolve_path(ip, a[1], &g)) {
			if (lb_setstr(&ip->ectx->dtb, g.path))
				ip->oom = 1;
		}
	} else if (!strcmp(c, "search")) {
		r = cmd_search(ip, a, n, 0);
	} else if (!strcmp(c, "search.fs_uuid") || !strcmp(c, "search.fs_label") ||
		   !strcmp(c, "search.file") || !strcmp(c, "search_fs_uuid") ||
		   !strcmp(c, "search_label") || !strcmp(c, "search_file")) {
		const char *t = c + 7;

		r = cmd_search(ip, a, n, !strcmp(t, "fs_uuid") ? 'u' :
			       (!strcmp(t, "file") ? 'f' : 'l'));
	} else if (!strcmp(c, "probe")) {
		r = cmd_probe(ip, a, n);
	} else if (!strcmp(c, "load_env")) {
		r = cmd_load_env(ip, a, n);
	} else if (!strcmp(c, "source") || !strcmp(c, ".")) {
		r = n > 1 ? cmd_source(ip, a[1], 0) : 1;
	} else if (!strcmp(c, "configfile")) {
		r = n > 1 ? cmd_source(ip, a[1], 1) : 1;
	} else if (!strcmp(c, "eval")) {
		struct sb s = { 0 };

		for (size_t i = 1; i < n; i++) {
			if (i > 1)
				sb_putc(&s, ' ');
			sb_puts(&s, a[i]);
		}
		if (!s.err && s.s && ip->src_depth < G_MAX_SRC_DEPTH) {
			char en[600];

			snprintf(en, sizeof(en), "%s:%d: eval", nd->file, nd->line);
			ip->src_depth++;
			r = run_script_buf(ip, en, s.s, s.n, NULL) ? 1 : ip->status;
			ip->src_depth--;
		}
		free(s.s);
	} else if (!strcmp(c, "blscfg")) {
		ip->ran_blscfg = 1;
		r = cmd_blscfg(ip, nd->file, nd->line);
	} else if (!strcmp(c, "fwsetup")) {
		r = 1; /* no firmware setup to reboot into from LinuxBoot */
	} else if (!strcmp(c, "cryptomount") || !strcmp(c, "regexp")) {
		r = 1;
	} else if (in_list(ignored_ok, c)) {
		r = 0;
	} else if ((fn = find_func(ip, c))) {
		r = call_func(ip, fn, a, n);
	} else if (n == 1 && (c = strchr(a[0], '=')) && c != a[0]) {
		/* name=value */
		*(char *)c = 0;
		r = valid_name(a[0]) && !setvar(ip, a[0], c + 1) ? 0 : 1;
	} else {
		r = 1; /* unknown command: GRUB reports it and goes on */
	}
	sv_free(&w);
	return r;
}

static int call_func(struct interp *ip, struct func *f, char **a, size_t n)
{
	struct sv pos = { 0 }, *save = ip->pos;
	int r, save_loop = ip->loop_depth;

	if (ip->depth >= G_MAX_NEST) {
		msg(ip, f->def->file, f->def->line, "function %s: recursion too deep", f->name);
		return 1;
	}
	for (size_t i = 1; i < n; i++)
		sv_push(&pos, strdup(a[i]));
	if (pos.err) {
		sv_free(&pos);
		return 1;
	}
	ip->pos = &pos;
	ip->depth++;
	ip->loop_depth = 0;
	r = exec_list(ip, &f->def->body);
	ip->loop_depth = save_loop;
	ip->depth--;
	if (ip->flow == F_RETURN) {
		ip->flow = F_NONE;
		r = ip->status;
	}
	ip->flow = F_NONE;
	ip->pos = save;
	sv_free(&pos);
	return r;
}

static int define_func(struct interp *ip, struct node *nd)
{
	const char *name = nd->w.v[0];
	struct func *f = find_func(ip, name);

	if (f) {
		f->def = nd;
		return 0;
	}
	if (ip->nfuncs >= G_MAX_FUNCS) {
		msg(ip, nd->file, nd->line, "too many functions");
		return 1;
	}
	if (!(ip->funcs[ip->nfuncs].name = strdup(name))) {
		ip->oom = 1;
		return 1;
	}
	ip->funcs[ip->nfuncs++].def = nd;
	return 0;
}

/* Status of a loop body; handles break/continue levels. Returns 1 to
 * leave the loop. */
static int loop_flow(struct interp *ip)
{
	if (ip->flow == F_BREAK || ip->flow == F_CONTINUE) {
		if (--ip->flow_n > 0)
			return 1; /* propagate to the outer loop */
		if (ip->flow == F_BREAK) {
			ip->flow = F_NONE;
			return 1;
		}
		ip->flow = F_NONE;
		return 0;
	}
	return ip->flow != F_NONE || ip->fatal;
}

static int exec_node(struct interp *ip, struct node *nd)
{
	int r = 0;

	if (!budget(ip))
		return 1;
	ip->file = nd->file;
	ip->line = nd->line;
	switch (nd->k) {
	case N_CMD:
		r = exec_simple(ip, nd);
		break;
	case N_IF: {
		size_t i;

		r = 0;
		for (i = 0; i < nd->narms; i++) {
			int c = exec_list(ip, &nd->arms[i].cond);

			if (ip->flow != F_NONE || ip->fatal)
				return c;
			if (!c) {
				r = exec_list(ip, &nd->arms[i].body);
				break;
			}
		}
		if (i == nd->narms && nd->has_else)
			r = exec_list(ip, &nd->body);
		break;
	}
	case N_FOR: {
		struct sv vals = { 0 };

		if (expand_words(ip, nd->w.v + 1, nd->w.n - 1, &vals)) {
			sv_free(&vals);
			r = 1;
			break;
		}
		ip->loop_depth++;
		for (size_t i = 0; i < vals.n && i < G_MAX_LOOP; i++) {
			setvar(ip, nd->w.v[0], vals.v[i]);
			r = exec_list(ip, &nd->body);
			if (loop_flow(ip))
				break;
		}
		ip->loop_depth--;
		sv_free(&vals);
		break;
	}
	case N_WHILE:
	case N_UNTIL:
		ip->loop_depth++;
		for (long it = 0;; it++) {
			int c;

			if (it >= G_MAX_LOOP) {
				msg(ip, nd->file, nd->line, "loop stopped after %d iterations",
				    G_MAX_LOOP);
				break;
			}
			c = exec_list(ip, &nd->cond);
			if (ip->flow != F_NONE || ip->fatal)
				break;
			if ((nd->k == N_WHILE) != (c == 0))
				break;
			r = exec_list(ip, &nd->body);
			if (loop_flow(ip))
				break;
		}
		ip->loop_depth--;
		break;
	case N_FUNC:
		r = define_func(ip, nd);
		break;
	case N_MENU: {
		struct sv w = { 0 };

		if (expand_words(ip, nd->w.v, nd->w.n, &w)) {
			sv_free(&w);
			r = 1;
			break;
		}
		r = cmd_menu(ip, nd, w.v, w.n);
		sv_free(&w);
		break;
	}
	}
	ip->status = r;
	return r;
}

static int exec_list(struct interp *ip, struct list *l)
{
	int r = 0;

	for (size_t i = 0; i < l->n; i++) {
		r = exec_node(ip, l->v[i]);
		if (ip->flow != F_NONE || ip->fatal)
			break;
	}
	return r;
}

/* Parse a buffer into a kept script and run it, one top-level command at a
 * time; a syntax error skips the command (from the line it starts on) with
 * a message and parsing resumes on the next line, as GRUB's line reader
 * does. Returns 0, or negative errno (ENOMEM, too many scripts). */
static int run_script_buf(struct interp *ip, const char *name, const char *buf,
			  size_t len, struct script **keep)
{
	struct script *sc;
	struct parser P;
	char *clean;
	size_t cl = 0, rescanned = 0;

	if (ip->nscripts >= G_MAX_SCRIPTS) {
		msg(ip, name, 0, "too many included files");
		return -E2BIG;
	}
	if (!(sc = calloc(1, sizeof(*sc))) || !(sc->name = strdup(name))) {
		free(sc);
		ip->oom = 1;
		return -ENOMEM;
	}
	sc->next = ip->scripts;
	ip->scripts = sc;
	ip->nscripts++;
	if (keep)
		*keep = sc;
	/* GRUB reads a config line by line into C strings: a NUL ends its
	 * line; carriage returns are dropped here too (CRLF files) */
	if (!(clean = malloc(len + 1))) {
		ip->oom = 1;
		return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\r')
			continue;
		if (!buf[i]) {
			while (i + 1 < len && buf[i + 1] != '\n')
				i++;
			continue;
		}
		clean[cl++] = buf[i];
	}
	clean[cl] = 0;
	buf = clean;
	len = cl;
	memset(&P, 0, sizeof(P));
	P.L.s = buf;
	P.L.n = len;
	P.L.line = 1;
	P.file = sc->name;
	while (!ip->fatal) {
		struct node *nd;
		size_t start_i;
		int start_line, r;

		skip_nl(&P);
		if (peek(&P.L) == T_EOF)
			break;
		start_line = P.L.tline;
		/* the offset of the line the command starts on */
		start_i = P.L.tstart;
		while (start_i > 0 && buf[start_i - 1] != '\n')
			start_i--;
		P.err = NULL;
		P.L.err = NULL;
		r = parse_command(&P, &nd);
		if (r == -ENOMEM) {
			ip->oom = 1;
			break;
		}
		if (r) {
			msg(ip, sc->name, P.errline ? P.errline : start_line,
			    "%s (command at line %d skipped)", P.err ? P.err : "syntax error",
			    start_line);
			/* Resume after the first line of the broken command, so
			 * one unclosed block does not swallow the rest of the
			 * file. Rescanning is bounded: past 4x the file, resume
			 * where the error was found, as GRUB's reader does. */
			free(P.L.w);
			P.L.w = NULL;
			P.L.have = 0;
			P.depth = 0;
			rescanned += P.L.i > start_i ? P.L.i - start_i : 0;
			if (rescanned > 4 * (size_t)len + 65536)
				continue;
			P.L.i = start_i;
			while (P.L.i < len && buf[P.L.i] != '\n')
				P.L.i++;
			P.L.line = start_line;
			continue;
		}
		if (list_push(&sc->top, nd)) {
			node_free(nd);
			ip->oom = 1;
			break;
		}
		if (peek(&P.L) == T_SEMI)
			drop(&P.L);
		exec_node(ip, nd);
		if (ip->flow == F_RETURN && ip->depth == 0)
			ip->flow = F_NONE; /* `return` outside a function ends nothing */
		if (ip->flow == F_BREAK || ip->flow == F_CONTINUE)
			ip->flow = F_NONE;
	}
	free(P.L.w);
	free(clean);
	return ip->oom ? -ENOMEM : 0;
}

/* ------------------------------------------------------------------ */
/* materialising the menu                                              */

static void ectx_free(struct ectx *e)
{
	free(e->kdev_unknown);
	free(e->kernel);
	free(e->kfs);
	free(e->cmdline);
	free(e->dtb);
	for (size_t i = 0; i < e->n_initrd; i++)
		free(e->initrd[i]);
	memset(e, 0, sizeof(*e));
}

/* A path segment of an entry id: '>' in ids and titles is written ">>"
 * in default paths (grub-reboot, grub-set-default). */
static void id_seg(struct sb *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '>')
			sb_putc(b, '>');
		sb_putc(b, *s);
	}
}

static void run_menu(struct interp *ip, struct menu *m, const char *idpath,
		     struct lb_entries *res)
{
	for (size_t i = 0; i < m->n && !ip->oom; i++) {
		struct mitem *it = &m->v[i];
		struct env *save_env = ip->env, *env;
		struct sv *save_pos = ip->pos, pos = { 0 };
		struct sb id = { 0 };
		char *ids;

		if (idpath) {
			sb_puts(&id, idpath);
			sb_putc(&id, '>');
		}
		id_seg(&id, it->id ? it->id : it->title);
		if (!(ids = sb_take(&id))) {
			ip->oom = 1;
			break;
		}
		if (work(ip, ip->env->bytes + 1)) {
			free(ids);
			break;
		}
		for (size_t k = 0; k < it->args.n; k++)
			sv_push(&pos, strdup(it->args.v[k]));
		env = pos.err ? NULL : env_clone(ip->env, it->kind == M_SUBMENU, &ip->oom);
		if (!env) {
			ip->oom = 1;
			sv_free(&pos);
			free(ids);
			break;
		}
		ip->env = env;
		ip->pos = &pos;
		ip->fatal = 0;
		ip->flow = F_NONE;
		if (it->kind == M_SUBMENU) {
			struct menu *save_cur = ip->cur;

			if (!(it->sub = calloc(1, sizeof(*it->sub)))) {
				ip->oom = 1;
			} else {
				ip->cur = it->sub;
				exec_list(ip, &it->def->body);
				ip->cur = NULL;
				ip->pos = save_pos;
				run_menu(ip, it->sub, ids, res);
			}
			ip->cur = save_cur;
		} else {
			struct ectx e = { 0 };
			struct menu *save_cur = ip->cur;
			struct lb_entry *le;

			ip->ectx = &e;
			ip->cur = NULL;
			/* GRUB sets the id path of the entry booted (savedefault
			 * saves it as saved_entry) */
			setvar(ip, "chosen", ids);
			exec_list(ip, &it->def->body);
			ip->ectx = NULL;
			ip->cur = save_cur;
			if (ip->oom) {
				ectx_free(&e);
			} else if (e.bad) {
				msg(ip, it->file, it->line, "entry '%s' skipped: %s", it->title,
				    e.bad);
				ectx_free(&e);
			} else if (!e.kernel) {
				msg(ip, it->file, it->line, "entry '%s' skipped: %s", it->title,
				    e.other ? (!strcmp(e.other, "chainloader") ?
					       "chainloader is not supported" :
					       "not a Linux kernel") : "no linux command");
				ectx_free(&e);
			} else if (res->n >= G_MAX_ITEMS || !(le = lb_entries_add(res))) {
				if (res->n < G_MAX_ITEMS)
					ip->oom = 1;
				ectx_free(&e);
			} else {
				char src[600];
				struct stat st;

				if (it->source)
					snprintf(src, sizeof(src), "%s", it->source);
				else
					snprintf(src, sizeof(src), "%s:%d", it->file, it->line);

				if (e.kdev_unknown && e.kfsp)
					msg(ip, it->file, it->line, "entry '%s': GRUB device '%s' "
					    "not known, assuming %s", it->title, e.kdev_unknown,
					    lb_fs_ident(e.kfsp));
				else if (e.kfsp && lb_fs_stat(e.kfsp, e.kernel, &st))
					msg(ip, it->file, it->line, "entry '%s': kernel %s not "
					    "found on %s", it->title, e.kernel, lb_fs_ident(e.kfsp));
				free(e.kdev_unknown);
				le->type = LB_ENTRY_LINUX;
				le->title = strdup(it->title);
				le->id = ids;
				ids = NULL;
				le->kernel = e.kernel;
				le->cmdline = e.cmdline && *e.cmdline ? e.cmdline : NULL;
				if (!le->cmdline)
					free(e.cmdline);
				le->fs = e.kfs;
				le->devicetree = e.dtb;
				memcpy(le->initrd, e.initrd, e.n_initrd * sizeof(e.initrd[0]));
				le->n_initrd = e.n_initrd;
				le->source = strdup(src);
				le->hidden = it->kind == M_HIDDEN;
				if (!le->title || !le->source)
					ip->oom = 1;
				it->flat = (long)(res->n - 1);
			}
		}
		free(ids);
		ip->env = save_env;
		ip->pos = save_pos;
		env_free(env);
		sv_free(&pos);
	}
}

/* Next segment of a default path: up to a single '>' (">>" is a literal). */
static char *next_seg(const char **p)
{
	struct sb b = { 0 };
	const char *s = *p;

	while (*s) {
		if (*s == '>') {
			if (s[1] == '>') {
				sb_putc(&b, '>');
				s += 2;
				continue;
			}
			s++;
			break;
		}
		sb_putc(&b, *s++);
	}
	*p = s;
	return sb_take(&b);
}

static long first_entry(const struct menu *m, int depth)
{
	for (size_t i = 0; m && i < m->n && depth < G_MAX_NEST; i++) {
		if (m->v[i].flat >= 0)
			return m->v[i].flat;
		if (m->v[i].sub) {
			long r = first_entry(m->v[i].sub, depth + 1);

			if (r >= 0)
				return r;
		}
	}
	return -1;
}

/* Resolve a default path in m: index, --id or title per segment. */
static long resolve_default(const struct menu *m, const char *path, int depth)
{
	char *seg, *end;
	const struct mitem *it = NULL;
	unsigned long k;
	long r;

	if (!m || !m->n || depth >= G_MAX_NEST)
		return -1;
	if (!(seg = next_seg(&path)))
		return -1;
	errno = 0;
	k = strtoul(seg, &end, 10);
	if (*seg && !*end && !errno && isdigit((unsigned char)seg[0])) {
		it = k < m->n ? &m->v[k] : NULL;
	} else {
		for (size_t i = 0; i < m->n && !it; i++)
			if (m->v[i].id && !strcmp(m->v[i].id, seg))
				it = &m->v[i];
		for (size_t i = 0; i < m->n && !it; i++)
			if (!strcmp(m->v[i].title, seg))
				it = &m->v[i];
	}
	free(seg);
	if (!it)
		return -1;
	if (it->kind != M_SUBMENU)
		return it->flat;
	/* into the submenu: its default is the rest of the path, else 0 */
	r = *path ? resolve_default(it->sub, path, depth + 1) : -1;
	if (r < 0)
		r = resolve_default(it->sub, "0", depth + 1);
	return r;
}

/* ------------------------------------------------------------------ */
/* entry points                                                        */

static void interp_free(struct interp *ip);

static void menu_free(struct menu *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].title);
		free(m->v[i].id);
		free(m->v[i].source);
		sv_free(&m->v[i].args);
		if (m->v[i].sub) {
			menu_free(m->v[i].sub);
			free(m->v[i].sub);
		}
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static void interp_free(struct interp *ip)
{
	env_free(ip->env);
	for (size_t i = 0; i < ip->nfuncs; i++)
		free(ip->funcs[i].name);
	menu_free(&ip->top);
	while (ip->scripts) {
		struct script *s = ip->scripts;

		ip->scripts = s->next;
		list_free(&s->top);
		free(s->name);
		free(s);
	}
}

static int parse_main(const struct lb_fsset *all, const struct lb_fs *fs,
		      const char *name, const char *path, const char *buf,
		      size_t len, struct lb_entries *out, struct lb_grub_info *info)
{
	struct interp ip;
	struct lb_entries res = LB_ENTRIES_INIT;
	struct sv main_pos = { 0 };
	char dir[4200], *slash;
	const char *dev = fs ? dev_value(fs) : NULL;
	long def;
	int r = 0;

	memset(&ip, 0, sizeof(ip));
	ip.all = all;
	ip.cfgfs = fs;
	ip.out = &res;
	ip.cur = &ip.top;
	ip.pos = &main_pos;
	if (!(ip.env = calloc(1, sizeof(*ip.env))))
		return -ENOMEM;
	/* what GRUB's core and normal mode define before grub.cfg runs */
	snprintf(dir, sizeof(dir), "%s", path ? path : "/boot/grub/grub.cfg");
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (!dir[0])
		strcpy(dir, "/");
	{
		static const char *const feat[] = {
			"feature_chainloader_bpb", "feature_ntldr", "feature_platform_search_hint",
			"feature_default_font_path", "feature_all_video_module",
			"feature_menuentry_id", "feature_menuentry_options",
			"feature_200_final", "feature_nativedisk_cmd", "feature_timeout_style",
			NULL
		};
		char pfx[4400];

		for (int i = 0; feat[i]; i++)
			setvar(&ip, feat[i], "y");
		setvar(&ip, "grub_platform", "efi");
		setvar(&ip, "grub_cpu", "x86_64");
		setvar(&ip, "pager", "");
		if (dev) {
			setvar(&ip, "root", dev);
			snprintf(pfx, sizeof(pfx), "(%s)%s", dev, strcmp(dir, "/") ? dir : "");
		} else {
			snprintf(pfx, sizeof(pfx), "%s", strcmp(dir, "/") ? dir : "");
		}
		setvar(&ip, "prefix", pfx);
		setvar(&ip, "cmdpath", pfx);
		setvar(&ip, "config_directory", pfx);
		snprintf(pfx + strlen(pfx), sizeof(pfx) - strlen(pfx), "/%s",
			 slash ? slash + 1 : name);
		setvar(&ip, "config_file", pfx);
		for (size_t i = 0; i < ip.env->n; i++)
			if (!strcmp(ip.env->v[i].name, "root") ||
			    !strcmp(ip.env->v[i].name, "prefix") ||
			    !strncmp(ip.env->v[i].name, "feature_", 8) ||
			    !strcmp(ip.env->v[i].name, "grub_platform") ||
			    !strcmp(ip.env->v[i].name, "grub_cpu") ||
			    !strcmp(ip.env->v[i].name, "config_directory") ||
			    !strcmp(ip.env->v[i].name, "config_file") ||
			    !strcmp(ip.env->v[i].name, "cmdpath"))
				ip.env->v[i].exp = 1;
	}
	r = run_script_buf(&ip, name, buf, len, NULL);
	if (!ip.oom) {
		const char *t = getvar(&ip, "timeout"), *d;
		long long tv;

		if (t && is_int(t, &tv) && tv >= 0 && tv <= INT_MAX)
			res.timeout = (int)tv;
		/* the menu gets a budget of its own */
		ip.fatal = 0;
		ip.steps = 0;
		ip.work = 0;
		ip.cur = NULL;
		run_menu(&ip, &ip.top, NULL, &res);
		d = getvar(&ip, "default");
		def = d && *d ? resolve_default(&ip.top, d, 0) : -1;
		if (def < 0 && d && *d)
			msg(&ip, name, 0, "default '%s' not found, using the first entry", d);
		if (def < 0)
			def = resolve_default(&ip.top, "0", 0);
		if (def < 0)
			def = first_entry(&ip.top, 0);
		if (def >= 0 && (size_t)def < res.n)
			lb_entries_set_default(&res, (size_t)def);
	}
	if (ip.oom)
		r = -ENOMEM;
	if (info)
		info->ran_blscfg = ip.ran_blscfg;
	sv_free(&main_pos);
	interp_free(&ip);
	if (!r)
		r = lb_entries_append(out, &res);
	lb_entries_free(&res);
	return r;
}

int lb_grub_parse_buf(const struct lb_fsset *all, const struct lb_fs *fs,
		      const char *name, const char *buf, size_t len,
		      struct lb_entries *out)
{
	if (!name || (!buf && len) || !out)
		return -EINVAL;
	if (len > LB_FS_MAX_CONFIG)
		return -EFBIG;
	return parse_main(all, fs, name, NULL, buf ? buf : "", len, out, NULL);
}

int lb_grub_parse(const struct lb_fsset *all, const struct lb_fs *fs,
		  const char *path, struct lb_entries *out,
		  struct lb_grub_info *info)
{
	char *buf;
	size_t len;
	int r;

	if (info)
		memset(info, 0, sizeof(*info));
	if (!fs || !path || !out)
		return -EINVAL;
	r = lb_fs_read(fs, path, LB_FS_MAX_CONFIG, &buf, &len);
	if (r)
		return r;
	r = parse_main(all, fs, path, path, buf, len, out, info);
	free(buf);
	return r;
}
