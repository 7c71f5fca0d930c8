/*
 * GRUB script evaluation: variables and contexts, word expansion, GRUB
 * device names and paths, the step/work budgets, and the execution of the
 * syntax tree (commands dispatch through grub_cmds.c's table).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "grub_int.h"

/* ------------------------------------------------------------------ */
/* interpreter state                                                   */

void g_msg(struct interp *ip, const char *file, int line, const char *fmt, ...)
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

void g_env_free(struct env *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		if (e->v[i].own & V_NAME)
			free(e->v[i].name);
		if (e->v[i].own & V_VAL)
			free(e->v[i].val);
	}
	free(e->v);
	free(e);
}

struct var *g_env_find(struct env *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (g_streq(e->v[i].name, name))
			return &e->v[i];
	return NULL;
}

const char *g_getvar(struct interp *ip, const char *name)
{
	struct var *v = g_env_find(ip->env, name);

	return v ? v->val : NULL;
}

/* Set name to val in e (see G_ENV_* for flags). */
int g_env_add(struct env *e, const char *name, const char *val, unsigned flags, int *oom)
{
	struct var *v = flags & G_ENV_NEW ? NULL : g_env_find(e, name);
	int lname = !!(flags & G_ENV_LIT_NAME), lval = !!(flags & G_ENV_LIT_VAL);
	char *c;
	size_t cap;

	size_t vl = strlen(val), old = v ? strlen(v->val) : 0;
	size_t add = vl + (v ? 0 : strlen(name) + 2);

	if (vl > G_MAX_VAL || e->bytes - old + add > G_MAX_ENV_BYTES)
		return -E2BIG;
	if (v && !lval && (v->own & V_VAL) && vl < v->vcap &&
	    v->vcap <= 2 * (vl + 1) + G_VAL_MIN) {
		/* a value of its own with room, not much more than it needs
		 * (what the buffers hold stays within twice what the
		 * environment's cap counts): rewritten in place, as the exit
		 * status and loop variables are on every command */
		memmove(v->val, val, vl + 1);
		e->bytes = e->bytes - old + vl;
		return 0;
	}
	cap = vl + 1 < G_VAL_MIN ? G_VAL_MIN : vl + 1;
	if (lval)
		c = (char *)val;
	else if ((c = malloc(cap)))
		memcpy(c, val, vl + 1);
	if (!c) {
		*oom = 1;
		return -ENOMEM;
	}
	if (v) {
		if (v->own & V_VAL)
			free(v->val);
		v->val = c;
		v->own = (v->own & ~V_VAL) | (lval ? 0 : V_VAL);
		v->vcap = lval ? 0 : cap;
		e->bytes = e->bytes - old + vl;
		return 0;
	}
	if (e->n >= g_lim.vars) {
		if (!lval)
			free(c);
		return -E2BIG;
	}
	if (e->n == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 32;
		struct var *nv = realloc(e->v, nc * sizeof(*nv));

		if (!nv) {
			if (!lval)
				free(c);
			*oom = 1;
			return -ENOMEM;
		}
		e->v = nv;
		e->cap = nc;
	}
	v = &e->v[e->n];
	if (!(v->name = lname ? (char *)name : strdup(name))) {
		if (!lval)
			free(c);
		*oom = 1;
		return -ENOMEM;
	}
	v->val = c;
	v->exp = !!(flags & G_ENV_EXPORT);
	v->own = (lname ? 0 : V_NAME) | (lval ? 0 : V_VAL);
	v->vcap = lval ? 0 : cap;
	e->n++;
	e->bytes += add;
	return 0;
}

int g_setvar(struct interp *ip, const char *name, const char *val)
{
	return g_env_add(ip->env, name, val, 0, &ip->oom);
}

void g_unsetvar(struct interp *ip, const char *name)
{
	struct var *v = g_env_find(ip->env, name);

	if (!v)
		return;
	ip->env->bytes -= strlen(v->name) + 2 + strlen(v->val);
	if (v->own & V_NAME)
		free(v->name);
	if (v->own & V_VAL)
		free(v->val);
	*v = ip->env->v[--ip->env->n];
}

