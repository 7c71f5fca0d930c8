/*
 * GRUB 2 configuration interpreter: the private interface of its files.
 *
 *   grub_lex.c    growable strings, the lexer (tokens of yylex.l)
 *   grub_parse.c  the parser: tokens -> syntax tree (struct node)
 *   grub_eval.c   variables, expansion, devices and paths, budgets,
 *                 execution of the tree (g_run_script_buf)
 *   grub_cmds.c   the builtins and their sorted table (g_cmd_find)
 *   grub_menu.c   menu items -> lb_entry records, defaults, entry points;
 *                 wires the builtins into the evaluator (ip->cmd_find), so
 *                 the files depend one way: menu -> cmds -> eval -> parse -> lex
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
 *  - blscfg as Fedora's: see cmd_blscfg; `blscfg` having run is reported
 *    (lb_grub_info) so the scan does not list the BLS entries twice.
 *  - words: "\xHH" is kept as written, as RHEL's and Fedora's GRUB do
 *    (the kernel or dracut decodes it); any other backslash escapes the
 *    next character.
 *  - the kernel command line is what GRUB's loader writes: BOOT_IMAGE=
 *    and the kernel's path as the linux command got it, then the linux
 *    arguments (grub_create_loader_cmdline): an argument holding a space
 *    in double quotes, backslashes and quotes escaped, \xHH as is.
 *    `linux (dev)` without a path,
 *    or an initrd line with more files than an entry holds, makes the entry
 *    skipped with a message, never booted without what GRUB would load.
 *
 * Library code: negative errno, never logs; everything skipped becomes a
 * "file:line: reason" message.
 */
#ifndef LB_GRUB_INT_H
#define LB_GRUB_INT_H

#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "entry.h"
#include "fs.h"
#include "grub.h"

#define LB_STR_(x) #x
#define LB_STR(x) LB_STR_(x)

/* caps */
#define G_MAX_SRC_DEPTH 8        /* source/configfile nesting */
#define G_MAX_NEST      64       /* parser nesting, call depth */
#define G_MAX_STEPS     20000    /* commands executed per phase (config, menu) */
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
#define G_VAL_MIN       16       /* a value's buffer at least (rewritten in place) */
#define G_MAX_CMD_BYTES (256u << 10) /* the expanded words of one command */
#define G_MAX_MSGS      256
#define G_MAX_WORK      (8u << 20)   /* bytes expanded and copied per phase */

/* The budgets of a phase in force: the G_MAX_* above, or lower ones a
 * fuzzer set (lb_grub_fuzz_steps). */
struct g_limits {
	long steps;   /* G_MAX_STEPS */
	size_t loop;  /* G_MAX_LOOP */
	size_t items; /* G_MAX_ITEMS */
	size_t work;  /* G_MAX_WORK */
	size_t vars;  /* G_MAX_VARS */
};
extern struct g_limits g_lim;

/* Growable string and string vector. With `ar` set they live in that
 * arena (the interpreter's scratch for expansions, see struct interp):
 * strings pushed must be from it too, and nothing is freed one by one. */
struct sb {
	char *s;
	size_t n, cap;
	int err;
	struct lb_arena *ar;
};

struct sv {
	char **v;
	size_t n, cap;
	size_t bytes; /* sum of the string lengths */
	int err;
	struct lb_arena *ar;
};

/* syntax tree */
enum nkind { N_CMD, N_IF, N_FOR, N_WHILE, N_UNTIL, N_FUNC, N_MENU };

enum mkind { M_ENTRY, M_SUBMENU, M_HIDDEN };

struct node;

/* With `ar` set, the list, its nodes and everything under them live in
 * that arena (a parsed script's, struct script): nothing is freed one by
 * one. Without, all is malloc'd (the bodies blscfg builds). */
struct list {
	struct node **v;
	size_t n, cap;
	struct lb_arena *ar;
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

/* one parsed file (or eval string, or the body built for a BLS entry),
 * kept alive while functions and menu items point into it */
struct script {
	char *name;
	struct list top;
	struct script *next;
	/* the syntax tree of a parsed file: its nodes, words and lists,
	 * freed with the script (struct list) */
	struct lb_arena ar;
};

/* lexer */
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
	/* words in this arena (the script's) when set, else malloc'd */
	struct lb_arena *ar;
};

struct parser {
	struct lexer L;
	const char *file;
	int depth;
	const char *err;
	int errline;
};

/* own: which strings the variable owns (V_NAME, V_VAL); a menu entry's
 * copy of the environment borrows the strings of the one it copies
 * (g_env_clone), which lives, unchanged, as long as the copy does. */
