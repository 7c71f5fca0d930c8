/*
 * SYSLINUX family configuration files.
 *
 * Semantics implemented (syslinux 4+/6 readconfig + menu.c32):
 *  - keywords are case-insensitive; a LABEL block runs until the next LABEL,
 *    MENU BEGIN/END or end of input; TEXT ... ENDTEXT blocks are skipped;
 *  - KERNEL picks the type by extension (.c32 COM32, .cbt/.com COMBOOT,
 *    .bs/.bin boot sector, .bss, .0 PXE, .img floppy image, else Linux);
 *    LINUX/COM32/BOOT/BSS/PXE/FDIMAGE/COMBOOT/CONFIG/LOCALBOOT force it. Only
 *    Linux kernels become entries, plus `com32 linux.c32 KERNEL ARGS`;
 *  - APPEND in a label replaces the global APPEND, `APPEND -` means none;
 *    labels without APPEND inherit the global one in force when the label
 *    ends. The kernel gets what ldlinux builds: "BOOT_IMAGE=KERNEL APPEND
 *    initrd=INITRD", the APPEND text as written (trailing blanks too), and
 *    loads the first initrd= list of that line (checked against real
 *    pxelinux 6.04: tests/e2e/netboot-pxelinux-oracle.sh). linux.c32's
 *    arguments: initrd= words leave the line, INITRD's list first;
 *  - INCLUDE / MENU INCLUDE read a file in place (depth capped), CONFIG FILE
 *    [DIR] outside a label restarts with another file (and working dir);
 *    inside a label it is a menu link and is not followed;
 *  - relative paths resolve against the working directory (the config's
 *    directory for syslinux/extlinux/isolinux; the TFTP prefix for pxelinux);
 *    "::path" is absolute;
 *  - MENU BEGIN/END nest submenus (entry titles "Submenu > Title"), MENU
 *    LABEL titles ('^' hotkey markers removed), MENU HIDE / MENU DISABLE hide,
 *    MENU DEFAULT (top level) selects the menu's default;
 *  - the default (what boots untouched): ONTIMEOUT when TIMEOUT > 0; else
 *    with a menu (UI, or DEFAULT naming a *menu.c32) the top-level MENU
 *    DEFAULT, else the DEFAULT label, else the first visible top-level
 *    entry; without a menu, DEFAULT (a label or a command line). A command
 *    line that matches no entry becomes an entry of its own;
 *  - TIMEOUT is in 1/10 s;
 *  - IPAPPEND/SYSAPPEND N (the same keyword): in a label, that label's bits;
 *    outside, the bits labels started after it inherit. The entry carries
 *    the bits (sysappend); the strings are added at boot, after the APPEND
 *    text, in bit order, by whoever knows them (netboot: ip=, BOOTIF=,
 *    SYSUUID=).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "syslinux.h"

#define SX_MAX_INCLUDE 16   /* nesting depth */
#define SX_MAX_FILES   128  /* files read in all (a file including itself
			       twice would otherwise cost 2^depth parses) */
#define SX_MAX_MENU    8
#define SX_MAX_CONFIG  8
#define SX_MAX_ENTRIES 4096

enum { KT_NONE, KT_AUTO, KT_LINUX, KT_COM32, KT_OTHER, KT_CONFIG, KT_LOCAL };

struct label {
	int open, kt, has_append, hidden, mdefault, nav, depth;
	unsigned ipappend;         /* IPAPPEND/SYSAPPEND bits of this label */
	char *name, *title, *kernel, *append, *initrd, *src;
};

struct sx {
	const struct lb_syslinux_opts *o;
	struct lb_entries l;       /* entries of the current config */
	struct lb_entries *msgs;
	char *cwd;
	char *gappend, *deflt, *ontimeout, *deflt_src, *onto_src, *menudef;
	int timeout, prompt, ui, depth, incl, text, in_begin, mtitled;
	int no_implicit;           /* IMPLICIT 0: only labels boot */
	unsigned sysappend;        /* global IPAPPEND/SYSAPPEND: labels that
				      start after it inherit it */
	char *mname[SX_MAX_MENU + 1];
	long first_top;
	struct label cur;
	char *sw_file, *sw_dir;    /* pending CONFIG switch */
	int nswitch;
	char *skipped[64];         /* labels that made no entry */
	size_t n_skipped;
	int n_files;
};