/* A copy of e: all variables, or only the exported ones, in the same
 * order. The copy borrows e's strings (struct var): e must outlive it and
 * stay unchanged meanwhile, as the environment a menu entry runs in is
 * copied from does (run_menu). Setting a variable of the copy gives it a
 * value of its own; unsetting one leaves e's alone. What the copy counts
 * against the caps is what setting each variable in turn would count. */
struct env *g_env_clone(struct env *e, int exported_only, int *oom)
{
	struct env *c = calloc(1, sizeof(*c));
	size_t n = 0, cap = 32;

	if (!c) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < e->n; i++)
		n += !exported_only || e->v[i].exp;
	while (cap < n)
		cap *= 2;
	if (n && !(c->v = malloc(cap * sizeof(*c->v)))) {
		free(c);
		*oom = 1;
		return NULL;
	}
	c->cap = n ? cap : 0;
	for (size_t i = 0; i < e->n; i++) {
		struct var *v;

		if (exported_only && !e->v[i].exp)
			continue;
		v = &c->v[c->n++];
		*v = e->v[i];
		v->own = 0;
		v->vcap = 0;
		c->bytes += strlen(v->name) + 2 + strlen(v->val);
	}
	return c;
}

int g_valid_name(const char *s)
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

/* The value of a variable (special names included), in pieces handed to
 * emit (the positional parameters of $@ and $* one by one, with the
 * blanks between them). */
typedef void emit_fn(void *ctx, const char *s, size_t n);

static void var_pieces(struct interp *ip, const char *name, emit_fn *emit, void *ctx)
{
	char num[24];

	if (g_streq(name, "?")) {
		snprintf(num, sizeof(num), "%d", ip->status);
		emit(ctx, num, strlen(num));
	} else if (g_streq(name, "#")) {
		snprintf(num, sizeof(num), "%zu", ip->pos ? ip->pos->n : 0);
		emit(ctx, num, strlen(num));
	} else if (g_streq(name, "@") || g_streq(name, "*")) {
		for (size_t i = 0; ip->pos && i < ip->pos->n; i++) {
			if (i)
				emit(ctx, " ", 1);
			emit(ctx, ip->pos->v[i], strlen(ip->pos->v[i]));
		}
	} else if (isdigit((unsigned char)name[0])) {
		char *end;
		unsigned long k = strtoul(name, &end, 10);

		if (!*end && k >= 1 && ip->pos && k <= ip->pos->n)
			emit(ctx, ip->pos->v[k - 1], strlen(ip->pos->v[k - 1]));
	} else {
		const char *v = g_getvar(ip, name);

		if (v)
			emit(ctx, v, strlen(v));
	}
}

static void emit_sb(void *ctx, const char *s, size_t n)
{
	sb_putn(ctx, s, n);
}

static void emit_len(void *ctx, const char *s, size_t n)
{
	size_t *len = ctx;

	*len = n > SIZE_MAX - *len ? SIZE_MAX : *len + n;
}

/* An unquoted expansion: fields split on blanks and newlines. */
struct split {
	struct sb *cur;
	struct sv *out;
	int have;
};

static void emit_split(void *ctx, const char *s, size_t n)
{
	struct split *x = ctx;

	for (size_t k = 0; k < n;) {
		size_t run = 0;

		if (g_ctype[(unsigned char)s[k]] & (G_C_BLANK | G_C_NL)) {
			if (x->have || x->cur->n) {
				sv_push(x->out, sb_take(x->cur));
				x->have = 0;
			}
			k++;
			continue;
		}
		while (k + run < n && !(g_ctype[(unsigned char)s[k + run]] & (G_C_BLANK | G_C_NL)))
			run++;
		sb_putn(x->cur, s + k, run);
		x->have = 1;
		k += run;
	}
}

/* Value of a variable (special names included) appended to b. */
static void var_value(struct interp *ip, const char *name, struct sb *b)
{
	var_pieces(ip, name, emit_sb, b);
}

/* "\\xHH" with two hex digits at s */
int g_is_hex_esc(const char *s)
{
	return s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
	       isxdigit((unsigned char)s[3]);
}

