/*
 * GRUB builtin commands: test/[, grubenv, search/probe, the loaders an
 * entry body runs (linux, initrd, devicetree), menuentry/submenu, blscfg,
 * source/configfile/eval, and the sorted command table exec_simple looks
 * names up in.
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
#include "grub_int.h"

/* --- test / [ --- */

struct texpr {
	struct interp *ip;
	char **a;
	size_t n, i;
	int depth;
};

static int t_or(struct texpr *t);

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
			int ea = g_path_stat(t->ip, a, &sa), eb = g_path_stat(t->ip, b, &sbb);

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
			return !g_path_stat(t->ip, b, &st);
		case 'f':
			return !g_path_stat(t->ip, b, &st) && S_ISREG(st.st_mode);
		case 'd':
			return !g_path_stat(t->ip, b, &st) && S_ISDIR(st.st_mode);
		case 's':
			/* GRUB opens the file: a directory or an empty name is
			 * false */
			return *b && !g_path_stat(t->ip, b, &st) && S_ISREG(st.st_mode) &&
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

	if (g_resolve_path(ip, file, &g) || !g.fs)
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
		if (has_eq && !name.err && !val.err && name.s && g_valid_name(name.s)) {
			int ok = !n_only;

			for (size_t k = 0; k < n_only; k++)
				if (!strcmp(only[k], name.s))
					ok = 1;
			if (ok)
				g_setvar(ip, name.s, val.s ? val.s : "");
		}
		free(name.s);
		free(val.s);
	}
	free(buf);
	return 0;
}

/* load_env/save_env [-f FILE] [-s] VAR...: the file (-f, else
 * $prefix/grubenv; *alloc to free) and the index of the first VAR. */
static int env_args(struct interp *ip, char **a, size_t n, const char **file,
		    char **alloc, size_t *first)
{
	size_t i;

	*file = NULL;
	*alloc = NULL;
	for (i = 1; i < n; i++) {
		if ((!strcmp(a[i], "-f") || !strcmp(a[i], "--file")) && i + 1 < n)
			*file = a[++i];
		else if (!strncmp(a[i], "--file=", 7))
			*file = a[i] + 7;
		else if (!strcmp(a[i], "-s") || !strcmp(a[i], "--skip-sig"))
			;
		else
			break;
	}
	*first = i;
	if (!*file) {
		const char *prefix = g_getvar(ip, "prefix");

		if (!prefix || asprintf(alloc, "%s/grubenv", prefix) < 0)
			return 1;
		*file = *alloc;
	}
	return 0;
}

static int cmd_load_env(struct interp *ip, char **a, size_t n)
{
	const char *file;
	char *deffile;
	size_t i;
	int r;

	if (env_args(ip, a, n, &file, &deffile, &i))
		return 1;
	r = load_envblk(ip, file, a + i, n - i);
	free(deffile);
	return r;
}

/* save_env [-f FILE] VAR...: recorded with the values the variables have
 * now (unset: empty), for the boot flow to write; the last save of a
 * variable to a file wins, as the file would hold it. */
static int cmd_save_env(struct interp *ip, char **a, size_t n)
{
	struct lb_grub_save *sv = NULL;
	const char *file;
	char *deffile;
	struct gpath g;
	size_t i;

	if (!ip->info)
		return 0;
	if (env_args(ip, a, n, &file, &deffile, &i))
		return 1;
	if (g_resolve_path(ip, file, &g) || !g.fs || strlen(g.path) >= sizeof(sv->path)) {
		free(deffile);
		return 1;
	}
	free(deffile);
	for (size_t k = 0; k < ip->info->n_save && !sv; k++)
		if (ip->info->save[k].fs == g.fs && !strcmp(ip->info->save[k].path, g.path))
			sv = &ip->info->save[k];
	if (!sv) {
		if (ip->info->n_save >= sizeof(ip->info->save) / sizeof(ip->info->save[0]))
			return 1;
		sv = &ip->info->save[ip->info->n_save++];
		sv->fs = g.fs;
		memcpy(sv->path, g.path, strlen(g.path) + 1);
	}
	for (; i < n; i++) {
		const char *v = g_getvar(ip, a[i]);
		size_t k;
		char *nv;

		if (!g_valid_name(a[i]))
			continue;
		for (k = 0; k < sv->n && strcmp(sv->name[k], a[i]); k++)
			;
		if (k == sv->n) {
			if (sv->n >= LB_GRUB_MAX_SAVES || !(sv->name[k] = strdup(a[i])))
				return 1;
			sv->value[k] = NULL;
			sv->n++;
		}
		if (!(nv = strdup(v ? v : "")))
			return 1;
		free(sv->value[k]);
		sv->value[k] = nv;
	}
	return 0;
}