#define SX_SWITCH 1  /* internal: stop parsing, CONFIG switch pending */

static int isws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static void label_free(struct label *l)
{
	free(l->name);
	free(l->title);
	free(l->kernel);
	free(l->append);
	free(l->initrd);
	free(l->src);
	memset(l, 0, sizeof(*l));
}

static int set(char **dst, const char *s)
{
	return lb_setstr(dst, s);
}

/* Absolute path of p against the working directory. */
static char *resolve(const char *cwd, const char *p)
{
	char *r;
	size_t n;

	if (!strncmp(p, "::", 2)) { /* "::path": absolute */
		p += 2;
		cwd = NULL;
	}
	if (p[0] == '/' || !cwd || !*cwd)
		return asprintf(&r, "%s%s", p[0] == '/' ? "" : "/", p) < 0 ? NULL : r;
	n = strlen(cwd);
	while (n && cwd[n - 1] == '/')
		n--;
	return asprintf(&r, "%s%.*s/%s", cwd[0] == '/' ? "" : "/", (int)n, cwd,
			p) < 0 ? NULL : r;
}

static int ext_is(const char *k, const char *ext)
{
	size_t n = strlen(k), m = strlen(ext);

	return n > m && !strcasecmp(k + n - m, ext);
}

static int kernel_type(const char *k)
{
	if (ext_is(k, ".c32"))
		return KT_COM32;
	if (ext_is(k, ".cbt") || ext_is(k, ".com") || ext_is(k, ".bs") ||
	    ext_is(k, ".bin") || ext_is(k, ".bss") || ext_is(k, ".0") ||
	    ext_is(k, ".img"))
		return KT_OTHER;
	return KT_LINUX;
}

static const char *base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* Title without '^' hotkey markers. */
static char *untag(const char *t)
{
	char *r = malloc(strlen(t) + 1), *o = r;

	if (!r)
		return NULL;
	for (; *t; t++)
		if (*t != '^')
			*o++ = *t;
	*o = 0;
	return r;
}

/* Split a command line into kernel args (words joined by one space) and
 * initrd= lists added to e (linux.c32's arguments). */
static int args_to_entry(struct lb_entry *e, const char *args,
			 struct lb_entries *msgs, const char *src)
{
	size_t n = args ? strlen(args) : 0, o = 0;
	char *cmd, *tmp;
	const char *p = args;

	if (!(cmd = malloc(n + 1)))
		return -ENOMEM;
	while (p && *p) {
		const char *w;
		size_t wl;

		while (isws(*p) || *p == '\n')
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && !isws(*p) && *p != '\n')
			p++;
		wl = (size_t)(p - w);
		if (wl > 7 && !strncmp(w, "initrd=", 7)) {
			char *save = NULL, *tok;

			if (!(tmp = strndup(w + 7, wl - 7)))
				goto nomem;
			for (tok = strtok_r(tmp, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				int r = lb_entry_add_initrd(e, tok);

				if (r == -E2BIG) {
					lb_entries_msg(msgs, "%s: more than %d initrds, rest ignored",
						       src, LB_MAX_INITRDS);
					break;
				}
				if (r) {
					free(tmp);
					goto nomem;
				}
			}
			free(tmp);
			continue;
		}
		if (o)
			cmd[o++] = ' ';
		memcpy(cmd + o, w, wl);
		o += wl;
	}
	cmd[o] = 0;
	if (o) {
		free(e->cmdline);
		e->cmdline = cmd;
	} else {
		free(cmd);
	}
	return 0;
nomem:
	free(cmd);
	return -ENOMEM;
}

/* ldlinux's Linux loader (syslinux 6.04 com32/elflink/ldlinux/kernel.c):
 * the kernel gets "BOOT_IMAGE=KERNEL ARGS" as it stands, and the initrds
 * are the comma-separated names after the first "initrd=" in that line
 * (a later initrd= is not loaded); names end at a space or comma. */