/* Expand one raw word into fields (unquoted expansions are split on
 * blanks, as GRUB does). */
static void expand_word(struct interp *ip, const char *w, struct sv *out)
{
	struct sb cur = { .ar = out->ar };
	int have = 0;
	size_t i = 0, n = strlen(w);
	char name[128];

	while (i < n) {
		char c = w[i];

		if (c == '\\') {
			/* GRUB (as RHEL/Fedora build it) keeps \xHH as written for
			 * the kernel to decode (LABEL=CentOS\x207); any other
			 * escaped character stands for itself */
			if (g_is_hex_esc(w + i)) {
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
				size_t j = i;

				/* a run without \\, $ or the closing quote at once */
				while (j < n && !(g_ctype[(unsigned char)w[j]] & G_C_DQ))
					j++;
				if (j > i) {
					sb_putn(&cur, w + i, j - i);
					i = j;
					continue;
				}
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
			size_t len = 0;

			if (used) {
				var_pieces(ip, name, emit_len, &len);
				if (len <= G_MAX_WORD) {
					/* fields straight from the value's pieces */
					struct split x = { &cur, out, have };

					var_pieces(ip, name, emit_split, &x);
					have = x.have;
				} else {
					/* the whole value first, as it always was: too
					 * long for a word, so the field fails */
					struct sb v = { 0 };
					struct split x = { &cur, out, have };

					var_value(ip, name, &v);
					if (v.err && !cur.err)
						cur.err = v.err;
					emit_split(&x, v.s, v.n);
					have = x.have;
					free(v.s);
				}
				i += used;
				continue;
			}
		}
		/* a run of characters without quotes or expansions at once */
		{
			size_t j = i + 1;

			j += g_span(w + j, n - j, G_C_EXP);
			sb_putn(&cur, w + i, j - i);
			have = 1;
			i = j;
		}
	}
	if (cur.err) {
		if (!out->err)
			out->err = cur.err;
		if (!cur.ar)
			free(cur.s);
		return;
	}
	if (have)
		sv_push(out, sb_take(&cur));
	else if (!cur.ar)
		free(cur.s);
}

int g_expand_words(struct interp *ip, char *const *w, size_t n, struct sv *out)
{
	for (size_t i = 0; i < n && !out->err; i++)
		expand_word(ip, w[i], out);
	if (out->err == -ENOMEM)
		ip->oom = 1;
	/* a failed expansion cost up to the cap as well */
	if (g_work(ip, out->err ? G_MAX_CMD_BYTES : out->bytes) && !out->err)
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
size_t g_n_cands(struct interp *ip)
{
	size_t n = ip->all ? ip->all->n : 0;
	int in = 0;

	for (size_t i = 0; i < n; i++)
		if (&ip->all->v[i] == ip->cfgfs)
			in = 1;
	return n + (ip->cfgfs && !in ? 1 : 0);
}

const struct lb_fs *g_cand(struct interp *ip, size_t i)
{
	size_t n = ip->all ? ip->all->n : 0;

	return i < n ? &ip->all->v[i] : ip->cfgfs;
}

/* Look up a device name ("hd0,gpt2", a uuid, label, name); NULL if none.
 * Parentheses are stripped. */
const struct lb_fs *g_find_dev(struct interp *ip, const char *dev)
{
	char buf[512];
	size_t n = strlen(dev), nc = g_n_cands(ip);

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
		if (g_cand(ip, i)->grub && grub_dev_eq(g_cand(ip, i)->grub, buf))
			return g_cand(ip, i);
	for (size_t i = 0; i < nc; i++)
		if (fs_matches(g_cand(ip, i), buf))
			return g_cand(ip, i);
	return NULL;
}

/* The value that names fs in $root after `search --set`. */
const char *g_dev_value(const struct lb_fs *f)
{
	return f->grub ? f->grub : lb_fs_ident(f);
}

/* Split "(dev)/path" or "/path" (on $root) and find the filesystem. An
 * unknown device name falls back to the config's filesystem, as the
 * numbering of GRUB devices is unknown here (dev_unknown says so). */
int g_resolve_path(struct interp *ip, const char *s, struct gpath *g)
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
		root = g_getvar(ip, "root");
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
		g->fs = g_find_dev(ip, g->dev);
	if (!g->fs) {
		g->dev_unknown = g->dev[0] != 0;
		g->fs = ip->cfgfs;
	}
	/* SUSE's GRUB: with btrfs_relative_path set, paths on a btrfs are
	 * relative to its default subvolume, and lboot mounts the top level
	 * (fs->subvol says where the default one is). A path already inside
	 * it ($prefix as lboot sets it from the config's place) stays. */
	root = g_getvar(ip, "btrfs_relative_path");
	if (g->fs && g->fs->subvol && g->fs->subvol[0] == '/' && root &&
	    (!strcmp(root, "y") || !strcmp(root, "yes") || !strcmp(root, "1") ||
	     !strcmp(root, "true"))) {
		size_t sl = strlen(g->fs->subvol);

		while (sl > 1 && g->fs->subvol[sl - 1] == '/')
			sl--;
		if (!(!strncmp(g->path, g->fs->subvol, sl) &&
		      (g->path[sl] == '/' || !g->path[sl]))) {
			if (sl + dl >= sizeof(g->path))
				return -ENAMETOOLONG;
			memmove(g->path + sl, g->path, dl + 1);
			memcpy(g->path, g->fs->subvol, sl);
		}
	}
	return 0;
}

int g_path_stat(struct interp *ip, const char *s, struct stat *st)
{
	struct gpath g;

	if (g_resolve_path(ip, s, &g) || !g.fs)
		return -ENOENT;
	return lb_fs_stat(g.fs, g.path, st);
}

/* ------------------------------------------------------------------ */
/* evaluation                                                          */

/* The budgets that bound a phase's time: G_MAX_* unless a fuzzer lowered
 * them (lb_grub_fuzz_steps); never raised. */
#define G_LIMITS_DEFAULT { G_MAX_STEPS, G_MAX_LOOP, G_MAX_ITEMS, G_MAX_WORK, G_MAX_VARS }
struct g_limits g_lim = G_LIMITS_DEFAULT;

/* max scaled by steps / G_MAX_STEPS, at least min */
static size_t scaled(size_t max, long steps, size_t min)
{
	size_t v = (size_t)steps * max / G_MAX_STEPS;

	return v < min ? min : v;
}

void lb_grub_fuzz_steps(long steps)
{
	if (steps <= 0 || steps >= G_MAX_STEPS) {
		g_lim = (struct g_limits)G_LIMITS_DEFAULT;
		return;
	}
	/* in proportion, so that a loop of two commands and a menu of
	 * entries still reach their caps within the command budget; the
	 * expansion budget never below twice the largest command or
	 * environment, so those caps stay reachable; at least 128
	 * variables, more than a real config sets (the fixture's grub.cfg
	 * files set 25) */
	g_lim.steps = steps;
	g_lim.loop = scaled(G_MAX_LOOP, steps, 1);
	g_lim.items = scaled(G_MAX_ITEMS, steps, 1);
	g_lim.work = scaled(G_MAX_WORK, steps,
			    2 * (G_MAX_CMD_BYTES > G_MAX_ENV_BYTES ? G_MAX_CMD_BYTES : G_MAX_ENV_BYTES));
	g_lim.vars = scaled(G_MAX_VARS, steps, 128);
}

int g_budget(struct interp *ip)
{
	if (ip->fatal)
		return 0;
	if (ip->oom) {
		ip->fatal = 1;
		return 0;
	}
	if (++ip->steps > g_lim.steps) {
		if (!ip->warned_budget) {
			ip->warned_budget = 1;
			g_msg(ip, ip->file, ip->line, "evaluation stopped after %ld commands",
			    g_lim.steps);
		}
		ip->fatal = 1;
		return 0;
	}
	return 1;
}

/* Account bytes expanded or copied; past the budget (G_MAX_WORK)
 * evaluation stops (bounds the time a hostile config can take). Returns
 * nonzero then. */
int g_work(struct interp *ip, size_t bytes)
{
	ip->work += bytes;
	if (ip->work <= g_lim.work)
		return 0;
	if (!ip->warned_work) {
		ip->warned_work = 1;
		if (g_lim.work & ((1u << 20) - 1))
			g_msg(ip, ip->file, ip->line, "evaluation stopped after %zu KiB of expansions",
			    g_lim.work >> 10);
		else
			g_msg(ip, ip->file, ip->line, "evaluation stopped after %zu MiB of expansions",
			    g_lim.work >> 20);
	}
	ip->fatal = 1;
	return 1;
}

struct func *g_find_func(struct interp *ip, const char *name)
{
	for (size_t i = 0; i < ip->nfuncs; i++)
		if (g_streq(ip->funcs[i].name, name))
			return &ip->funcs[i];
	return NULL;
}

int g_is_int(const char *s, long long *v)
{
	char *e;

	errno = 0;
	*v = strtoll(s, &e, 10);
	return *s && !*e && !errno;
}

/* A simple command: a builtin from the command table, else a function,
 * else `name=value`; an unknown command fails (GRUB reports it and goes
 * on). */
static int exec_simple(struct interp *ip, struct node *nd)
{
	struct lb_arena_mark m = lb_arena_mark(&ip->ar);
	struct sv w = { .ar = &ip->ar };
	const struct g_cmd *cmd;
	struct func *fn;
	char *eq;
	int r;

	if (g_expand_words(ip, nd->w.v, nd->w.n, &w)) {
		if (w.err != -ENOMEM)
			g_msg(ip, nd->file, nd->line, "command too long");
		r = 1;
	} else if (!w.n) {
		r = 0;
	} else if ((cmd = ip->cmd_find(w.v[0]))) {
		r = cmd->fn(ip, nd, w.v, w.n);
	} else if ((fn = g_find_func(ip, w.v[0]))) {
		r = g_call_func(ip, fn, w.v, w.n);
	} else if (w.n == 1 && (eq = strchr(w.v[0], '=')) && eq != w.v[0]) {
		*eq = 0;
		r = g_valid_name(w.v[0]) && !g_setvar(ip, w.v[0], eq + 1) ? 0 : 1;
	} else {
		r = 1;
	}
	sv_free(&w);
	lb_arena_release(&ip->ar, m);
	return r;
}

int g_call_func(struct interp *ip, struct func *f, char **a, size_t n)
{
	struct lb_arena_mark m = lb_arena_mark(&ip->ar);
	struct sv pos = { .ar = &ip->ar }, *save = ip->pos;
	int r, save_loop = ip->loop_depth;

	if (ip->depth >= G_MAX_NEST) {
		g_msg(ip, f->def->file, f->def->line, "function %s: recursion too deep", f->name);
		return 1;
	}
	for (size_t i = 1; i < n; i++)
		sv_pushdup(&pos, a[i]);
	if (pos.err) {
		sv_free(&pos);
		lb_arena_release(&ip->ar, m);
		return 1;
	}
	ip->pos = &pos;
	ip->depth++;
	ip->loop_depth = 0;
	r = g_exec_list(ip, &f->def->body);
	ip->loop_depth = save_loop;
	ip->depth--;
	if (ip->flow == F_RETURN) {
		ip->flow = F_NONE;
		r = ip->status;
	}
	ip->flow = F_NONE;
	ip->pos = save;
	sv_free(&pos); /* setparams may have made it malloc'd strings */
	lb_arena_release(&ip->ar, m);
	return r;
}

static int define_func(struct interp *ip, struct node *nd)
{
	const char *name = nd->w.v[0];
	struct func *f = g_find_func(ip, name);

	if (f) {
		f->def = nd;
		return 0;
	}
	if (ip->nfuncs >= G_MAX_FUNCS) {
		g_msg(ip, nd->file, nd->line, "too many functions");
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

int g_exec_node(struct interp *ip, struct node *nd)
{
	int r = 0;

	if (!g_budget(ip))
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
			int c = g_exec_list(ip, &nd->arms[i].cond);

			if (ip->flow != F_NONE || ip->fatal)
				return c;
			if (!c) {
				r = g_exec_list(ip, &nd->arms[i].body);
				break;
			}
		}
		if (i == nd->narms && nd->has_else)
			r = g_exec_list(ip, &nd->body);
		break;
	}
	case N_FOR: {
		struct lb_arena_mark m = lb_arena_mark(&ip->ar);
		struct sv vals = { .ar = &ip->ar };

		if (g_expand_words(ip, nd->w.v + 1, nd->w.n - 1, &vals)) {
			sv_free(&vals);
			lb_arena_release(&ip->ar, m);
			r = 1;
			break;
		}
		ip->loop_depth++;
		for (size_t i = 0; i < vals.n && i < g_lim.loop; i++) {
			g_setvar(ip, nd->w.v[0], vals.v[i]);
			r = g_exec_list(ip, &nd->body);
			if (loop_flow(ip))
				break;
		}
		ip->loop_depth--;
		sv_free(&vals);
		lb_arena_release(&ip->ar, m);
		break;
	}
	case N_WHILE:
	case N_UNTIL:
		ip->loop_depth++;
		for (long it = 0;; it++) {
			int c;

			if ((size_t)it >= g_lim.loop) {
				g_msg(ip, nd->file, nd->line, "loop stopped after %zu iterations",
				    g_lim.loop);
				break;
			}
			c = g_exec_list(ip, &nd->cond);
			if (ip->flow != F_NONE || ip->fatal)
				break;
			if ((nd->k == N_WHILE) != (c == 0))
				break;
			r = g_exec_list(ip, &nd->body);
			if (loop_flow(ip))
				break;
		}
		ip->loop_depth--;
		break;
	case N_FUNC:
		r = define_func(ip, nd);
		break;
	case N_MENU: {
		struct lb_arena_mark m = lb_arena_mark(&ip->ar);
		struct sv w = { .ar = &ip->ar };

		if (!g_expand_words(ip, nd->w.v, nd->w.n, &w))
			r = ip->cmd_menu(ip, nd, w.v, w.n);
		else
			r = 1;
		sv_free(&w);
		lb_arena_release(&ip->ar, m);
		break;
	}
	}
	ip->status = r;
	return r;
}