#define V_NAME 1
#define V_VAL  2
struct var {
	char *name, *val;
	int exp;
	int own;
	size_t vcap; /* with V_VAL: the bytes val's buffer holds, NUL included */
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

struct interp;
typedef int g_cmd_fn(struct interp *ip, struct node *nd, char **a, size_t n);
struct g_cmd {
	const char *name;
	g_cmd_fn *fn;
};

struct interp {
	/* The builtins (grub_cmds.c), wired in by grub_menu.c: the evaluator
	 * runs commands only through these two, so grub_eval.c does not
	 * depend on grub_cmds.c (which calls into the evaluator). */
	const struct g_cmd *(*cmd_find)(const char *name);
	g_cmd_fn *cmd_menu;
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
	size_t work;          /* see g_work() */
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
	struct lb_grub_info *info; /* gets save_env writes; may be NULL */
	/* Scratch for what lives as long as one command or call: expanded
	 * words and argument vectors, positional parameters. Taken and given
	 * back in stack order (lb_arena_mark/release around each command,
	 * loop and function call), so it holds no more than the expansions
	 * that are live at once, which G_MAX_WORK bounds per phase. */
	struct lb_arena ar;
};

struct gpath {
	const struct lb_fs *fs; /* NULL when the device is unknown */
	char dev[256];          /* the device as written (or $root) */
	char path[4096];
	int dev_unknown;
};

/* --- grub_lex.c --- */
void sb_putn(struct sb *b, const char *s, size_t n);
void sb_putc(struct sb *b, char c);
void sb_puts(struct sb *b, const char *s);
char *sb_take(struct sb *b);
void sv_push(struct sv *a, char *s);
/* Push a copy of s (in a->ar when set). */
void sv_pushdup(struct sv *a, const char *s);
/* Drop the first k strings. */
void sv_shift(struct sv *a, size_t k);
void sv_free(struct sv *a);
/* Character classes of the lexer and of field splitting, by table: a
 * byte's class is one load, not a chain of comparisons (under libFuzzer
 * every comparison is a traced call, and these run on every byte of a
 * script and of every expansion; docs/fuzzing.md). */
#define G_C_BLANK 1u /* ' ' \t \r \f \v: separates words and fields */
#define G_C_STOP  2u /* ends a run of plain word characters: NUL, blanks,
			 \n ; { } | & < > \\ ' " $ */
#define G_C_NL    4u /* \n: also separates fields */
#define G_C_EXP   8u /* \\ ' " $: start an escape, a quote or an expansion */
#define G_C_DQ   16u /* NUL \n " \\ $: not copied as is inside "..." */
#define G_C_RAW  32u /* NUL \r: what a config's lines lose (clean_copy) */
extern const unsigned char g_ctype[256];
/* How many bytes of s[0..n) come before the first with a class of mask
 * (g_span, like strcspn), or before the first without one (g_skip). Not
 * instrumented for coverage: scans whose per-byte comparisons guide no
 * fuzzer, and were a traced call each (docs/fuzzing.md). */
size_t g_span(const char *s, size_t n, unsigned mask);
size_t g_skip(const char *s, size_t n, unsigned mask);

static inline int g_is_blank(char c)
{
	return g_ctype[(unsigned char)c] & G_C_BLANK;
}

/* a equals b: the first bytes compared before strcmp is called. Keyword
 * and name lookups run for every word; under libFuzzer each strcmp is an
 * intercepted, traced call, and most words differ in the first byte. */
static inline int g_streq(const char *a, const char *b)
{
	return a[0] == b[0] && !strcmp(a, b);
}

enum tok g_peek(struct lexer *L);
char *g_take(struct lexer *L);
void g_drop(struct lexer *L);
int g_peek_is(struct lexer *L, const char *kw);

/* --- grub_parse.c --- */
void g_node_free(struct node *n);
void g_list_free(struct list *l);
int g_list_push(struct list *l, struct node *n);
void g_skip_nl(struct parser *P);
int g_parse_command(struct parser *P, struct node **out);

/* --- grub_eval.c --- */
void g_msg(struct interp *ip, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void g_env_free(struct env *e);
struct var *g_env_find(struct env *e, const char *name);
const char *g_getvar(struct interp *ip, const char *name);
/* g_env_add's flags: name or value a string literal, borrowed rather than
 * copied; name known not to be set yet (no lookup); exported */
#define G_ENV_LIT_NAME 1u
#define G_ENV_LIT_VAL  2u
#define G_ENV_NEW      4u
#define G_ENV_EXPORT   8u
int g_env_add(struct env *e, const char *name, const char *val, unsigned flags, int *oom);
int g_setvar(struct interp *ip, const char *name, const char *val);
void g_unsetvar(struct interp *ip, const char *name);
struct env *g_env_clone(struct env *e, int exported_only, int *oom);
int g_valid_name(const char *s);
int g_is_int(const char *s, long long *v);
int g_is_hex_esc(const char *s);
int g_expand_words(struct interp *ip, char *const *w, size_t n, struct sv *out);
size_t g_n_cands(struct interp *ip);
const struct lb_fs *g_cand(struct interp *ip, size_t i);
const struct lb_fs *g_find_dev(struct interp *ip, const char *dev);
const char *g_dev_value(const struct lb_fs *f);
int g_resolve_path(struct interp *ip, const char *s, struct gpath *g);
int g_path_stat(struct interp *ip, const char *s, struct stat *st);
int g_work(struct interp *ip, size_t bytes);
/* Count one command against the step budget; 0 when evaluation stops. */
int g_budget(struct interp *ip);
/* A new script (owner of nodes) named name, freed with the interpreter. */
struct script *g_new_script(struct interp *ip, const char *name);
struct func *g_find_func(struct interp *ip, const char *name);
int g_call_func(struct interp *ip, struct func *f, char **a, size_t n);
int g_exec_node(struct interp *ip, struct node *nd);
int g_exec_list(struct interp *ip, struct list *l);
int g_run_script_buf(struct interp *ip, const char *name, const char *buf,
		     size_t len, int file);

/* --- grub_cmds.c --- */
/* The builtin named `name`, NULL if none (binary search in the table). */
const struct g_cmd *g_cmd_find(const char *name);
/* The whole table (sorted by strcmp), for tests. */
const struct g_cmd *g_cmd_table(size_t *n);
int g_cmd_menu(struct interp *ip, struct node *nd, char **a, size_t n);

#endif
