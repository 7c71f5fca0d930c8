#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"

char *lb_strndup(const char *s, size_t n)
{
	return s ? strndup(s, n) : NULL;
}

int lb_setstr(char **dst, const char *s)
{
	char *c = NULL;

	if (s && !(c = strdup(s)))
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

struct lb_entry *lb_entries_add(struct lb_entries *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct lb_entry *v;

		if (cap > (size_t)1 << 20)
			return NULL;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

int lb_entry_add_initrd(struct lb_entry *e, const char *path)
{
	char *c;

	if (e->n_initrd >= LB_MAX_INITRDS)
		return -E2BIG;
	if (!(c = strdup(path)))
		return -ENOMEM;
	e->initrd[e->n_initrd++] = c;
	return 0;
}

void lb_entry_free(struct lb_entry *e)
{
	free(e->title);
	free(e->id);
	free(e->version);
	free(e->sort_key);
	free(e->machine_id);
	free(e->kernel);
	for (size_t i = 0; i < e->n_initrd; i++) {
		free(e->initrd[i]);
		free(e->initrd_cpio[i].path);
	}
	free(e->cmdline);
	free(e->devicetree);
	free(e->fs);
	free(e->source);
	free(e->cfg_file);
	free(e->cfg_cmdline);
	free(e->uncovered);
	memset(e, 0, sizeof(*e));
}

int lb_entry_mark_checked(struct lb_entry *e, int rc, const char *file)
{
	char *f = file ? strdup(file) : NULL;
	char *c = strdup(e->cmdline ? e->cmdline : "");

	free(e->cfg_file);
	free(e->cfg_cmdline);
	e->cfg_checked = 1;
	e->cfg_rc = rc;
	e->cfg_file = f;
	e->cfg_cmdline = c;
	if ((file && !f) || !c) {
		/* fail closed: a mark that cannot be sealed covers nothing */
		free(e->cfg_cmdline);
		e->cfg_cmdline = NULL;
		if (!e->cfg_rc)
			e->cfg_rc = -ENOMEM;
		return -ENOMEM;
	}
	return 0;
}

int lb_entries_msg(struct lb_entries *l, const char *fmt, ...)
{
	va_list ap;
	char *s, **v;
	int r;

	if (l->n_msgs >= 4096)
		return -E2BIG;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	/* the array holds 8, 16, 32... (a power of two from 8 up, never
	 * less than n_msgs): grown when full, not one slot each time */
	if (!l->n_msgs || (l->n_msgs >= 8 && !(l->n_msgs & (l->n_msgs - 1)))) {
		v = realloc(l->msgs, (l->n_msgs ? 2 * l->n_msgs : 8) * sizeof(*v));
		if (!v) {
			free(s);
			return -ENOMEM;
		}
		l->msgs = v;
	}
	l->msgs[l->n_msgs++] = s;
	return 0;
}

int lb_entries_append(struct lb_entries *d, struct lb_entries *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct lb_entry *n = lb_entries_add(d);
		if (!n)
			return -ENOMEM;
		*n = s->v[i];
		memset(&s->v[i], 0, sizeof(s->v[i]));
	}
	for (size_t i = 0; i < s->n_msgs; i++)
		if (lb_entries_msg(d, "%s", s->msgs[i]))
			return -ENOMEM;
	if (d->timeout < 0)
		d->timeout = s->timeout;
	lb_entries_free(s);
	return 0;
}

void lb_entries_remove(struct lb_entries *l, size_t i)
{
	if (i >= l->n)
		return;
	lb_entry_free(&l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
	l->n--;
}

void lb_entries_free(struct lb_entries *l)
{
	for (size_t i = 0; i < l->n; i++)
		lb_entry_free(&l->v[i]);
	free(l->v);
	for (size_t i = 0; i < l->n_msgs; i++)
		free(l->msgs[i]);
	free(l->msgs);
	memset(l, 0, sizeof(*l));
	l->timeout = -1;
}

void lb_entries_set_default(struct lb_entries *l, size_t i)
{
	for (size_t j = 0; j < l->n; j++)
		l->v[j].is_default = (j == i);
}

long lb_entries_default(const struct lb_entries *l)
{
	for (size_t j = 0; j < l->n; j++)
		if (l->v[j].is_default)
			return (long)j;
	return -1;
}

int lb_entries_select_default(struct lb_entries *l, const char *sel)
{
	char *end;
	long v;

	if (!sel || !*sel)
		return -EINVAL;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].id && !strcmp(l->v[i].id, sel)) {
			lb_entries_set_default(l, i);
			return 0;
		}
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].title && !strcmp(l->v[i].title, sel)) {
			lb_entries_set_default(l, i);
			return 0;
		}
	errno = 0;
	v = strtol(sel, &end, 10);
	if (!errno && !*end && v >= 0 && (size_t)v < l->n) {
		lb_entries_set_default(l, (size_t)v);
		return 0;
	}
	return -ENOENT;
}