int g_exec_list(struct interp *ip, struct list *l)
{
	int r = 0;

	for (size_t i = 0; i < l->n; i++) {
		r = g_exec_node(ip, l->v[i]);
		if (ip->flow != F_NONE || ip->fatal)
			break;
	}
	return r;
}

struct script *g_new_script(struct interp *ip, const char *name)
{
	struct script *sc = calloc(1, sizeof(*sc));

	if (!sc || !(sc->name = strdup(name))) {
		free(sc);
		ip->oom = 1;
		return NULL;
	}
	sc->next = ip->scripts;
	ip->scripts = sc;
	return sc;
}

/* A syntax error of a top-level command, as g_run_script_buf reports it. */
struct g_perr {
	size_t before;  /* the number of commands parsed before it */
	int line, start_line;
	const char *why;
};

/* GRUB reads a config line by line into C strings: a NUL ends its line;
 * carriage returns are dropped here too (CRLF files). A malloc'd copy,
 * NUL terminated (the lexer relies on it), length in *cl. */
static char *clean_copy(const char *buf, size_t len, size_t *cl)
{
	char *clean = malloc(len + 1);
	size_t n = 0;

	if (!clean)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		size_t k = g_span(buf + i, len - i, G_C_RAW);

		/* a run kept as it is, at once */
		memcpy(clean + n, buf + i, k);
		n += k;
		i += k;
		if (i >= len || buf[i] == '\r')
			continue;
		/* NUL: the rest of its line is dropped */
		i += g_span(buf + i, len - i, G_C_NL) - 1;
	}
	clean[n] = 0;
	*cl = n;
	return clean;
}

