/*
 * GRUB menu: evaluates each recorded menu item as GRUB does when it is
 * booted, turns the result into lb_entry records, resolves `default`, and
 * holds the entry points of grub.h.
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
		if (g_work(ip, ip->env->bytes + 1)) {
			free(ids);
			break;
		}
		for (size_t k = 0; k < it->args.n; k++)
			sv_push(&pos, strdup(it->args.v[k]));
		env = pos.err ? NULL : g_env_clone(ip->env, it->kind == M_SUBMENU, &ip->oom);
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
				g_exec_list(ip, &it->def->body);
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
			g_setvar(ip, "chosen", ids);
			g_exec_list(ip, &it->def->body);
			ip->ectx = NULL;
			ip->cur = save_cur;
			if (ip->oom) {
				ectx_free(&e);
			} else if (e.bad) {
				g_msg(ip, it->file, it->line, "entry '%s' skipped: %s", it->title,
				    e.bad);
				ectx_free(&e);
			} else if (!e.kernel) {
				g_msg(ip, it->file, it->line, "entry '%s' skipped: %s", it->title,
				    e.other ? (!strcmp(e.other, "chainloader") ?
					       "chainloader is not supported" :
					       "not a Linux kernel") : "no linux command");
				ectx_free(&e);
			} else if (res->n >= g_lim.items || !(le = lb_entries_add(res))) {
				if (res->n < g_lim.items)
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
					g_msg(ip, it->file, it->line, "entry '%s': GRUB device '%s' "
					    "not known, assuming %s", it->title, e.kdev_unknown,
					    lb_fs_ident(e.kfsp));
				else if (e.kfsp && lb_fs_stat(e.kfsp, e.kernel, &st))
					g_msg(ip, it->file, it->line, "entry '%s': kernel %s not "
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
		g_env_free(env);
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
	lb_arena_free(&ip->ar);
	g_env_free(ip->env);
	for (size_t i = 0; i < ip->nfuncs; i++)
		free(ip->funcs[i].name);
	menu_free(&ip->top);
	while (ip->scripts) {
		struct script *s = ip->scripts;

		ip->scripts = s->next;
		g_list_free(&s->top);
		lb_arena_free(&s->ar);
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
	const char *dev = fs ? g_dev_value(fs) : NULL;
	long def;
	int r = 0;

	memset(&ip, 0, sizeof(ip));
	/* most configs expand a few KiB at a time: chunks of 4 KiB, not a
	 * fresh 32 KiB per run (what a larger expansion needs comes in a
	 * chunk of its size; G_MAX_WORK bounds them all) */
	lb_arena_chunk(&ip.ar, 4096);
	ip.cmd_find = g_cmd_find;
	ip.cmd_menu = g_cmd_menu;
	ip.all = all;
	ip.cfgfs = fs;
	ip.out = &res;
	ip.cur = &ip.top;
	ip.pos = &main_pos;
	ip.info = info;
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

		/* into an empty environment, each name once: no lookups;
		 * exported, as GRUB's core exports them, all but pager */
		const unsigned lit = G_ENV_LIT_NAME | G_ENV_LIT_VAL | G_ENV_NEW;
		const unsigned litx = lit | G_ENV_EXPORT, dynx = G_ENV_LIT_NAME | G_ENV_NEW | G_ENV_EXPORT;

		for (int i = 0; feat[i]; i++)
			g_env_add(ip.env, feat[i], "y", litx, &ip.oom);
		g_env_add(ip.env, "grub_platform", "efi", litx, &ip.oom);
		g_env_add(ip.env, "grub_cpu", "x86_64", litx, &ip.oom);
		g_env_add(ip.env, "pager", "", lit, &ip.oom);
		if (dev) {
			g_env_add(ip.env, "root", dev, dynx, &ip.oom);
			snprintf(pfx, sizeof(pfx), "(%s)%s", dev, strcmp(dir, "/") ? dir : "");
		} else {
			snprintf(pfx, sizeof(pfx), "%s", strcmp(dir, "/") ? dir : "");
		}
		g_env_add(ip.env, "prefix", pfx, dynx, &ip.oom);
		g_env_add(ip.env, "cmdpath", pfx, dynx, &ip.oom);
		g_env_add(ip.env, "config_directory", pfx, dynx, &ip.oom);
		snprintf(pfx + strlen(pfx), sizeof(pfx) - strlen(pfx), "/%s",
			 slash ? slash + 1 : name);
		g_env_add(ip.env, "config_file", pfx, dynx, &ip.oom);
	}
	r = g_run_script_buf(&ip, name, buf, len, 0);
	if (!ip.oom) {
		const char *t = g_getvar(&ip, "timeout"), *d;
		long long tv;

		if (t && g_is_int(t, &tv) && tv >= 0 && tv <= INT_MAX)
			res.timeout = (int)tv;
		/* the menu gets a budget of its own */
		ip.fatal = 0;
		ip.steps = 0;
		ip.work = 0;
		ip.cur = NULL;
		run_menu(&ip, &ip.top, NULL, &res);
		d = g_getvar(&ip, "default");
		def = d && *d ? resolve_default(&ip.top, d, 0) : -1;
		if (def < 0 && d && *d)
			g_msg(&ip, name, 0, "default '%s' not found, using the first entry", d);
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

void lb_grub_info_free(struct lb_grub_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->n_save; i++)
		for (size_t k = 0; k < info->save[i].n; k++) {
			free(info->save[i].name[k]);
			free(info->save[i].value[k]);
		}
	memset(info->save, 0, sizeof(info->save));
	info->n_save = 0;
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

	lb_grub_info_free(info); /* zeroed or from an earlier call */
	if (info)
		info->ran_blscfg = 0;
	if (!fs || !path || !out)
		return -EINVAL;
	r = lb_fs_read(fs, path, LB_FS_MAX_CONFIG, &buf, &len);
	if (r)
		return r;
	r = parse_main(all, fs, path, path, buf, len, out, info);
	free(buf);
	return r;
}
