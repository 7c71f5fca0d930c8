/* lboot ipxe: run an iPXE script and print what it would boot. */
#include "lboot.h"

LB_APPLET(ipxe, LB_HOST|LB_TARGET,
"usage: lboot ipxe [OPTIONS] SCRIPT\n"
"Run the iPXE script SCRIPT (a file; - for stdin) with lboot's interpreter\n"
"and print what it would boot: the kernel URL, its command line and the\n"
"initrds in order (with the cpio path and mode of \"initrd URL /path\n"
"mode=0600\"), or the URL it chains to, or exit/reboot/poweroff.\n"
"  --url URL        the script's own URL (base of relative URLs)\n"
"  --files DIR      answer fetches from DIR: URL path /a/b -> DIR/a/b\n"
"                   (scripts there run nested, a missing file fails the\n"
"                   command); without it nothing is fetched and chain/boot\n"
"                   of a URL ends with \"chain URL\"\n"
"  --set NAME=VALUE a setting the network would give (mac, ip, netmask,\n"
"                   gateway, dns, next-server, uuid, hostname, serial,\n"
"                   manufacturer, product, ...; net0/mac also answers mac\n"
"                   and netX/mac); repeatable\n"
"  --pick LABEL     the menu item chosen at the next \"choose\" (repeatable,\n"
"                   in order; default: the menu's default item)\n"
"  --trace          print \"fetch URL 200|404\" lines to stderr\n"
"  --json           one JSON object: action kernel name cmdline initrd[]\n"
"                   (url name cpio mode) exit_code error output\n"
"Script output (echo) goes to stdout before the result (stderr with\n"
"--json). Exit 0 when the script ended with a result, 1 when it failed,\n"
"2 on bad usage.\n")
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "ipxe.h"
#include "json.h"

#define MAX_SETS 64

struct app {
	const char *files;
	char *set_name[MAX_SETS], *set_val[MAX_SETS];
	int n_sets;
	char **picks;
	int n_picks;
	int json;
	int trace;
};

static int type_of(const char *name)
{
	static const struct { const char *n; int t; } tab[] = {
		{ "mac", LB_IPXE_HEX }, { "ip", LB_IPXE_IPV4 },
		{ "netmask", LB_IPXE_IPV4 }, { "gateway", LB_IPXE_IPV4 },
		{ "dns", LB_IPXE_IPV4 }, { "next-server", LB_IPXE_IPV4 },
		{ "dhcp-server", LB_IPXE_IPV4 }, { "uuid", LB_IPXE_UUID },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].n, name))
			return tab[i].t;
	return LB_IPXE_STRING;
}

static int app_setting(void *ctx, const char *block, const char *name,
		       char *buf, size_t size)
{
	struct app *a = ctx;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < a->n_sets; i++) {
			const char *n = a->set_name[i], *sl = strchr(n, '/');
			size_t bl = sl ? (size_t)(sl - n) : 0;
			const char *nm = sl ? sl + 1 : n;
			int match;
			if (strcmp(nm, name))
				continue;
			if (pass == 0) /* exact block */
				match = strlen(block) == bl && !strncmp(n, block, bl);
			else /* "mac"/"netX/mac" fall back to net0's */
				match = (!*block || !strcmp(block, "netX")) &&
					bl == 4 && !strncmp(n, "net0", 4);
			if (!match)
				continue;
			snprintf(buf, size, "%s", a->set_val[i]);
			return type_of(name);
		}
	}
	return -ENOENT;
}