/* A parser over the cleaned buffer, its tree in sc's arena. */
static void parser_init(struct parser *P, struct script *sc, const char *buf, size_t len)
{
	memset(P, 0, sizeof(*P));
	P->L.s = buf;
	P->L.n = len;
	P->L.line = 1;
	P->file = sc->name;
	/* chunks about the size a tree of this many bytes takes, 4 KiB to
	 * 32 KiB */
	lb_arena_chunk(&sc->ar, len < 1024 ? 4096 : len < 8192 ? 4 * len : 32768);
	P->L.ar = sc->top.ar = &sc->ar;
}

/* The next top-level command of P (a parser_init'd on sc): 1 with *nd, the
 * command appended to sc->top; 2 with a syntax error in *e, the command
 * skipped (from the line it starts on; parsing resumes on the next line,
 * as GRUB's line reader does); 0 at the end; -ENOMEM. A pure function of
 * the bytes: the interpreter's state plays no part. */
static int next_command(struct parser *P, struct script *sc, size_t *rescanned,
			struct node **nd, struct g_perr *e)
{
	const char *buf = P->L.s;
	size_t len = P->L.n;

	for (;;) {
		struct lb_arena_mark m;
		size_t start_i;
		int start_line, r;

		g_skip_nl(P);
		if (g_peek(&P->L) == T_EOF)
			return 0;
		start_line = P->L.tline;
		/* the offset of the line the command starts on */
		start_i = P->L.tstart;
		while (start_i > 0 && buf[start_i - 1] != '\n')
			start_i--;
		P->err = NULL;
		P->L.err = NULL;
		m = lb_arena_mark(&sc->ar);
		r = g_parse_command(P, nd);
		if (r == -ENOMEM)
			return r;
		if (r) {
			e->before = sc->top.n;
			e->line = P->errline ? P->errline : start_line;
			e->start_line = start_line;
			e->why = P->err ? P->err : "syntax error";
			/* Resume after the first line of the broken command, so
			 * one unclosed block does not swallow the rest of the
			 * file. Rescanning is bounded: past 4x the file, resume
			 * where the error was found, as GRUB's reader does.
			 * What the broken command took of the arena (and the
			 * lookahead word) is given back. */
			lb_arena_release(&sc->ar, m);
			P->L.w = NULL;
			P->L.have = 0;
			P->depth = 0;
			*rescanned += P->L.i > start_i ? P->L.i - start_i : 0;
			if (*rescanned > 4 * (size_t)len + 65536)
				return 2;
			P->L.i = start_i;
			while (P->L.i < len && buf[P->L.i] != '\n')
				P->L.i++;
			P->L.line = start_line;
			return 2;
		}
		if (g_list_push(&sc->top, *nd))
			return -ENOMEM;
		if (g_peek(&P->L) == T_SEMI)
			g_drop(&P->L);
		return 1;
	}
}