static int c_save_env(struct interp *ip, struct node *nd, char **a, size_t n)
{
	(void)nd;
	return cmd_save_env(ip, a, n);
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
	size_t nc = g_n_cands(ip), npos = 0;
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
			const struct lb_fs *f = pass ? g_cand(ip, i) : g_find_dev(ip, hints.v[i]);
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
		if (setv && g_valid_name(setv))
			g_setvar(ip, setv, g_dev_value(found));
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
	if (!dev || !(f = g_find_dev(ip, dev)))
		return 1;
	val = what == 'u' ? f->uuid : what == 'l' ? f->label :
	      what == 'f' ? f->fstype : what == 'a' ? f->partuuid : NULL;
	if (!val)
		return 1;
	if (setv && g_valid_name(setv))
		g_setvar(ip, setv, val);
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
		if (g_is_hex_esc(a)) {
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
/* GRUB writes a '"' inside an argument as \" but the kernel's parser
 * (lib/cmdline.c next_arg) knows no escape: every '"' toggles quoting, so
 * such an argument splits in two, or swallows the arguments after it (a
 * filesystem label `x" init=/bin/sh "` in root=LABEL=$label adds
 * init=/bin/sh). The kernel has no way to receive a '"' inside one
 * argument: the entry is not booted. */
static const char bad_quote[] = "a kernel argument holds a double quote (\"), which the kernel's "
				"command line parser would split or join with the next arguments";
static const char bad_initrds[] = "initrd: more than " LB_STR(LB_MAX_INITRDS) " files";

static int cmd_linux(struct interp *ip, char **a, size_t n)
{
	struct ectx *e = ip->ectx;
	struct gpath g;
	struct sb cl = { 0 };
	size_t i = 1;
	int quote = 0;

	if (!e)
		return 0;
	if (n < 2 || g_resolve_path(ip, a[1], &g))
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
	/* GRUB's loader starts the command line with BOOT_IMAGE= and the
	 * kernel's path as the linux command was given it (its argv[0]),
	 * written as the other arguments (grub-core/loader/i386/linux.c
	 * grub_cmd_linux: LINUX_IMAGE then grub_create_loader_cmdline over
	 * argv); the OS reads it (/proc/cmdline, init's environment) */
	sb_puts(&cl, "BOOT_IMAGE=");
	for (i = 1; i < n; i++) {
		if (i > 1)
			sb_putc(&cl, ' ');
		quote |= strchr(a[i], '"') != NULL;
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
	e->bad = quote ? bad_quote : NULL;
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
		if (g_resolve_path(ip, a[i], &g))
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

static int menu_add(struct interp *ip, struct node *nd, enum mkind kind,
		    const char *title, const char *id, struct sv *argsp);

int g_cmd_menu(struct interp *ip, struct node *nd, char **a, size_t n)
{
	const char *title = NULL, *id = NULL;
	struct sv args = { 0 };

	if (!ip->cur)
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
		g_msg(ip, nd->file, nd->line, "%s without a title", a[0]);
		sv_free(&args);
		return 1;
	}
	return menu_add(ip, nd, nd->mk, title, id, &args);
}

/* Record a menu item whose body is nd's; takes args (the positional
 * parameters of the body). */
static int menu_add(struct interp *ip, struct node *nd, enum mkind kind,
		    const char *title, const char *id, struct sv *argsp)
{
	struct menu *m = ip->cur;
	struct sv args = *argsp;
	struct mitem *it;

	memset(argsp, 0, sizeof(*argsp));
	if (args.err || ip->nitems >= g_lim.items) {
		if (args.err == -ENOMEM)
			ip->oom = 1;
		else
			g_msg(ip, nd->file, nd->line, "too many menu entries");
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
	it->kind = kind;
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

/* A raw word that expands to exactly s (single quotes, ' as '\''). */
static char *literal_word(const char *s)
{
	struct sb b = { 0 };

	sb_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(&b, "'\\''");
		else
			sb_putc(&b, *s);
	}
	sb_putc(&b, '\'');
	return sb_take(&b);
}

/* The word for path p of a BLS entry: "(dev)PATH" with PATH p inside the
 * boot directory bootdir when that file exists or neither does, else p as
 * written (kernel-install's 20-grub.install already writes /boot/... into
 * entries when /boot is a directory of the root filesystem). A word
 * starting with '$' (Fedora's "$tuned_initrd") is kept raw to expand. */
static char *bls_word(const struct lb_fs *fs, const char *dev, const char *bootdir,
		      const char *p, size_t pn)
{
	char path[4096], *w;
	struct stat st;
	struct sb b = { 0 };

	if (p[0] == '$')
		return strndup(p, pn);
	if (pn + strlen(bootdir) + 2 > sizeof(path))
		return NULL;
	snprintf(path, sizeof(path), "%s%s%.*s", bootdir, p[0] == '/' ? "" : "/", (int)pn, p);
	if (bootdir[0] && lb_fs_stat(fs, path, &st)) {
		snprintf(path, sizeof(path), "%s%.*s", p[0] == '/' ? "" : "/", (int)pn, p);
		if (lb_fs_stat(fs, path, &st))
			snprintf(path, sizeof(path), "%s%s%.*s", bootdir,
				 p[0] == '/' ? "" : "/", (int)pn, p);
	}
	sb_putc(&b, '(');
	sb_puts(&b, dev);
	sb_putc(&b, ')');
	sb_puts(&b, path);
	if (!(w = sb_take(&b)))
		return NULL;
	p = w;
	w = literal_word(p);
	free((char *)p);
	return w;
}

/* A command node of a BLS entry body: `cmd` and its words. */
static struct node *bls_cmd(const char *file, int line, const char *cmd)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->k = N_CMD;
	n->file = file;
	n->line = line;
	sv_push(&n->w, strdup(cmd));
	return n;
}

/* Add the word of path p (pn bytes) to command n. */
static void bls_path(struct node *n, const struct lb_fs *fs, const char *dev,
		     const char *bootdir, const char *p, size_t pn)
{
	char *w = bls_word(fs, dev, bootdir, p, pn);

	if (!w && !n->w.err)
		n->w.err = pn + strlen(bootdir) + 2 > 4096 ? -ENAMETOOLONG : -ENOMEM;
	sv_push(&n->w, w);
}

/* Each path of a BLS path list (initrd lines may hold several). */
static void bls_paths(struct node *n, const struct lb_fs *fs, const char *dev,
		      const char *bootdir, const char *v)
{
	while (*v) {
		size_t k;

		while (*v == ' ' || *v == '\t')
			v++;
		k = strcspn(v, " \t");
		if (k)
			bls_path(n, fs, dev, bootdir, v, k);
		v += k;
	}
}

/* The options of a BLS entry as GRUB words: GRUB pastes them into the
 * entry's script, so they are lexed (quotes, $kernelopts) the same way.
 * Returns 0, or -EINVAL when they hold more than words (; { } newline). */
static int bls_options(struct node *n, const char *opts)
{
	struct lexer L = { .s = opts, .n = strlen(opts), .line = 1 };
	enum tok t;

	while ((t = g_peek(&L)) == T_WORD)
		sv_push(&n->w, g_take(&L));
	free(L.w);
	return t == T_EOF ? 0 : -EINVAL;
}

/* The menu entry of one BLS entry, its body built as the commands
 * Fedora's blscfg generates ("linux PATH OPTIONS", "initrd PATHS...",
 * "devicetree PATH"); the nodes are kept alive by sc. */
static void bls_entry(struct interp *ip, const struct lb_entry *e, const char *name,
		      const struct lb_fs *fs, const char *dev, const char *bootdir,
		      const char *file, int line)
{
	struct script *sc = g_new_script(ip, name);
	struct node *m = calloc(1, sizeof(*m)), *c[3] = { 0 };
	const char *title = e->title ? e->title : e->id ? e->id : e->kernel;
	const char *where;
	struct sv args = { 0 };
	size_t nc = 0;
	int r = -ENOMEM;

	if (!sc || !m || g_list_push(&sc->top, m)) {
		free(m);
		ip->oom = 1;
		return;
	}
	where = sc->name;
	m->k = N_MENU;
	m->mk = e->hidden ? M_HIDDEN : M_ENTRY;
	m->file = where;
	m->line = 1;
	if (!(c[nc] = bls_cmd(where, 2 + (int)nc, "linux")))
		goto out;
	bls_path(c[nc], fs, dev, bootdir, e->kernel, strlen(e->kernel));
	if (e->cmdline && bls_options(c[nc], e->cmdline)) {
		g_msg(ip, file, line, "blscfg: %s: options are not plain words, entry skipped",
		      where);
		r = 0;
		goto out;
	}
	nc++;
	if (e->n_initrd) {
		if (!(c[nc] = bls_cmd(where, 2 + (int)nc, "initrd")))
			goto out;
		for (size_t k = 0; k < e->n_initrd; k++)
			bls_paths(c[nc], fs, dev, bootdir, e->initrd[k]);
		nc++;
	}
	if (e->devicetree) {
		if (!(c[nc] = bls_cmd(where, 2 + (int)nc, "devicetree")))
			goto out;
		bls_path(c[nc], fs, dev, bootdir, e->devicetree, strlen(e->devicetree));
		nc++;
	}
	for (size_t k = 0; k < nc; k++) {
		if (c[k]->w.err) {
			r = c[k]->w.err;
			goto out;
		}
		if ((r = g_list_push(&m->body, c[k])))
			goto out;
		c[k] = NULL;
	}
	/* the menuentry command blscfg runs is a step */
	sv_push(&args, strdup(title));
	if (g_budget(ip) &&
	    !menu_add(ip, m, m->mk, title, e->id ? e->id : title, &args) &&
	    e->source && lb_setstr(&ip->cur->v[ip->cur->n - 1].source, e->source))
		ip->oom = 1;
	sv_free(&args);
	return;
out:
	for (size_t k = 0; k < 3; k++)
		g_node_free(c[k]);
	if (r == -ENOMEM)
		ip->oom = 1;
	else if (r)
		g_msg(ip, file, line, "blscfg: %s: %s", where, strerror(-r));
}

/*
 * Fedora's blscfg: the entries of $blsdir, else /loader/entries on $root
 * (a separate /boot), else /boot/loader/entries (/boot a directory of the
 * root filesystem); paths in the entries are relative to the boot
 * directory, so they get the directory the entries were found under as a
 * prefix (see bls_word). Each entry becomes a menu item whose body is built
 * directly as the commands blscfg generates ("linux PATH OPTIONS", "initrd
 * ...", "devicetree ..."; see bls_entry): paths as literal words, options
 * lexed as GRUB words so $kernelopts and friends expand when it runs; the
 * id is the entry id (file name stem), so saved_entry selects it.
 */
static int cmd_blscfg(struct interp *ip, const char *file, int line)
{
	struct lb_entries bls = LB_ENTRIES_INIT;
	const char *root = g_getvar(ip, "root"), *blsdir = g_getvar(ip, "blsdir");
	const struct lb_fs *fs;
	const char *dir;
	static const char tail[] = "/loader/entries";
	const size_t tl = sizeof(tail) - 1;
	char dev[256], bootdir[4096];
	size_t dl;
	int r;

	fs = root && *root ? g_find_dev(ip, root) : NULL;
	if (!fs)
		fs = ip->cfgfs;
	if (!fs)
		return 1;
	snprintf(dev, sizeof(dev), "%s", root && *root && strlen(root) < sizeof(dev) ?
		 root : g_dev_value(fs));
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
		g_msg(ip, file, line, "blscfg: cannot load %s: %s", dir, strerror(-r));
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
		g_msg(ip, file, line, "blscfg: %s", bls.msgs[i]);
	/* inside an entry body GRUB would add to the menu at boot: nothing */
	for (size_t i = 0; ip->cur && i < bls.n && !ip->oom && !ip->fatal; i++) {
		struct lb_entry *e = &bls.v[i];

		if (e->type == LB_ENTRY_LINUX && e->kernel)
			bls_entry(ip, e, e->source ? e->source : dir, fs, dev, bootdir,
				  file, line);
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
		g_msg(ip, ip->file, ip->line, "%s %s: nesting too deep", configfile ?
		    "configfile" : "source", f);
		return 1;
	}
	if (g_resolve_path(ip, f, &g) || !g.fs)
		return 1;
	r = lb_fs_read(g.fs, g.path, LB_FS_MAX_CONFIG, &buf, &len);
	if (r) {
		g_msg(ip, ip->file, ip->line, "%s: %s", f, strerror(-r));
		return 1;
	}
	if (configfile) {
		/* GRUB's normal mode sets these for the file it reads */
		char *d = strdup(f), *slash;

		g_setvar(ip, "config_file", f);
		if (d && (slash = strrchr(d, '/'))) {
			*slash = 0;
			g_setvar(ip, "config_directory", d);
		}
		free(d);
	}
	ip->src_depth++;
	r = g_run_script_buf(ip, g.path, buf, len, 1);
	ip->src_depth--;
	free(buf);
	return r ? 1 : ip->status;
}

/* --- simple commands --- */

static int c_set(struct interp *ip, struct node *nd, char **a, size_t n)
{
	int r = 0;

	for (size_t i = 1; i < n; i++) {
		char *eq = strchr(a[i], '=');

		if (eq) {
			*eq = 0;
			if (!g_valid_name(a[i]) || g_setvar(ip, a[i], eq + 1))
				r = 1;
		} else if (!g_valid_name(a[i])) {
			r = 1;
		}
		/* `set x` prints x */
	}
	return r;
}

static int c_unset(struct interp *ip, struct node *nd, char **a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		g_unsetvar(ip, a[i]);
	return 0;
}

static int c_export(struct interp *ip, struct node *nd, char **a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct var *v;

		if (!g_valid_name(a[i]))
			continue;
		if (!(v = g_env_find(ip->env, a[i]))) {
			g_setvar(ip, a[i], "");
			v = g_env_find(ip->env, a[i]);
		}
		if (v)
			v->exp = 1;
	}
	return 0;
}

/* true, :, and the commands that only change the display or hardware
 * state (insmod, echo, terminal_output ...) */
static int c_true(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return 0;
}

/* false, and what cannot work here: fwsetup (no firmware setup to reboot
 * into from LinuxBoot), cryptomount, regexp */
static int c_false(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return 1;
}

static int c_bracket(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return strcmp(a[n - 1], "]") ? 1 : cmd_test(ip, a + 1, n - 2);
}

static int c_test(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_test(ip, a + 1, n - 1);
}

/* return, break, continue */
static int c_flow(struct interp *ip, struct node *nd, char **a, size_t n)
{
	long k = n > 1 ? strtol(a[1], NULL, 10) : (a[0][0] == 'r' ? ip->status : 1);

	if (a[0][0] == 'r') {
		ip->flow = F_RETURN;
		return (int)(k & 0xff);
	}
	if (ip->loop_depth) {
		ip->flow = a[0][0] == 'b' ? F_BREAK : F_CONTINUE;
		ip->flow_n = k < 1 ? 1 : k;
	}
	return 0;
}

static int c_shift(struct interp *ip, struct node *nd, char **a, size_t n)
{
	long k = n > 1 ? strtol(a[1], NULL, 10) : 1;

	if (!ip->pos || k < 0 || (size_t)k > ip->pos->n)
		return 1;
	sv_shift(ip->pos, (size_t)k);
	return 0;
}

static int c_setparams(struct interp *ip, struct node *nd, char **a, size_t n)
{
	struct sv np = { 0 };

	if (!ip->pos)
		return 0;
	for (size_t i = 1; i < n; i++)
		sv_push(&np, strdup(a[i]));
	if (np.err) {
		sv_free(&np);
		return 1;
	}
	sv_free(ip->pos);
	*ip->pos = np;
	return 0;
}

/* linux, linuxefi, linux16 */
static int c_linux(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_linux(ip, a, n);
}

/* a loader of something that is not a Linux kernel */
static int c_chainloader(struct interp *ip, struct node *nd, char **a, size_t n)
{
	if (ip->ectx)
		ip->ectx->other = "chainloader";
	return 0;
}

static int c_other_loader(struct interp *ip, struct node *nd, char **a, size_t n)
{
	if (ip->ectx)
		ip->ectx->other = "other";
	return 0;
}

/* initrd, initrdefi, initrd16 */
static int c_initrd(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_initrd(ip, a, n);
}

static int c_devicetree(struct interp *ip, struct node *nd, char **a, size_t n)
{
	struct gpath g;

	if (ip->ectx && n > 1 && !g_resolve_path(ip, a[1], &g) &&
	    lb_setstr(&ip->ectx->dtb, g.path))
		ip->oom = 1;
	return 0;
}

static int c_search(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_search(ip, a, n, 0);
}

/* search.fs_uuid, search_fs_uuid */
static int c_search_uuid(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_search(ip, a, n, 'u');
}

/* search.fs_label, search_label */
static int c_search_label(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_search(ip, a, n, 'l');
}

/* search.file, search_file */
static int c_search_file(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_search(ip, a, n, 'f');
}

static int c_probe(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_probe(ip, a, n);
}

static int c_load_env(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return cmd_load_env(ip, a, n);
}

/* source, . */
static int c_source(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return n > 1 ? cmd_source(ip, a[1], 0) : 1;
}

static int c_configfile(struct interp *ip, struct node *nd, char **a, size_t n)
{
	return n > 1 ? cmd_source(ip, a[1], 1) : 1;
}

static int c_eval(struct interp *ip, struct node *nd, char **a, size_t n)
{
	struct sb s = { 0 };
	int r = 0;

	for (size_t i = 1; i < n; i++) {
		if (i > 1)
			sb_putc(&s, ' ');
		sb_puts(&s, a[i]);
	}
	if (!s.err && s.s && ip->src_depth < G_MAX_SRC_DEPTH) {
		char en[600];

		snprintf(en, sizeof(en), "%s:%d: eval", nd->file, nd->line);
		ip->src_depth++;
		r = g_run_script_buf(ip, en, s.s, s.n, 0) ? 1 : ip->status;
		ip->src_depth--;
	}
	free(s.s);
	return r;
}

static int c_blscfg(struct interp *ip, struct node *nd, char **a, size_t n)
{
	ip->ran_blscfg = 1;
	return cmd_blscfg(ip, nd->file, nd->line);
}

/* Sorted by name (strcmp order) for the binary search in g_cmd_find. */
static const struct g_cmd cmds[] = {
	{ ".", c_source },
	{ ":", c_true },
	{ "[", c_bracket },
	{ "acpi", c_true },
	{ "appleloader", c_other_loader },
	{ "background_color", c_true },
	{ "background_image", c_true },
	{ "badram", c_true },
	{ "blocklist", c_true },
	{ "blscfg", c_blscfg },
	{ "boot", c_true },
	{ "break", c_flow },
	{ "cat", c_true },
	{ "chainloader", c_chainloader },
	{ "clear", c_true },
	{ "cls", c_true },
	{ "configfile", c_configfile },
	{ "continue", c_flow },
	{ "cpuid", c_true },
	{ "crc", c_true },
	{ "cryptomount", c_false },
	{ "cutmem", c_true },
	{ "date", c_true },
	{ "devicetree", c_devicetree },
	{ "drivemap", c_true },
	{ "dump", c_true },
	{ "echo", c_true },
	{ "efiemu_loadcore", c_true },
	{ "efiemu_prepare", c_true },
	{ "efiemu_unload", c_true },
	{ "eval", c_eval },
	{ "export", c_export },
	{ "fakebios", c_true },
	{ "false", c_false },
	{ "fix_video", c_true },
	{ "font", c_true },
	{ "freedos", c_other_loader },
	{ "fwsetup", c_false },
	{ "gettext", c_true },
	{ "gfxterm_background", c_true },
	{ "gptsync", c_true },
	{ "halt", c_true },
	{ "hashsum", c_true },
	{ "hello", c_true },
	{ "inb", c_true },
	{ "initrd", c_initrd },
	{ "initrd16", c_initrd },
	{ "initrdefi", c_initrd },
	{ "insmod", c_true },
	{ "keymap", c_true },
	{ "keystatus", c_true },
	{ "kfreebsd", c_other_loader },
	{ "knetbsd", c_other_loader },
	{ "kopenbsd", c_other_loader },
	{ "legacy_kernel", c_other_loader },
	{ "linux", c_linux },
	{ "linux16", c_linux },
	{ "linuxefi", c_linux },
	{ "list_env", c_true },
	{ "load_env", c_load_env },
	{ "loadfont", c_true },
	{ "loopback", c_true },
	{ "ls", c_true },
	{ "lsefi", c_true },
	{ "lsefisystab", c_true },
	{ "lsfonts", c_true },
	{ "lsmod", c_true },
	{ "lssal", c_true },
	{ "md5sum", c_true },
	{ "module", c_true },
	{ "multiboot", c_other_loader },
	{ "multiboot2", c_other_loader },
	{ "nativedisk", c_true },
	{ "net_bootp", c_true },
	{ "net_dhcp", c_true },
	{ "normal", c_true },
	{ "normal_exit", c_true },
	{ "ntldr", c_other_loader },
	{ "outb", c_true },
	{ "pager", c_true },
	{ "parttool", c_true },
	{ "password", c_true },
	{ "password_pbkdf2", c_true },
	{ "plainmount", c_true },
	{ "play", c_true },
	{ "probe", c_probe },
	{ "pxechain", c_other_loader },
	{ "read", c_true },
	{ "reboot", c_true },
	{ "regexp", c_false },
	{ "rescue", c_true },
	{ "return", c_flow },
	{ "rmmod", c_true },
	{ "save_env", c_save_env },
	{ "savedefault", c_true },
	{ "search", c_search },
	{ "search.file", c_search_file },
	{ "search.fs_label", c_search_label },
	{ "search.fs_uuid", c_search_uuid },
	{ "search_file", c_search_file },
	{ "search_fs_uuid", c_search_uuid },
	{ "search_label", c_search_label },
	{ "serial", c_true },
	{ "set", c_set },
	{ "set_background", c_true },
	{ "set_gfxmode", c_true },
	{ "setparams", c_setparams },
	{ "sha1sum", c_true },
	{ "sha256sum", c_true },
	{ "sha512sum", c_true },
	{ "shift", c_shift },
	{ "sleep", c_true },
	{ "smbios", c_true },
	{ "source", c_source },
	{ "terminal", c_true },
	{ "terminal_input", c_true },
	{ "terminal_output", c_true },
	{ "terminfo", c_true },
	{ "test", c_test },
	{ "time", c_true },
	{ "tpm2_key_protector_init", c_true },
	{ "tr", c_true },
	{ "true", c_true },
	{ "truecrypt", c_other_loader },
	{ "unset", c_unset },
	{ "usb", c_true },
	{ "vbeinfo", c_true },
	{ "videoinfo", c_true },
	{ "xnu_kernel", c_other_loader },
	{ "xnu_kernel64", c_other_loader },
	{ "xnu_uuid", c_true },
};

const struct g_cmd *g_cmd_table(size_t *n)
{
	*n = sizeof(cmds) / sizeof(cmds[0]);
	return cmds;
}

static int cmd_cmp(const void *key, const void *e)
{
	const char *a = key, *b = ((const struct g_cmd *)e)->name;

	/* the first bytes first (see g_streq): strcmp's order all the same */
	if (a[0] != b[0])
		return (unsigned char)a[0] < (unsigned char)b[0] ? -1 : 1;
	return strcmp(a, b);
}

const struct g_cmd *g_cmd_find(const char *name)
{
	return bsearch(name, cmds, sizeof(cmds) / sizeof(cmds[0]), sizeof(cmds[0]), cmd_cmp);
}