static int app_fetch(void *ctx, const char *url, unsigned long tmo,
		     char **script, size_t *len)
{
	struct app *a = ctx;
	const char *p = strstr(url, "://");
	char path[8192 + 16], rel[4096], head[8];
	size_t pl;
	int fd, rc;
	ssize_t n;

	p = p ? strchr(p + 3, '/') : url;
	if (!p)
		return -ENOENT;
	pl = strcspn(p, "?#");
	if (pl >= sizeof(rel))
		return -ENAMETOOLONG;
	/* the URL path made relative to DIR, dot segments folded the way an
	 * HTTP server does; never above DIR */
	size_t rn = 0;
	for (size_t k = 0; k < pl;) {
		size_t e = k;
		while (e < pl && p[e] != '/')
			e++;
		size_t cl = e - k;
		if (cl == 2 && p[k] == '.' && p[k + 1] == '.') {
			if (!rn)
				return -EACCES;
			while (rn && rel[rn - 1] != '/')
				rn--;
			if (rn)
				rn--;
		} else if (cl && !(cl == 1 && p[k] == '.')) {
			if (rn)
				rel[rn++] = '/';
			memcpy(rel + rn, p + k, cl);
			rn += cl;
		}
		k = e + 1;
	}
	rel[rn] = 0;
	int pn = snprintf(path, sizeof(path), "%s/%s", a->files, rel);
	if (pn < 0 || (size_t)pn >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (a->trace)
		fprintf(stderr, "fetch %s %s\n", url, fd < 0 ? "404" : "200");
	if (fd < 0)
		return -errno;
	n = read(fd, head, sizeof(head));
	if (n < 0 || !lb_ipxe_is_script(head, (size_t)n)) {
		struct stat st;
		rc = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
		close(fd);
		return rc;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	uint8_t *buf;
	rc = lb_read_fd(fd, LB_IPXE_MAX_SCRIPT, &buf, len);
	close(fd);
	if (rc < 0)
		return rc;
	*script = (char *)buf;
	return 0;
}

static int app_choose(void *ctx, const struct lb_ipxe_menu *m, size_t def,
		      unsigned long tmo, size_t *chosen)
{
	struct app *a = ctx;

	*chosen = def;
	if (a->n_picks) {
		const char *want = a->picks[0];
		a->picks++;
		a->n_picks--;
		for (size_t i = 0; i < m->n; i++)
			if (m->items[i].label && !strcmp(m->items[i].label, want))
				*chosen = i;
	}
	return 0;
}

static void app_output(void *ctx, const char *text)
{
	struct app *a = ctx;
	fputs(text, a->json ? stderr : stdout);
}

/* NULL is JSON null here (an unset field), not "" */
static void json_str(FILE *f, const char *s)
{
	if (!s)
		fputs("null", f);
	else
		lb_json_str(f, s);
}

static const char *action_name(enum lb_ipxe_action a)
{
	switch (a) {
	case LB_IPXE_BOOT: return "boot";
	case LB_IPXE_CHAIN: return "chain";
	case LB_IPXE_REBOOT: return "reboot";
	case LB_IPXE_POWEROFF: return "poweroff";
	default: return "exit";
	}
}

static void print_result(const struct app *a, const struct lb_ipxe_result *r,
			 int rc)
{
	FILE *f = stdout;

	if (a->json) {
		fputs("{\"action\": ", f);
		json_str(f, rc < 0 ? "error" : action_name(r->action));
		fputs(", \"kernel\": ", f);
		json_str(f, r->kernel);
		fputs(", \"name\": ", f);
		json_str(f, r->name);
		fputs(", \"cmdline\": ", f);
		json_str(f, r->cmdline);
		fputs(", \"initrd\": [", f);
		for (size_t i = 0; i < r->n_initrd; i++) {
			fputs(i ? ", {\"url\": " : "{\"url\": ", f);
			json_str(f, r->initrd[i].url);
			fputs(", \"name\": ", f);
			json_str(f, r->initrd[i].name);
			fputs(", \"cpio\": ", f);
			json_str(f, r->initrd[i].cpio_name);
			fprintf(f, ", \"mode\": \"%04o\"}", r->initrd[i].mode);
		}
		fprintf(f, "], \"exit_code\": %d, \"error\": ", r->exit_code);
		json_str(f, r->error);
		fputs("}\n", f);
		return;
	}
	if (rc < 0)
		return;
	printf("%s", action_name(r->action));
	if (r->action == LB_IPXE_EXIT)
		printf(" %d", r->exit_code);
	if (r->kernel)
		printf(" %s", r->kernel);
	putchar('\n');
	if (r->kernel)
		printf("name %s\ncmdline %s\n", r->name, r->cmdline ? r->cmdline : "");
	for (size_t i = 0; i < r->n_initrd; i++) {
		printf("initrd %s name=%s", r->initrd[i].url, r->initrd[i].name);
		if (r->initrd[i].cpio_name)
			printf(" cpio=%s mode=%04o", r->initrd[i].cpio_name,
			       r->initrd[i].mode);
		putchar('\n');
	}
}

int ipxe_main(int argc, char **argv)
{
	struct app a = { 0 };
	struct lb_ipxe_host h = { .ctx = &a, .setting = app_setting,
				  .choose = app_choose, .output = app_output };
	struct lb_ipxe_result r;
	const char *url = NULL, *file = NULL;
	char *picks[64];
	uint8_t *buf = NULL;
	size_t len;
	int rc, i;

	a.picks = picks;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--json")) {
			a.json = 1;
		} else if (!strcmp(o, "--trace")) {
			a.trace = 1;
		} else if (!strcmp(o, "--url") && i + 1 < argc) {
			url = argv[++i];
		} else if (!strcmp(o, "--files") && i + 1 < argc) {
			a.files = argv[++i];
		} else if (!strcmp(o, "--pick") && i + 1 < argc) {
			if (a.n_picks == 64) {
				lb_err("too many --pick");
				return 2;
			}
			picks[a.n_picks++] = argv[++i];
		} else if (!strcmp(o, "--set") && i + 1 < argc) {
			char *eq = strchr(argv[++i], '=');
			if (!eq || eq == argv[i] || a.n_sets == MAX_SETS) {
				lb_err("bad --set '%s' (NAME=VALUE, at most %d)",
				       argv[i], MAX_SETS);
				return 2;
			}
			*eq = 0;
			a.set_name[a.n_sets] = argv[i];
			a.set_val[a.n_sets++] = eq + 1;
		} else if (o[0] == '-' && o[1] && strcmp(o, "-")) {
			lb_err("unknown option '%s'", o);
			lb_usage("ipxe");
			return 2;
		} else if (!file) {
			file = o;
		} else {
			lb_usage("ipxe");
			return 2;
		}
	}
	if (!file) {
		lb_usage("ipxe");
		return 2;
	}
	if (a.files)
		h.fetch = app_fetch;
	rc = !strcmp(file, "-") ? lb_read_fd(0, LB_IPXE_MAX_SCRIPT + 1, &buf, &len)
				: lb_read_path(file, LB_IPXE_MAX_SCRIPT + 1, &buf, &len);
	if (rc < 0) {
		lb_err("%s: %s", file, strerror(-rc));
		return 1;
	}
	rc = lb_ipxe_run(&h, url ? url : file, (const char *)buf, len, &r);
	free(buf);
	fflush(stdout);
	print_result(&a, &r, rc);
	if (rc < 0)
		lb_err("%s", r.error ? r.error : strerror(-rc));
	lb_ipxe_result_free(&r);
	return rc < 0 ? 1 : 0;
}