static void perr_msg(struct interp *ip, const char *name, const struct g_perr *e)
{
	g_msg(ip, name, e->line, "%s (command at line %d skipped)", e->why,
	      e->start_line);
}

static void run_top(struct interp *ip, struct node *nd)
{
	g_exec_node(ip, nd);
	if (ip->flow == F_RETURN && ip->depth == 0)
		ip->flow = F_NONE; /* `return` outside a function ends nothing */
	if (ip->flow == F_BREAK || ip->flow == F_CONTINUE)
		ip->flow = F_NONE;
}

/* --- parsed files kept across runs (fuzzing only) ---
 * lb_grub_fuzz_cache(1): a file that `source` or `configfile` reads is
 * parsed once per process and its tree kept, keyed by its path and its
 * bytes (compared whole): the fuzzing harness sources the same fixture
 * files in most runs, and parsing them was a seventh of its time. Parsing
 * is a pure function of the bytes, so a run that finds the file here
 * executes the same commands and reports the same syntax errors, in the
 * same order, as one that parses it. At most G_CACHE_FILES files of at
 * most G_CACHE_BYTES each, then no more (never evicted: the trees are
 * pointed to by functions and menu items of the runs). */
#define G_CACHE_FILES 16
#define G_CACHE_BYTES (256u << 10)

