/* Boot order by policy: classes and stable hardware paths, lboot.order=. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "order.h"

static const char *const classes[] = {
	"nvme", "ata", "scsi", "virtio", "usb", "cd", "md", "dm", "mmc", "other",
};

static int read_flag(const char *dir, const char *attr)
{
	char p[PATH_MAX], b[8] = "";
	FILE *f;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, attr) >= sizeof(p) ||
	    !(f = fopen(p, "re")))
		return 0;
	if (!fgets(b, sizeof(b), f))
		b[0] = 0;
	fclose(f);
	return b[0] == '1';
}

const char *lb_order_class(const char *sysfs, const struct lb_fs *fs, int *removable,
			   char *path, size_t size)
{
	const char *name = fs->name ? fs->name : "", *base = strrchr(name, '/');
	char p[PATH_MAX], real[PATH_MAX], disk[PATH_MAX], *s;
	const char *cls = "other";

	*removable = 0;
	if (size)
		path[0] = 0;
	base = base ? base + 1 : name;
	if (!*base || strchr(base, '.') ||
	    (size_t)snprintf(p, sizeof(p), "%s/%s", sysfs ? sysfs : "/sys/class/block", base) >= sizeof(p) ||
	    !realpath(p, real))
		return cls;
	/* the disk: a partition's parent directory (it has a "partition" file) */
	snprintf(disk, sizeof(disk), "%s", real);
	if ((size_t)snprintf(p, sizeof(p), "%s/partition", real) < sizeof(p) && !access(p, F_OK) &&
	    (s = strrchr(disk, '/')))
		*s = 0;
	if (strstr(disk, "/usb"))
		cls = "usb";
	else if (!strncmp(base, "sr", 2))
		cls = "cd";
	else if (!strncmp(base, "nvme", 4))
		cls = "nvme";
	else if (!strncmp(base, "md", 2))
		cls = "md";
	else if (!strncmp(base, "dm-", 3))
		cls = "dm";
	else if (!strncmp(base, "mmcblk", 6))
		cls = "mmc";
	else if (!strncmp(base, "vd", 2))
		cls = "virtio";
	else if (strstr(disk, "/ata"))
		cls = "ata";
	else if (!strncmp(base, "sd", 2))
		cls = "scsi";
	*removable = !strcmp(cls, "usb") || !strcmp(cls, "cd") || read_flag(disk, "removable");
	/* the stable path: the disk's device in the sysfs tree, its block
	 * name cut off (…/0000:00:04.0/virtio2/block/vda -> …/virtio2) */
	if ((s = strstr(disk, "/block/")))
		*s = 0;
	if (size)
		snprintf(path, size, "%s", disk);
	return cls;
}

struct key {
	struct lb_fs fs;
	int rank, removable, cls;
	unsigned partno;
	char path[PATH_MAX];
};

static int token_match(const char *tok, const struct key *k)
{
	const struct lb_fs *fs = &k->fs;

	if (!strncmp(tok, "uuid=", 5))
		return fs->uuid && !strcasecmp(fs->uuid, tok + 5);
	if (!strncmp(tok, "label=", 6))
		return fs->label && !strcmp(fs->label, tok + 6);
	if (!strncmp(tok, "partuuid=", 9))
		return fs->partuuid && !strcasecmp(fs->partuuid, tok + 9);
	if (!strcmp(tok, "internal"))
		return !k->removable;
	if (!strcmp(tok, "removable"))
		return k->removable;
	return !strcmp(tok, classes[k->cls]);
}

static int known_token(const char *tok)
{
	if (!strncmp(tok, "uuid=", 5) || !strncmp(tok, "label=", 6) ||
	    !strncmp(tok, "partuuid=", 9) || !strcmp(tok, "internal") ||
	    !strcmp(tok, "removable") || !strcmp(tok, "net"))
		return 1;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(tok, classes[i]))
			return 1;
	return 0;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;
	int c;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->removable != b->removable)
		return a->removable - b->removable;
	if ((c = strcmp(a->path, b->path)))
		return c;
	if (a->partno != b->partno)
		return a->partno < b->partno ? -1 : 1;
	return strcmp(a->fs.name ? a->fs.name : "", b->fs.name ? b->fs.name : "");
}

/* the trailing partition number of a /dev name (vda2, nvme0n1p3): 0 none */
static unsigned partno(const char *name)
{
	size_t n = name ? strlen(name) : 0, i = n;

	while (i && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < n && i && (name[i - 1] == 'p' || (name[i - 1] >= 'a' && name[i - 1] <= 'z')) ?
	       (unsigned)strtoul(name + i, NULL, 10) : 0;
}

int lb_order_sort(struct lb_fsset *set, const char *spec, const char *sysfs)
{
	char buf[LB_ORDER_MAX], *toks[32], *save = NULL;
	size_t nt = 0;
	struct key *k;
	int net_first = 0, bad = 0;

	if (spec && *spec) {
		if (strlen(spec) >= sizeof(buf))
			return -EINVAL;
		strcpy(buf, spec);
		for (char *t = strtok_r(buf, ",", &save); t && nt < 32; t = strtok_r(NULL, ",", &save)) {
			if (!known_token(t))
				bad = 1;
			if (!strcmp(t, "net") && !nt)
				net_first = 1;
			toks[nt++] = t;
		}
	}
	if (bad) {
		nt = 0;
		net_first = 0;
	}
	if (set->n < 1)
		return bad ? -EINVAL : net_first;
	if (!(k = calloc(set->n, sizeof(*k))))
		return bad ? -EINVAL : net_first;
	for (size_t i = 0; i < set->n; i++) {
		const char *cls;

		k[i].fs = set->v[i];
		cls = lb_order_class(sysfs, &k[i].fs, &k[i].removable, k[i].path, sizeof(k[i].path));
		for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++)
			if (!strcmp(cls, classes[c]))
				k[i].cls = (int)c;
		k[i].partno = partno(k[i].fs.name);
		k[i].rank = (int)nt;
		for (size_t t = 0; t < nt; t++)
			if (token_match(toks[t], &k[i])) {
				k[i].rank = (int)t;
				break;
			}
		/* a filesystem without a device (tests, host dirs) keeps its place */
		if (!k[i].path[0])
			snprintf(k[i].path, sizeof(k[i].path), "~%08zu", i);
	}
	qsort(k, set->n, sizeof(*k), cmp_key);
	for (size_t i = 0; i < set->n; i++)
		set->v[i] = k[i].fs;
	free(k);
	return bad ? -EINVAL : net_first;
}