static int ldlinux_entry(struct lb_entry *e, const char *kernel,
			 const char *args, struct lb_entries *msgs,
			 const char *src)
{
	const char *p;
	char *line;

	if (asprintf(&line, "BOOT_IMAGE=%s %s", kernel, args) < 0)
		return -ENOMEM;
	free(e->cmdline);
	e->cmdline = line;
	if (!(p = strstr(line, "initrd=")))
		return 0;
	p += 6;
	do {
		const char *w = ++p;
		char *name;
		int r;

		while (*p && *p != ' ' && *p != ',')
			p++;
		if (p == w)
			continue;
		if (!(name = strndup(w, (size_t)(p - w))))
			return -ENOMEM;
		r = lb_entry_add_initrd(e, name);
		free(name);
		if (r == -E2BIG) {
			lb_entries_msg(msgs, "%s: more than %d initrds, rest ignored",
				       src, LB_MAX_INITRDS);
			return 0;
		}
		if (r)
			return r;
	} while (*p == ',');
	return 0;
}

/* Resolve e's kernel and initrds against cwd. */
static int resolve_entry(struct lb_entry *e, const char *cwd)
{
	char *c;

	if (!(c = resolve(cwd, e->kernel)))
		return -ENOMEM;
	free(e->kernel);
	e->kernel = c;
	for (size_t i = 0; i < e->n_initrd; i++) {
		if (!(c = resolve(cwd, e->initrd[i])))
			return -ENOMEM;
		free(e->initrd[i]);
		e->initrd[i] = c;
	}
	return 0;
}

static int add_initrd_list(struct lb_entry *e, const char *list,
			   struct lb_entries *msgs, const char *src)
{
	char *tmp = strdup(list), *save = NULL, *tok;
	int r = 0;