struct g_cached {
	struct script sc;    /* name, the commands (sc.top), their arena */
	char *buf;           /* the bytes as read */
	size_t len;
	struct g_perr *errs; /* the syntax errors, in order */
	size_t nerrs;
};

static int cache_on;
static struct g_cached *cache[G_CACHE_FILES];
static size_t ncache;

void lb_grub_fuzz_cache(int on)
{
	cache_on = on != 0;
}

static struct g_cached *cache_find(const char *name, const char *buf, size_t len)
{
	for (size_t i = 0; i < ncache; i++)
		if (cache[i]->len == len && !strcmp(cache[i]->sc.name, name) &&
		    !memcmp(cache[i]->buf, buf, len))
			return cache[i];
	return NULL;
}

/* Parse the whole file into a new cache slot; NULL when full or on ENOMEM
 * (the caller then parses as it runs, as without the cache). */
static struct g_cached *cache_add(const char *name, const char *buf, size_t len)
{
	struct g_cached *c;
	struct parser P;
	size_t cl, rescanned = 0;
	char *clean;
	int r;

	if (ncache >= G_CACHE_FILES || len > G_CACHE_BYTES)
		return NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	if (!(c->sc.name = strdup(name)) || !(c->buf = malloc(len ? len : 1)) ||
	    !(clean = clean_copy(buf, len, &cl)))
		goto fail;
	memcpy(c->buf, buf, len);
	c->len = len;
	parser_init(&P, &c->sc, clean, cl);
	for (;;) {
		struct node *nd;
		struct g_perr e;

		if ((r = next_command(&P, &c->sc, &rescanned, &nd, &e)) <= 0)
			break;
		if (r == 2) {
			void *v = realloc(c->errs, (c->nerrs + 1) * sizeof(e));

			if (!v) {
				r = -ENOMEM;
				break;
			}
			c->errs = v;
			c->errs[c->nerrs++] = e;
		}
	}
	free(clean);
	if (r)
		goto fail;
	cache[ncache++] = c;
	return c;
fail:
	lb_arena_free(&c->sc.ar);
	free(c->sc.name);
	free(c->buf);
	free(c->errs);
	free(c);
	return NULL;
}