	if (!tmp)
		return -ENOMEM;
	for (tok = strtok_r(tmp, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		r = lb_entry_add_initrd(e, tok);
		if (r == -E2BIG) {
			lb_entries_msg(msgs, "%s: more than %d initrds, rest ignored",
				       src, LB_MAX_INITRDS);
			r = 0;
			break;
		}
		if (r)
			break;
	}
	free(tmp);
	return r;
}

static int close_label(struct sx *s)
{
	struct label *c = &s->cur;
	struct lb_entry e = { 0 }, *d;
	const char *app, *kern;
	int kt, r = -ENOMEM, added = 0;

	if (!c->open)
		return 0;
	kt = c->kt == KT_AUTO && c->kernel ? kernel_type(c->kernel) : c->kt;
	if (kt == KT_LOCAL) {
		lb_entries_msg(s->msgs, "%s: label %s: localboot (boot the next device) skipped",
			       c->src, c->name);
		r = 0;
		goto out;
	}
	if (kt == KT_CONFIG) {
		lb_entries_msg(s->msgs, "%s: label %s: loads config %s (a menu link), not followed",
			       c->src, c->name, c->kernel ? c->kernel : "");
		r = 0;
		goto out;
	}
	if (kt == KT_NONE || !c->kernel || !*c->kernel) {
		if (!c->nav)
			lb_entries_msg(s->msgs, "%s: label %s: no kernel, skipped",
				       c->src, c->name);
		r = 0;
		goto out;
	}
	app = c->has_append ? (c->append && strcmp(c->append, "-") ? c->append : "")
			    : (s->gappend ? s->gappend : "");
	kern = c->kernel;
	if (kt == KT_COM32) {
		const char *p = app, *w;

		if (strcasecmp(base(kern), "linux.c32")) {
			lb_entries_msg(s->msgs, "%s: label %s: COM32 module %s is not a Linux kernel, skipped",
				       c->src, c->name, base(kern));
			r = 0;
			goto out;
		}
		/* linux.c32 KERNEL ARGS... */
		while (isws(*p))
			p++;
		w = p;
		while (*p && !isws(*p))
			p++;
		if (p == w) {
			lb_entries_msg(s->msgs, "%s: label %s: linux.c32 without a kernel, skipped",
				       c->src, c->name);
			r = 0;
			goto out;
		}
		if (!(e.kernel = strndup(w, (size_t)(p - w))))
			goto out;
		app = p;
	} else if (kt == KT_OTHER) {
		lb_entries_msg(s->msgs, "%s: label %s: %s is not a Linux kernel, skipped",
			       c->src, c->name, kern);
		r = 0;
		goto out;
	} else if (!(e.kernel = strdup(kern))) {
		goto out;
	}
	if (!(e.id = strdup(c->name)) || !(e.source = strdup(c->src)) ||
	    (s->o->fs && !(e.fs = strdup(s->o->fs))))
		goto out;
	{
		char *t = untag(c->title ? c->title : c->name);
		size_t need;

		if (!t)
			goto out;
		need = strlen(t) + 1;
		for (int i = 1; i <= c->depth && i <= SX_MAX_MENU; i++)
			if (s->mname[i])
				need += strlen(s->mname[i]) + 3;
		if (!(e.title = malloc(need))) {
			free(t);
			goto out;
		}
		e.title[0] = 0;
		for (int i = 1; i <= c->depth && i <= SX_MAX_MENU; i++)
			if (s->mname[i]) {
				strcat(e.title, s->mname[i]);
				strcat(e.title, " > ");
			}
		strcat(e.title, t);
		free(t);
	}
	if (kt == KT_COM32) {
		if (c->initrd && (r = add_initrd_list(&e, c->initrd, s->msgs, c->src)))
			goto out;
		if ((r = args_to_entry(&e, app, s->msgs, c->src)))
			goto out;
	} else {
		/* readconfig's record(): the label's command line is APPEND
		 * then " initrd=INITRD" (real pxelinux 6.04 gives the kernel
		 * exactly that: e2e netboot-pxelinux-oracle) */
		char *args;

		if (asprintf(&args, "%s%s%s", app, c->initrd ? " initrd=" : "",
			     c->initrd ? c->initrd : "") < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = ldlinux_entry(&e, kern, args, s->msgs, c->src);
		free(args);
		if (r)
			goto out;
	}
	if ((r = resolve_entry(&e, s->cwd)))
		goto out;
	e.hidden = c->hidden;
	e.sysappend = c->ipappend;
	if (s->l.n >= SX_MAX_ENTRIES) {
		lb_entries_msg(s->msgs, "%s: too many entries, rest ignored", c->src);
		r = 0;
		goto out;
	}
	r = -ENOMEM;
	if (!(d = lb_entries_add(&s->l)))
		goto out;
	*d = e;
	memset(&e, 0, sizeof(e));
	added = 1;
	if (c->mdefault && c->depth == 0 && set(&s->menudef, c->name))
		goto out;
	if (c->depth == 0 && !c->hidden && s->first_top < 0)
		s->first_top = (long)s->l.n - 1;
	r = 0;
out:
	if (!added && !r && c->name &&
	    s->n_skipped < sizeof(s->skipped) / sizeof(s->skipped[0])) {
		if (!(s->skipped[s->n_skipped] = strdup(c->name)))
			r = -ENOMEM;
		else
			s->n_skipped++;
	}
	lb_entry_free(&e);
	label_free(c);
	return r;
}

static int parse_buf(struct sx *s, const char *name, const char *buf,
		     size_t len);

static int include(struct sx *s, const char *src, const char *arg)
{
	char *path, *buf = NULL, *f;
	size_t len, n = 0;
	int r;

	while (arg[n] && !isws(arg[n]))
		n++;
	if (!n)
		return 0;
	if (!(f = strndup(arg, n)))
		return -ENOMEM;
	path = resolve(s->cwd, f);
	free(f);
	if (!path)
		return -ENOMEM;
	if (s->incl >= SX_MAX_INCLUDE || s->n_files >= SX_MAX_FILES) {
		lb_entries_msg(s->msgs, "%s: include %s: %s, skipped", src, path,
			       s->incl >= SX_MAX_INCLUDE ? "nested too deep" :
			       "too many files");
		free(path);
		return 0;
	}
	s->n_files++;
	r = s->o->read ? s->o->read(s->o->ctx, path, &buf, &len) : -ENOSYS;
	if (r) {
		lb_entries_msg(s->msgs, "%s: include %s: %s", src, path,
			       r == -ENOSYS ? "no file access" : strerror(-r));
		free(path);
		return r == -ENOMEM ? r : 0;
	}
	s->incl++;
	r = parse_buf(s, path, buf, len);
	s->incl--;
	free(buf);
	free(path);
	return r;
}

static int set_kernel(struct sx *s, int kt, const char *v)
{
	if (!s->cur.open)
		return 0; /* a kernel outside a label means nothing */
	s->cur.kt = kt;
	return set(&s->cur.kernel, v);
}

/* Name of the current submenu in entry titles; MENU LABEL beats MENU
 * TITLE beats the MENU BEGIN tag. */
static int set_menu_name(struct sx *s, const char *name)
{
	char *t = untag(name);

	if (!t)
		return -ENOMEM;
	free(s->mname[s->depth]);
	s->mname[s->depth] = t;
	s->mtitled = 1;
	return 0;
}

static int menu_kw(struct sx *s, const char *src, const char *v)
{
	const char *arg = v;
	size_t kl = 0;

	while (arg[kl] && !isws(arg[kl]))
		kl++;
	arg += kl;
	while (isws(*arg))
		arg++;
#define SUB(w) (kl == strlen(w) && !strncasecmp(v, w, kl))
	if (SUB("label")) {
		if (s->cur.open)
			return set(&s->cur.title, arg);
		if (s->in_begin && s->depth > 0 && s->depth <= SX_MAX_MENU)
			return set_menu_name(s, arg);
	} else if (SUB("title")) {
		if (!s->cur.open && s->in_begin && s->depth > 0 &&
		    s->depth <= SX_MAX_MENU && !s->mtitled)
			return set_menu_name(s, arg);
	} else if (SUB("hide") || SUB("disable")) {
		if (s->cur.open)
			s->cur.hidden = 1;
	} else if (SUB("default")) {
		if (s->cur.open)
			s->cur.mdefault = 1;
	} else if (SUB("exit") || SUB("goto") || SUB("quit")) {
		if (s->cur.open)
			s->cur.nav = 1;
	} else if (SUB("include")) {
		return include(s, src, arg);
	} else if (SUB("begin")) {
		int r = close_label(s);
		if (r)
			return r;
		s->depth++;
		if (s->depth <= SX_MAX_MENU) {
			free(s->mname[s->depth]);
			s->mname[s->depth] = NULL;
			s->in_begin = 1;
			s->mtitled = 0;
			if (*arg && set(&s->mname[s->depth], arg))
				return -ENOMEM;
		}
	} else if (SUB("end")) {
		int r = close_label(s);
		if (r)
			return r;
		if (s->depth > 0) {
			if (s->depth <= SX_MAX_MENU) {
				free(s->mname[s->depth]);
				s->mname[s->depth] = NULL;
			}
			s->depth--;
		}
		s->in_begin = 0;
	}
#undef SUB
	return 0; /* colours, geometry, messages: presentation only */
}

static int parse_buf(struct sx *s, const char *name, const char *buf,
		     size_t len)
{
	const char *p = buf, *end = buf + len;
	int lineno = 0, r = 0;

	while (p < end && !r) {
		const char *l = p, *e = memchr(p, '\n', (size_t)(end - p));
		const char *k, *v, *raw;
		size_t ln, kl;
		char *val = NULL, src[512];

		if (!e)
			e = end;
		p = e < end ? e + 1 : end;
		lineno++;
		ln = (size_t)(e - l);
		/* the line as fgets leaves it without its \r\n: command lines
		 * (APPEND, DEFAULT, ONTIMEOUT) keep their trailing blanks, as
		 * real pxelinux hands them to the kernel */
		raw = e > l && e[-1] == '\r' ? e - 1 : e;
		while (ln && isws(*l)) {
			l++;
			ln--;
		}
		while (ln && isws(l[ln - 1]))
			ln--;
		if (!ln || *l == '#')
			continue;
		k = l;
		kl = 0;
		while (kl < ln && !isws(k[kl]))
			kl++;
		v = k + kl;
		while (v < l + ln && isws(*v))
			v++;
#define KW(w) (kl == strlen(w) && !strncasecmp(k, w, kl))
		if (s->text) {
			if (KW("endtext"))
				s->text = 0;
			continue;
		}
		if (!(val = strndup(v, (size_t)(((KW("append") || KW("default") || KW("ontimeout")) &&
						  v < l + ln ? raw : l + ln) - v))))
			return -ENOMEM;
		snprintf(src, sizeof(src), "%s:%d", name, lineno);
		if (KW("label")) {
			if (!(r = close_label(s))) {
				s->in_begin = 0;
				s->cur.open = 1;
				s->cur.kt = KT_NONE;
				s->cur.depth = s->depth;
				s->cur.ipappend = s->sysappend;
				if (!(s->cur.name = strdup(val)) ||
				    !(s->cur.src = strdup(src)))
					r = -ENOMEM;
			}
		} else if (KW("kernel")) {
			r = set_kernel(s, KT_AUTO, val);
		} else if (KW("linux")) {
			r = set_kernel(s, KT_LINUX, val);
		} else if (KW("com32")) {
			r = set_kernel(s, KT_COM32, val);
		} else if (KW("boot") || KW("bss") || KW("pxe") ||
			   KW("fdimage") || KW("comboot")) {
			r = set_kernel(s, KT_OTHER, val);
		} else if (KW("localboot")) {
			r = set_kernel(s, KT_LOCAL, val);
		} else if (KW("config")) {
			if (s->cur.open) {
				r = set_kernel(s, KT_CONFIG, val);
			} else if (s->nswitch >= SX_MAX_CONFIG) {
				lb_entries_msg(s->msgs, "%s: config: too many switches, ignored", src);
			} else {
				char *f = val, *d = val;

				while (*d && !isws(*d))
					d++;
				if (*d) {
					*d++ = 0;
					while (isws(*d))
						d++;
				}
				r = -ENOMEM;
				if ((s->sw_file = resolve(s->cwd, f)) &&
				    (!*d || (s->sw_dir = resolve(s->cwd, d))))
					r = SX_SWITCH;
			}
		} else if (KW("append")) {
			if (s->cur.open) {
				s->cur.has_append = 1;
				r = set(&s->cur.append, val);
			} else {
				r = set(&s->gappend, strcmp(val, "-") ? val : NULL);
			}
		} else if (KW("initrd")) {
			if (s->cur.open)
				r = set(&s->cur.initrd, val);
		} else if (KW("ipappend") || KW("sysappend")) {
			unsigned long b = strtoul(val, NULL, 0);

			b &= LB_SYSAPPEND_ALL;
			if (s->cur.open)
				s->cur.ipappend = (unsigned)b;
			else
				s->sysappend = (unsigned)b;
		} else if (KW("include")) {
			r = include(s, src, val);
		} else if (KW("menu")) {
			r = menu_kw(s, src, val);
		} else if (KW("text")) {
			s->text = 1;
		} else if (KW("default")) {
			if (!(r = set(&s->deflt, val)))
				r = set(&s->deflt_src, src);
		} else if (KW("ontimeout")) {
			if (!(r = set(&s->ontimeout, val)))
				r = set(&s->onto_src, src);
		} else if (KW("ui")) {
			s->ui = 1;
		} else if (KW("timeout")) {
			long t = strtol(val, NULL, 10);
			s->timeout = t < 0 ? 0 : t > 35996 ? 35996 : (int)t;
		} else if (KW("prompt")) {
			s->prompt = strtol(val, NULL, 10) != 0;
		} else if (KW("implicit")) {
			s->no_implicit = strtol(val, NULL, 10) == 0;
		}
		/* say, display, f1..f12, serial, font,
		 * kbdmap, path, allowoptions, totaltimeout, ...:
		 * nothing to do for a boot entry */
#undef KW
		free(val);
	}
	return r;
}

/* Index of the entry a DEFAULT/ONTIMEOUT command line boots; may add an
 * entry. -1 when it boots nothing we list. */
static long match_cmd(struct sx *s, const char *cmd, const char *src)
{
	struct lb_entry e = { 0 }, *d;
	const char *p = cmd, *w;
	long idx = -1;

	while (isws(*p))
		p++;
	w = p;
	while (*p && !isws(*p))
		p++;
	if (p == w)
		return -1;
	for (size_t i = 0; i < s->l.n; i++)
		if (strlen(s->l.v[i].id) == (size_t)(p - w) &&
		    !strncmp(s->l.v[i].id, w, (size_t)(p - w)))
			return (long)i;
	for (size_t i = 0; i < s->n_skipped; i++)
		if (strlen(s->skipped[i]) == (size_t)(p - w) &&
		    !strncmp(s->skipped[i], w, (size_t)(p - w))) {
			lb_entries_msg(s->msgs, "%s: default label %s boots nothing kexec can run, using the first entry",
				       src, s->skipped[i]);
			return -1;
		}
	if (s->no_implicit) {
		/* syslinux: "do not load a kernel image unless it has been
		 * explicitly named in a LABEL statement" */
		lb_entries_msg(s->msgs, "%s: default %.*s names no label and IMPLICIT 0 boots only labels, using the first entry",
			       src, (int)(p - w), w);
		return -1;
	}
	if (!(e.kernel = strndup(w, (size_t)(p - w))))
		return -ENOMEM;
	if (kernel_type(e.kernel) != KT_LINUX) {
		lb_entries_msg(s->msgs, "%s: '%s' is a module or label we do not list",
			       src, e.kernel);
		lb_entry_free(&e);
		return -1;
	}
	while (isws(*p))
		p++;
	if (ldlinux_entry(&e, e.kernel, p, s->msgs, src) || resolve_entry(&e, s->cwd))
		goto nomem;
	for (size_t i = 0; i < s->l.n && idx < 0; i++) {
		struct lb_entry *x = &s->l.v[i];
		int same = !strcmp(x->kernel, e.kernel) &&
			   !strcmp(x->cmdline ? x->cmdline : "",
				   e.cmdline ? e.cmdline : "") &&
			   x->n_initrd == e.n_initrd;

		for (size_t j = 0; same && j < e.n_initrd; j++)
			same = !strcmp(x->initrd[j], e.initrd[j]);
		if (same)
			idx = (long)i;
	}
	if (idx >= 0) {
		lb_entry_free(&e);
		return idx;
	}
	if (!(e.id = strdup(base(e.kernel))) || !(e.title = strdup(cmd)) ||
	    !(e.source = strdup(src)) || (s->o->fs && !(e.fs = strdup(s->o->fs))))
		goto nomem;
	if (!(d = lb_entries_add(&s->l)))
		goto nomem;
	*d = e;
	return (long)s->l.n - 1;
nomem:
	lb_entry_free(&e);
	return -ENOMEM;
}

static int is_menu_module(const char *d)
{
	const char *p = d, *b;
	char w[64];
	size_t n = 0;

	while (*p && !isws(*p) && n < sizeof(w) - 1)
		w[n++] = *p++;
	w[n] = 0;
	b = base(w);
	return ext_is(b, "menu.c32"); /* menu.c32, vesamenu.c32 */
}

static void reset(struct sx *s)
{
	lb_entries_free(&s->l);
	label_free(&s->cur);
	free(s->gappend);
	free(s->deflt);
	free(s->ontimeout);
	free(s->deflt_src);
	free(s->onto_src);
	free(s->menudef);
	s->gappend = s->deflt = s->ontimeout = NULL;
	s->deflt_src = s->onto_src = s->menudef = NULL;
	for (int i = 0; i <= SX_MAX_MENU; i++) {
		free(s->mname[i]);
		s->mname[i] = NULL;
	}
	for (size_t i = 0; i < s->n_skipped; i++)
		free(s->skipped[i]);
	s->n_skipped = 0;
	s->timeout = -1;
	s->prompt = s->ui = s->depth = s->incl = s->text = s->in_begin = 0;
	s->no_implicit = 0;
	s->first_top = -1;
}

int lb_syslinux_parse(const struct lb_syslinux_opts *o, const char *name,
		      const char *buf, size_t len, struct lb_entries *out)
{
	struct sx s;
	char *ownbuf = NULL, *ownname = NULL, *nbuf = NULL;
	long def = -1;
	int r, menu;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.msgs = out;
	s.l.timeout = -1;
	reset(&s);
	if (!(s.cwd = strdup(o->cwd ? o->cwd : "/")))
		return -ENOMEM;
	for (;;) {
		r = parse_buf(&s, name, buf, len);
		if (!r)
			r = close_label(&s);
		if (r != SX_SWITCH)
			break;
		/* CONFIG FILE [DIR]: start over with another file */
		s.nswitch++;
		if (s.sw_dir) {
			free(s.cwd);
			s.cwd = s.sw_dir;
			s.sw_dir = NULL;
		}
		reset(&s);
		r = o->read ? o->read(o->ctx, s.sw_file, &nbuf, &len) : -ENOSYS;
		if (r) {
			lb_entries_msg(out, "%s: config %s: %s", name, s.sw_file,
				       r == -ENOSYS ? "no file access" : strerror(-r));
			if (r != -ENOMEM)
				r = 0;
			break;
		}
		free(ownbuf);
		free(ownname);
		name = ownname = s.sw_file;
		s.sw_file = NULL;
		buf = ownbuf = nbuf;
		nbuf = NULL;
	}
	if (r)
		goto out;
	menu = s.ui || (s.deflt && is_menu_module(s.deflt));
	if (s.l.n) {
		if (s.ontimeout && s.timeout > 0)
			def = match_cmd(&s, s.ontimeout, s.onto_src);
		if (def == -ENOMEM) {
			r = -ENOMEM;
			goto out;
		}
		if (def < 0 && menu) {
			for (size_t i = 0; s.menudef && i < s.l.n && def < 0; i++)
				if (!strcmp(s.l.v[i].id, s.menudef))
					def = (long)i;
			for (size_t i = 0; s.deflt && i < s.l.n && def < 0; i++)
				if (!strcmp(s.l.v[i].id, s.deflt))
					def = (long)i;
		} else if (def < 0 && s.deflt) {
			def = match_cmd(&s, s.deflt, s.deflt_src);
			if (def == -ENOMEM) {
				r = -ENOMEM;
				goto out;
			}
		}
		if (def < 0)
			def = s.first_top >= 0 ? s.first_top : 0;
		lb_entries_set_default(&s.l, (size_t)def);
	}
	if (s.timeout > 0)
		s.l.timeout = (s.timeout + 9) / 10;
	else if (!menu && !s.prompt)
		s.l.timeout = 0; /* boots the default at once */
	else
		s.l.timeout = -1;
	{
		int t = s.l.timeout;

		s.l.timeout = -1;
		r = lb_entries_append(out, &s.l);
		if (!r && t >= 0 && out->timeout < 0)
			out->timeout = t;
	}
out:
	reset(&s);
	free(s.cwd);
	free(s.sw_file);
	free(s.sw_dir);
	free(ownbuf);
	free(ownname);
	return r;
}

static int fs_read(void *ctx, const char *path, char **buf, size_t *len)
{
	return lb_fs_read(ctx, path, LB_FS_MAX_CONFIG, buf, len);
}

int lb_syslinux_parse_fs(const struct lb_fs *fs, const char *path,
			 struct lb_entries *out)
{
	struct lb_syslinux_opts o = { 0 };
	char *buf, *dir;
	const char *sl;
	size_t len;
	int r;

	r = lb_fs_read(fs, path, LB_FS_MAX_CONFIG, &buf, &len);
	if (r)
		return r;
	sl = strrchr(path, '/');
	if (!(dir = sl ? strndup(path, (size_t)(sl - path)) : strdup("/"))) {
		free(buf);
		return -ENOMEM;
	}
	o.cwd = *dir ? dir : "/";
	o.read = fs_read;
	o.ctx = (void *)fs;
	o.fs = lb_fs_ident(fs);
	r = lb_syslinux_parse(&o, path, buf, len, out);
	free(dir);
	free(buf);
	return r;
}