/* Run a kept parse: its commands and syntax errors in file order, until
 * evaluation stops, as g_run_script_buf would. */
static void run_cached(struct interp *ip, const struct g_cached *c)
{
	size_t e = 0;

	for (size_t i = 0; i <= c->sc.top.n && !ip->fatal; i++) {
		for (; e < c->nerrs && c->errs[e].before == i && !ip->fatal; e++)
			perr_msg(ip, c->sc.name, &c->errs[e]);
		if (i < c->sc.top.n && !ip->fatal)
			run_top(ip, c->sc.top.v[i]);
	}
}

/* Parse a buffer into a kept script and run it, one top-level command at a
 * time; a syntax error skips the command (from the line it starts on) with
 * a message and parsing resumes on the next line, as GRUB's line reader
 * does. `file`: the bytes are a file's (source, configfile), which the
 * cache may hold (lb_grub_fuzz_cache). Returns 0, or negative errno
 * (ENOMEM, too many scripts). */
int g_run_script_buf(struct interp *ip, const char *name, const char *buf,
		     size_t len, int file)
{
	struct script *sc;
	struct parser P;
	char *clean;
	size_t cl, rescanned = 0;

	if (ip->nscripts >= G_MAX_SCRIPTS) {
		g_msg(ip, name, 0, "too many included files");
		return -E2BIG;
	}
	if (file && cache_on) {
		struct g_cached *c = cache_find(name, buf, len);

		if (c || (c = cache_add(name, buf, len))) {
			ip->nscripts++;
			run_cached(ip, c);
			return ip->oom ? -ENOMEM : 0;
		}
	}
	if (!(sc = g_new_script(ip, name)))
		return -ENOMEM;
	ip->nscripts++;
	if (!(clean = clean_copy(buf, len, &cl))) {
		ip->oom = 1;
		return -ENOMEM;
	}
	parser_init(&P, sc, clean, cl);
	while (!ip->fatal) {
		struct node *nd;
		struct g_perr e;
		int r = next_command(&P, sc, &rescanned, &nd, &e);

		if (r == -ENOMEM)
			ip->oom = 1;
		if (r <= 0)
			break;
		if (r == 2)
			perr_msg(ip, sc->name, &e);
		else
			run_top(ip, nd);
	}
	free(clean);
	return ip->oom ? -ENOMEM : 0;
}
