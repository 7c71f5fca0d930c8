/* iPXE script interpreter: real scripts (tests/files/ipxe/) and the
 * language's corner cases, checked against iPXE's own semantics. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipxe.h"
#include "t.h"

/* ---- a test host ----------------------------------------------------- */

struct file {
	const char *url;
	const char *fixture; /* tests/files/ipxe/NAME, or NULL */
	const char *text;    /* inline script, or NULL */
	int err;             /* fetch fails with this */
};

struct host {
	const struct file *files;
	const char *const *picks; /* labels the menu user picks, in order */
	int n_picks;
	int escape;               /* the user leaves every menu */
	char out[65536];
	size_t n_out;
	char log[4096];           /* fetches and net commands, one a line */
	size_t n_log;
	int menus;
	char last_menu_title[256];
	size_t last_menu_items;
	unsigned long last_timeout;
	unsigned long slept;
	int dhcp_fails;           /* the first N dhcp fail */
	int strict;               /* unlisted URLs fail (else: a kernel) */
};

static void addlog(struct host *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(h->log + h->n_log, sizeof(h->log) - h->n_log, fmt, ap);
	va_end(ap);
	if (n > 0 && h->n_log + (size_t)n < sizeof(h->log))
		h->n_log += (size_t)n;
}

static char *read_fixture(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/ipxe/%s", t_files(), name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static int h_setting(void *ctx, const char *block, const char *name,
		     char *buf, size_t size)
{
	static const struct { const char *b, *n, *v; int t; } tab[] = {
		{ "", "mac", "52:54:00:12:34:56", LB_IPXE_HEX },
		{ "net0", "mac", "52:54:00:12:34:56", LB_IPXE_HEX },
		{ "netX", "mac", "52:54:00:12:34:56", LB_IPXE_HEX },
		{ "", "ip", "10.0.2.15", LB_IPXE_IPV4 },
		{ "net0", "ip", "10.0.2.15", LB_IPXE_IPV4 },
		{ "", "netmask", "255.255.255.0", LB_IPXE_IPV4 },
		{ "", "gateway", "10.0.2.2", LB_IPXE_IPV4 },
		{ "net0", "gateway", "10.0.2.2", LB_IPXE_IPV4 },
		{ "", "dns", "10.0.2.3", LB_IPXE_IPV4 },
		{ "", "next-server", "10.0.2.2", LB_IPXE_IPV4 },
		{ "", "uuid", "5b1e4b3c-aa55-4d3e-8c1b-123456789abc", LB_IPXE_UUID },
		{ "", "hostname", "node7", LB_IPXE_STRING },
		{ "", "serial", "SN 0042", LB_IPXE_STRING },
		{ "", "manufacturer", "QEMU", LB_IPXE_STRING },
		{ "", "product", "Standard PC (Q35 + ICH9, 2009)", LB_IPXE_STRING },
		{ "", "selfref", "${selfref}", LB_IPXE_STRING },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!strcmp(tab[i].b, block) && !strcmp(tab[i].n, name)) {
			snprintf(buf, size, "%s", tab[i].v);
			return tab[i].t;
		}
	}
	return -ENOENT;
}

static int h_fetch(void *ctx, const char *url, unsigned long tmo, char **script,
		   size_t *len)
{
	struct host *h = ctx;
	addlog(h, "fetch %s\n", url);
	for (const struct file *f = h->files; f && f->url; f++) {
		if (strcmp(f->url, url))
			continue;
		if (f->err)
			return f->err;
		if (f->fixture) {
			*script = read_fixture(f->fixture, len);
			return *script ? 0 : -EIO;
		}
		if (f->text) {
			*len = strlen(f->text);
			*script = malloc(*len + 1);
			memcpy(*script, f->text, *len + 1);
		}
		return 0; /* a kernel or initrd: no script bytes */
	}
	if (!h->strict && !strstr(url, "missing"))
		return 0;
	return -ENOENT;
}

static int h_choose(void *ctx, const struct lb_ipxe_menu *m, size_t def,
		    unsigned long tmo, size_t *chosen)
{
	struct host *h = ctx;
	h->menus++;
	snprintf(h->last_menu_title, sizeof(h->last_menu_title), "%s", m->title);
	h->last_menu_items = m->n;
	h->last_timeout = tmo;
	if (h->escape)
		return -ECANCELED;
	*chosen = def;
	if (h->n_picks) {
		const char *want = h->picks[0];
		h->picks++;
		h->n_picks--;
		for (size_t i = 0; i < m->n; i++)
			if (m->items[i].label && !strcmp(m->items[i].label, want))
				*chosen = i;
	}
	return 0;
}

static void h_output(void *ctx, const char *text)
{
	struct host *h = ctx;
	size_t n = strlen(text);
	if (h->n_out + n < sizeof(h->out)) {
		memcpy(h->out + h->n_out, text, n + 1);
		h->n_out += n;
	}
}

static int h_net(void *ctx, const char *cmd, const char *arg)
{
	struct host *h = ctx;
	addlog(h, "%s %s\n", cmd, arg);
	if (!strcmp(cmd, "dhcp") && h->dhcp_fails > 0) {
		h->dhcp_fails--;
		return -ETIMEDOUT;
	}
	return 0;
}

static void h_sleep(void *ctx, unsigned long ms)
{
	((struct host *)ctx)->slept += ms;
}

static struct lb_ipxe_host mkhost(struct host *h)
{
	struct lb_ipxe_host x = {
		.ctx = h, .setting = h_setting, .fetch = h_fetch,
		.choose = h_choose, .output = h_output, .net = h_net,
		.sleep = h_sleep,
	};
	return x;
}

static int run_text(struct host *h, const char *url, const char *text,
		    struct lb_ipxe_result *r)
{
	struct lb_ipxe_host x = mkhost(h);
	return lb_ipxe_run(&x, url, text, strlen(text), r);
}

static int run_fixture(struct host *h, const char *url, const char *name,
		       struct lb_ipxe_result *r)
{
	size_t len;
	char *buf = read_fixture(name, &len);
	struct lb_ipxe_host x = mkhost(h);
	int rc;
	if (!buf) {
		printf("# missing fixture %s\n", name);
		return -999;
	}
	rc = lb_ipxe_run(&x, url, buf, len, r);
	free(buf);
	return rc;
}

/* ---- table: small scripts ------------------------------------------------ */

struct tcase {
	const char *name;
	const char *script;
	int rc;
	enum lb_ipxe_action action;
	const char *kernel;
	const char *cmdline;
	const char *initrds;   /* "url|url" or NULL */
	const char *out;       /* expected output (exact), NULL = not checked */
	const char *error;     /* substring of res.error */
};

static const struct file small_files[] = {
	{ "http://srv/boot/next.ipxe", NULL,
	  "#!ipxe\necho in next ${x}\nset x changed\nexit\n", 0 },
	{ "http://srv/boot/fail.ipxe", NULL, "#!ipxe\nexit 3\n", 0 },
	{ "http://srv/boot/self.ipxe", NULL, "#!ipxe\nchain self.ipxe\n", 0 },
	{ "http://srv/boot/k.ipxe", NULL,
	  "#!ipxe\nkernel vmlinuz from=k\ninitrd ../initrd.img\nboot\n", 0 },
	{ "http://srv/boot/missing", NULL, NULL, -ENOENT },
	{ NULL, NULL, NULL, 0 },
};

static const struct tcase cases[] = {
	{ "kernel-initrd-boot",
	  "#!ipxe\nkernel vmlinuz console=ttyS0 quiet\ninitrd initrd.img\nboot\n",
	  0, LB_IPXE_BOOT, "http://srv/boot/vmlinuz", "console=ttyS0 quiet",
	  "http://srv/boot/initrd.img", NULL, NULL },
	{ "relative-uris",
	  "#!ipxe\nkernel ../k/./vmlinuz\ninitrd /abs/i1\ninitrd //other/i2\n"
	  "initrd tftp://t/i3\nboot\n",
	  0, LB_IPXE_BOOT, "http://srv/k/./vmlinuz", NULL,
	  "http://srv/abs/i1|http://srv//other/i2|tftp://t/i3", NULL, NULL },
	{ "no-header", "kernel x\nboot\n", -ENOEXEC, 0, NULL, NULL, NULL, NULL,
	  "not an iPXE script" },
	{ "gpxe-header", "#!gpxe\nkernel x\nboot\n", 0, LB_IPXE_BOOT,
	  "http://srv/boot/x", NULL, "", NULL, NULL },
	{ "ends-without-boot", "#!ipxe\necho hi\n", 0, LB_IPXE_EXIT, NULL, NULL,
	  NULL, "hi\n", NULL },
	{ "echo-n-and-comment", "#!ipxe\necho -n a b  c # not this\necho d\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL, "a b cd\n", NULL },
	{ "unknown-command",
	  "#!ipxe\necho one\nfrobnicate --now\necho never\n", -ENOEXEC, 0,
	  NULL, NULL, NULL, "one\nfrobnicate: command not found\n",
	  "http://srv/boot/t.ipxe:3: frobnicate: command not found" },
	{ "unknown-command-or", "#!ipxe\nfrobnicate || echo caught\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL,
	  "frobnicate: command not found\ncaught\n", NULL },
	{ "and-or-chains",
	  "#!ipxe\nisset ${nothing} && echo A || echo B\n"
	  "iseq a a && echo C || echo D\niseq a b ; echo E\nisset ${x} ||\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL, "B\nC\nE\n", NULL },
	{ "failure-ends-script", "#!ipxe\necho a\niseq 1 2\necho b\n", -ERANGE,
	  0, NULL, NULL, NULL, "a\n", "t.ipxe:3: iseq failed" },
	{ "goto-and-labels",
	  "#!ipxe\ngoto two\n:one echo one\nexit\n  :two\necho two\ngoto one\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL, "two\none\n", NULL },
	{ "goto-missing", "#!ipxe\ngoto nowhere\n", -ENOENT, 0, NULL, NULL,
	  NULL, NULL, "goto: no label :nowhere" },
	{ "goto-loop", "#!ipxe\n:a goto a\n", -ELOOP, 0, NULL, NULL, NULL, NULL,
	  "a goto loop" },
	{ "goto-loop-two-lines", "#!ipxe\n:a\necho -n\ngoto a\n", -ELOOP, 0,
	  NULL, NULL, NULL, NULL, "more than 10000 commands" },
	{ "goto-rest-of-line-skipped", "#!ipxe\ngoto x ; echo no\n:x\necho yes\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL, "yes\n", NULL },
	{ "exit-code", "#!ipxe\nexit 7\necho no\n", 0, LB_IPXE_EXIT, NULL, NULL,
	  NULL, "", NULL },
	{ "set-expand-one-token",
	  "#!ipxe\nset a x  y\nset b ${a}z\necho [${b}] ${undefined}[]\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL, "[x yz] []\n", NULL },
	{ "nested-expansion",
	  "#!ipxe\nset n 2\nset v2 two\necho ${v${n}} ${v${n}:hexhyp}\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL, "two 74-77-6f\n", NULL },
	{ "expansion-rebuilt-reference",
	  "#!ipxe\nset d $\nset o {\nset hostname x\necho ${d}${o}hostname}\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL, "x\n", NULL },
	{ "expansion-never-ends", "#!ipxe\necho ${selfref}\n",
	  -ELOOP, 0, NULL, NULL, NULL, NULL, "does not end" },
	{ "retry-then-reboot",
	  "#!ipxe\nset attempt:int32 1\n:start\nkernel missing || goto retry\n"
	  "boot\n:retry\niseq ${attempt} 3 && reboot ||\ninc attempt\n"
	  "echo attempt ${attempt}\ngoto start\n", 0, LB_IPXE_REBOOT, NULL, NULL,
	  NULL, NULL, NULL },
	{ "host-settings",
	  "#!ipxe\necho ${net0/mac} ${mac:hexraw} ${netX/mac:hexhyp} ${ip} "
	  "${netmask} ${gateway} ${dns} ${next-server}\n"
	  "echo ${uuid} ${hostname} ${serial} ${manufacturer}\n"
	  "echo ${platform} ${buildarch} ${ip:hexraw} ${ip:uint32}\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "52:54:00:12:34:56 525400123456 52-54-00-12-34-56 10.0.2.15 "
	  "255.255.255.0 10.0.2.2 10.0.2.3 10.0.2.2\n"
	  "5b1e4b3c-aa55-4d3e-8c1b-123456789abc node7 SN 0042 QEMU\n"
	  "efi x86_64 0a00020f 0xa00020f\n", NULL },
	{ "user-setting-hides-host", "#!ipxe\nset hostname mine\necho ${hostname}\n"
	  "clear hostname\necho ${hostname}\n", 0, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "mine\nnode7\n", NULL },
	{ "typed-settings",
	  "#!ipxe\nset esc:hex 1b\nset x:int32 -1\nset u:uint8 300\n"
	  "set h:hexraw 414243\necho = ${x} ${u} ${h:string} ${h:base64} ${x:hex}\n"
	  "set s ${esc:string}[1m\necho ${s:hexhyp}\nset ip 192.168.0.9\n"
	  "echo ${ip:hex}\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "= -1 0x2c ABC QUJD ff:ff:ff:ff\n1b-5b-31-6d\nc0:a8:00:09\n", NULL },
	/* expansion happens before option parsing, as in iPXE */
	{ "expanded-option", "#!ipxe\nset x -1\necho ${x}\n", -EINVAL, 0, NULL,
	  NULL, NULL, "echo: unrecognised option '-1'\n", NULL },
	{ "typed-invalid", "#!ipxe\nset ip 999.1.1.1\n", -EINVAL, 0, NULL, NULL,
	  NULL, NULL, "invalid ipv4" },
	{ "set-type-not-kept",
	  "#!ipxe\nset space:hex 20:20\nset space ${space:string}\n"
	  "echo [${space}]\n", 0, LB_IPXE_EXIT, NULL, NULL, NULL, "[  ]\n", NULL },
	{ "inc", "#!ipxe\nset n:int32 1\ninc n\ninc n 10\ninc fresh\n"
	  "echo ${n} ${fresh}\nset s 1\ninc s || echo string-not-number\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "12 1\ninc: \"s\" is not a number\nstring-not-number\n", NULL },
	{ "imgargs-imgfree-name",
	  "#!ipxe\nkernel --name k vmlinuz a=1\ninitrd --name one i1\n"
	  "initrd i2\nimgfree i2\nimgargs k b=2 c=3\nboot k\n",
	  0, LB_IPXE_BOOT, "http://srv/boot/vmlinuz", "b=2 c=3",
	  "http://srv/boot/i1", NULL, NULL },
	{ "imgfree-all", "#!ipxe\ninitrd old\nkernel oldk\nimgfree\nkernel k\nboot\n",
	  0, LB_IPXE_BOOT, "http://srv/boot/k", NULL, "", NULL, NULL },
	{ "boot-nothing-selected", "#!ipxe\nboot || echo none\necho next\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL, "No image selected\nnext\n", NULL },
	/* a chained script that returned is registered again: iPXE passes it
	 * to the kernel as an initrd (hence "imgfree" before "kernel") */
	{ "returned-script-is-initrd",
	  "#!ipxe\ninitrd a.img\nchain next.ipxe\nkernel k\nboot\n", 0,
	  LB_IPXE_BOOT, "http://srv/boot/k", NULL,
	  "http://srv/boot/a.img|http://srv/boot/next.ipxe", NULL, NULL },
	{ "autofree-script-is-not",
	  "#!ipxe\nchain --autofree next.ipxe\nkernel k\nboot\n", 0,
	  LB_IPXE_BOOT, "http://srv/boot/k", NULL, "", NULL, NULL },
	{ "fetch-fails-or",
	  "#!ipxe\nkernel missing || goto fallback\nboot\n:fallback\n"
	  "kernel ok\nboot\n", 0, LB_IPXE_BOOT, "http://srv/boot/ok", NULL, "",
	  NULL, NULL },
	{ "fetch-fails", "#!ipxe\nkernel missing\nboot\n", -ENOENT, 0, NULL,
	  NULL, NULL, NULL, "Could not select http://srv/boot/missing" },
	{ "chain-nested-returns",
	  "#!ipxe\nset x orig\nchain next.ipxe\necho after ${x}\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL, "in next orig\nafter changed\n", NULL },
	{ "chain-exit-code-fails", "#!ipxe\nchain fail.ipxe || echo failed\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL, NULL, NULL },
	{ "chain-to-kernel-script",
	  "#!ipxe\ninitrd extra.img\nchain k.ipxe\n", 0, LB_IPXE_BOOT,
	  "http://srv/boot/vmlinuz", "from=k",
	  "http://srv/boot/extra.img|http://srv/initrd.img", NULL, NULL },
	{ "chain-kernel-args", "#!ipxe\nchain vmlinuz root=/dev/sda\n", 0,
	  LB_IPXE_BOOT, "http://srv/boot/vmlinuz", "root=/dev/sda", "", NULL,
	  NULL },
	{ "chain-depth", "#!ipxe\nchain self.ipxe\n", -ELOOP, 0, NULL, NULL,
	  NULL, NULL, "nested more than 8 deep" },
	{ "sleep-budget", "#!ipxe\n:a\nsleep 10\ngoto a\n", -ETIMEDOUT, 0, NULL,
	  NULL, NULL, NULL, "more than 600 s of sleeping" },
	{ "sleep-huge", "#!ipxe\nsleep 4294967295\n", -ETIMEDOUT, 0, NULL, NULL,
	  NULL, NULL, "sleep: more than 600 s" },
	{ "reboot", "#!ipxe\necho x\nreboot\necho no\n", 0, LB_IPXE_REBOOT,
	  NULL, NULL, NULL, "x\n", NULL },
	{ "poweroff", "#!ipxe\npoweroff\n", 0, LB_IPXE_POWEROFF, NULL, NULL,
	  NULL, NULL, NULL },
	{ "bad-option", "#!ipxe\nkernel --bogus x\n", -EINVAL, 0, NULL, NULL,
	  NULL, NULL, "kernel: unrecognised option '--bogus'" },
	{ "timeout-option",
	  "#!ipxe\nkernel --timeout=5000 -n kk vmlinuz\nboot kk\n", 0,
	  LB_IPXE_BOOT, "http://srv/boot/vmlinuz", NULL, "", NULL, NULL },
	{ "options-stop-at-uri", "#!ipxe\nkernel vmlinuz --name x\nboot\n", 0,
	  LB_IPXE_BOOT, "http://srv/boot/vmlinuz", "--name x", "", NULL, NULL },
	{ "prompt-no-console",
	  "#!ipxe\nprompt --key 0x02 --timeout 2000 Press Ctrl-B && shell ||\n"
	  "echo went on\nprompt x && shell\necho never\n", -ETIMEDOUT, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "Press Ctrl-B\nwent on\nx\n", "prompt failed" },
	{ "unsupported-sanboot", "#!ipxe\nsanboot --no-describe\n", -ENOTSUP, 0,
	  NULL, NULL, NULL, NULL, "sanboot: not supported by lboot" },
	{ "imgverify-fails", "#!ipxe\nkernel k\nimgverify k k.sig || exit 1\nboot\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL, NULL, NULL },
	{ "cpuid-long-mode",
	  "#!ipxe\ncpuid --ext 29 && set arch x86_64 || set arch i386\necho ${arch}\n",
	  0, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "x86_64\n", NULL },
	{ "continuation-and-crlf",
	  "#!ipxe\r\nkernel vmlinuz a \\\r\n  b\r\nboot\r\n", 0, LB_IPXE_BOOT,
	  "http://srv/boot/vmlinuz", "a b", "", NULL, NULL },
	{ "menu-default",
	  "#!ipxe\nmenu Pick one\nitem --gap -- Systems\nitem a Alpha\n"
	  "item --default b Beta\nitem --key c c Gamma\n"
	  "choose --timeout 3000 sel && echo ${sel}\n", 0, LB_IPXE_EXIT, NULL,
	  NULL, NULL, "b\n", NULL },
	{ "menu-choose-default-option",
	  "#!ipxe\nmenu\nitem a A\nitem b B\nchoose --default b sel\n"
	  "echo ${sel}\nchoose x || echo gone\n", 0, LB_IPXE_EXIT, NULL, NULL,
	  NULL, "b\n\"\": no such menu\ngone\n", NULL },
	{ "menu-named-keep",
	  "#!ipxe\nmenu --name m T\nitem --menu m one 1\n"
	  "choose --menu m --keep s\nchoose --menu m t\necho ${s}${t}\n", 0,
	  LB_IPXE_EXIT, NULL, NULL, NULL, "oneone\n", NULL },
	{ "dhcp-retry",
	  "#!ipxe\nset tries:int32 0\n:retry\ninc tries\ndhcp || goto retry\n"
	  "echo ok after ${tries}\n", 0, LB_IPXE_EXIT, NULL, NULL, NULL,
	  "Could not configure net0: Connection timed out\n"
	  "Could not configure net0: Connection timed out\nok after 3\n", NULL },
	{ "uri-escaping",
	  "#!ipxe\nchain http://x/api/${serial}?model=${product}\n", 0,
	  LB_IPXE_BOOT, "http://x/api/SN%200042?model=Standard%20PC%20(Q35%20+%20ICH9,%202009)",
	  NULL, "", NULL, NULL },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL },
};

static void check_initrds(const struct lb_ipxe_result *r, const char *want)
{
	char got[4096] = "";
	size_t n = 0;
	for (size_t i = 0; i < r->n_initrd; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s", i ? "|" : "",
				      r->initrd[i].url);
	CHECK_STR(got, want);
}

static void run_cases(void)
{
	for (const struct tcase *c = cases; c->name; c++) {
		TEST(c->name) {
			struct host h = { .files = small_files, .dhcp_fails = 2 };
			struct lb_ipxe_result r;
			int rc = run_text(&h, "http://srv/boot/t.ipxe", c->script, &r);
			CHECK_INT(rc, c->rc);
			if (rc == 0)
				CHECK_INT(r.action, c->action);
			if (c->kernel)
				CHECK_STR(r.kernel, c->kernel);
			if (c->cmdline)
				CHECK_STR(r.cmdline, c->cmdline);
			else if (c->action == LB_IPXE_BOOT)
				CHECK(r.cmdline == NULL);
			if (c->initrds)
				check_initrds(&r, c->initrds);
			if (c->out)
				CHECK_STR(h.out, c->out);
			if (c->error) {
				CHECK(r.error && strstr(r.error, c->error));
				if (!r.error || !strstr(r.error, c->error))
					printf("# error: %s\n", r.error ? r.error : "(null)");
			}
			if (rc < 0)
				CHECK(r.error != NULL);
			lb_ipxe_result_free(&r);
		}
	}
}

/* ---- real scripts --------------------------------------------------------- */

static const struct file nbxyz_files[] = {
	{ "http://boot.example/boot.cfg", "netbootxyz-boot.cfg", NULL, 0 },
	{ "http://boot.example/linux.ipxe", "netbootxyz-linux.ipxe", NULL, 0 },
	{ "http://boot.example/debian.ipxe", "netbootxyz-debian.ipxe", NULL, 0 },
	{ "https://boot.netboot.xyz/version.ipxe", NULL, NULL, -ENETUNREACH },
	{ "http://deb.debian.org/debian/dists/bookworm/main/installer-amd64/current/images/netboot/debian-installer/amd64/linux", NULL, NULL, 0 },
	{ "http://deb.debian.org/debian/dists/bookworm/main/installer-amd64/current/images/netboot/debian-installer/amd64/initrd.gz", NULL, NULL, 0 },
	{ "http://deb.debian.org/debian/dists/trixie/main/installer-amd64/current/images/netboot/gtk/debian-installer/amd64/linux", NULL, NULL, 0 },
	{ "http://deb.debian.org/debian/dists/trixie/main/installer-amd64/current/images/netboot/gtk/debian-installer/amd64/initrd.gz", NULL, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};

static void test_netbootxyz(void)
{
	TEST("netbootxyz-menu-default-local") {
		struct host h = { .strict = 1, .files = nbxyz_files };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "http://boot.example/menu.ipxe",
				     "netbootxyz-menu.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_EXIT);
		CHECK_INT(r.exit_code, 0);
		CHECK_INT(h.menus, 1);
		/* the title uses boot.cfg's settings and the host's next-server */
		CHECK_STR(h.last_menu_title, "netboot.xyz v2.0.84 - next-server: 10.0.2.2");
		/* 3 gaps + local, linux, live, bsd, utils-efi, change_arch, shell,
		 * netinfo, lspci, about */
		CHECK_INT(h.last_menu_items, 13);
		CHECK_INT(h.last_timeout, 300000);
		CHECK(strstr(h.out, "Booting from local disks ...\n") != NULL);
		CHECK(strstr(h.log, "fetch http://boot.example/boot.cfg\n") != NULL);
		CHECK(strstr(h.log, "ntp 0.pool.ntp.org\n") != NULL);
		CHECK(strstr(h.log, "dhcp") == NULL); /* ${ip} was set */
		lb_ipxe_result_free(&r);
	}
	TEST("netbootxyz-debian-text-install") {
		static const char *const picks[] = { "linux", "debian" };
		struct host h = { .strict = 1, .files = nbxyz_files, .picks = picks, .n_picks = 2 };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "http://boot.example/menu.ipxe",
				     "netbootxyz-menu.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_STR(r.kernel, "http://deb.debian.org/debian/dists/bookworm/main/installer-amd64/current/images/netboot/debian-installer/amd64/linux");
		/* iPXE joins the (empty) expanded tokens with single spaces */
		CHECK_STR(r.cmdline, "  mirror/suite=bookworm initrd=initrd.magic ");
		CHECK_INT(r.n_initrd, 1);
		if (r.n_initrd == 1) {
			CHECK_STR(r.initrd[0].url, "http://deb.debian.org/debian/dists/bookworm/main/installer-amd64/current/images/netboot/debian-installer/amd64/initrd.gz");
			CHECK_STR(r.initrd[0].name, "initrd.gz");
			CHECK(r.initrd[0].cpio_name == NULL);
		}
		CHECK_INT(h.menus, 4); /* main, linux, debian release, type */
		CHECK_STR(h.last_menu_title, "Debian [bookworm] Installer");
		CHECK(strstr(h.out, "(md5 not computed by lboot)  linux\n") != NULL);
		/* "echo ${cls}" printed ESC [ J */
		CHECK(strstr(h.out, "\x1b[J\n") != NULL);
		lb_ipxe_result_free(&r);
	}
	TEST("netbootxyz-debian-graphical-trixie") {
		static const char *const picks[] = { "linux", "debian", "trixie",
						     "graphical" };
		struct host h = { .strict = 1, .files = nbxyz_files, .picks = picks, .n_picks = 4 };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "http://boot.example/menu.ipxe",
				     "netbootxyz-menu.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_STR(r.kernel, "http://deb.debian.org/debian/dists/trixie/main/installer-amd64/current/images/netboot/gtk/debian-installer/amd64/linux");
		CHECK_STR(r.cmdline, "vga=788  mirror/suite=trixie initrd=initrd.magic ");
		lb_ipxe_result_free(&r);
	}
	TEST("netbootxyz-escape-goes-local") {
		struct host h = { .strict = 1, .files = nbxyz_files, .escape = 1 };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "http://boot.example/menu.ipxe",
				     "netbootxyz-menu.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_EXIT);
		CHECK(strstr(h.out, "Booting from local disks") != NULL);
		lb_ipxe_result_free(&r);
	}
}

static const struct file ironic_files[] = {
	{ "http://192.168.24.1:8088/1be26c0b-03f2-4d2e-ae87-c02d7f33c123/deploy_kernel", NULL, NULL, 0 },
	{ "http://192.168.24.1:8088/1be26c0b-03f2-4d2e-ae87-c02d7f33c123/deploy_ramdisk", NULL, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};

static void test_ironic(void)
{
	TEST("ironic-deploy") {
		struct host h = { .strict = 1, .files = ironic_files };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "tftp://192.168.24.1/pxelinux.cfg/52-54-00-12-34-56",
				     "ironic.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_STR(r.kernel, "http://192.168.24.1:8088/1be26c0b-03f2-4d2e-ae87-c02d7f33c123/deploy_kernel");
		CHECK_STR(r.cmdline, "selinux=0 troubleshoot=0 text nofb nomodeset "
			  "vga=normal BOOTIF=52:54:00:12:34:56 "
			  "ipa-api-url=http://192.168.24.1:6385 initrd=deploy_ramdisk "
			  "coreos.configdrive=0");
		CHECK_INT(r.timeout_ms, 60000);
		CHECK_INT(r.n_initrd, 1);
		if (r.n_initrd)
			CHECK_STR(r.initrd[0].name, "deploy_ramdisk");
		lb_ipxe_result_free(&r);
	}
	TEST("ironic-server-down-ends") {
		struct host h = { .strict = 1 };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "tftp://192.168.24.1/x", "ironic.ipxe", &r);
		/* "|| goto deploy" retries forever in iPXE; the budget ends it */
		CHECK_INT(rc, -ELOOP);
		CHECK(r.error && strstr(r.error, "commands run"));
		lb_ipxe_result_free(&r);
	}
}

static const struct file fleet_files[] = {
	{ "http://10.0.2.2:8080/api/v1/ipxe/SN%200042?mfg=QEMU&model=Standard%20PC%20(Q35%20+%20ICH9,%202009)",
	  NULL, "#!ipxe\nchain http://10.0.2.2:8080/fleet-boot.ipxe\n", 0 },
	{ "http://10.0.2.2:8080/fleet-boot.ipxe", "fleet-boot.ipxe", NULL, 0 },
	{ "http://10.0.2.2:8080/images/initrd.igz", NULL, NULL, 0 },
	{ "http://10.0.2.2:8080/images/kernel.vmlinuz", NULL, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};

static void test_fleet(void)
{
	TEST("fleet-chainloader-boots") {
		struct host h = { .strict = 1, .files = fleet_files };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "tftp://10.0.2.2/fleet-chain.ipxe",
				     "fleet-chain.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_STR(r.kernel, "http://10.0.2.2:8080/images/kernel.vmlinuz");
		CHECK_STR(r.cmdline, "console=ttyS0 panic=30 ip=dhcp");
		/* the two chained scripts are running: not initrds */
		check_initrds(&r, "http://10.0.2.2:8080/images/initrd.igz");
		CHECK(strstr(h.log, "dhcp \n") != NULL);
		lb_ipxe_result_free(&r);
	}
	/* iPXE runs "iseq ${attempt} 5 && reboot" as one command line whose
	 * status is iseq's: false = the line failed = the script ends there.
	 * This is what ipxe/ipxe#1377's machines did ("just get stuck"). */
	TEST("fleet-chainloader-dhcp-fail-ends-at-iseq") {
		struct host h = { .strict = 1, .files = fleet_files, .dhcp_fails = 1 };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "tftp://10.0.2.2/fleet-chain.ipxe",
				     "fleet-chain.ipxe", &r);
		CHECK_INT(rc, -ERANGE);
		CHECK(r.error && strstr(r.error, "fleet-chain.ipxe:14: iseq failed"));
		CHECK_INT(h.slept, 0);
		lb_ipxe_result_free(&r);
	}
	TEST("fleet-boot-fetch-fail-ends-at-iseq") {
		struct host h = { .strict = 1 };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "http://10.0.2.2:8080/fleet-boot.ipxe",
				     "fleet-boot.ipxe", &r);
		CHECK_INT(rc, -ERANGE);
		CHECK(r.error && strstr(r.error, "fleet-boot.ipxe:11: iseq failed"));
		CHECK(strstr(h.out, "Could not fetch http://10.0.2.2:8080/images/initrd.igz") != NULL);
		lb_ipxe_result_free(&r);
	}
}

static const struct file flatcar_files[] = {
	{ "http://stable.release.flatcar-linux.net/amd64-usr/current/flatcar_production_pxe.vmlinuz", NULL, NULL, 0 },
	{ "http://stable.release.flatcar-linux.net/amd64-usr/current/flatcar_production_pxe_image.cpio.gz", NULL, NULL, 0 },
	{ "http://10.0.2.2:8080/machines/52-54-00-12-34-56/config.ign", NULL, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};

static void test_flatcar(void)
{
	TEST("flatcar-cpio-initrd") {
		struct host h = { .strict = 1, .files = flatcar_files };
		struct lb_ipxe_result r;
		int rc = run_fixture(&h, "http://10.0.2.2:8080/flatcar.ipxe",
				     "flatcar.ipxe", &r);
		CHECK_INT(rc, 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_STR(r.cmdline, "initrd=flatcar_production_pxe_image.cpio.gz "
			  "flatcar.first_boot=1 flatcar.autologin console=ttyS0");
		CHECK_INT(r.n_initrd, 2);
		if (r.n_initrd == 2) {
			CHECK(r.initrd[0].cpio_name == NULL);
			CHECK_STR(r.initrd[1].url, "http://10.0.2.2:8080/machines/52-54-00-12-34-56/config.ign");
			CHECK_STR(r.initrd[1].name, "oem.cpio");
			CHECK_STR(r.initrd[1].cpio_name, "/usr/share/oem/config.ign");
			CHECK_INT(r.initrd[1].mode, 0600);
			CHECK_INT(r.initrd[1].mkdir, 0);
		}
		lb_ipxe_result_free(&r);
	}
}

/* ---- cpio headers, as iPXE's src/core/cpio.c builds them ------------------ */

static void test_cpio(void)
{
	TEST("cpio-header-file") {
		struct lb_ipxe_initrd rd = { .cpio_name = "/etc/x.conf", .mode = 0600 };
		unsigned char buf[512];
		long n = lb_ipxe_cpio_header(&rd, 5, buf, sizeof(buf));
		/* 110 + 11 name bytes, padded with at least one NUL to 124 */
		CHECK_INT(n, 124);
		CHECK(!memcmp(buf, "070701", 6));
		CHECK(!memcmp(buf + 14, "00008180", 8)); /* S_IFREG | 0600 */
		CHECK(!memcmp(buf + 54, "00000005", 8)); /* filesize */
		CHECK(!memcmp(buf + 94, "0000000C", 8) || !memcmp(buf + 94, "0000000c", 8));
		CHECK(!memcmp(buf + 110, "/etc/x.conf", 11));
		CHECK(buf[121] == 0 && buf[122] == 0 && buf[123] == 0);
	}
	TEST("cpio-header-mkdir") {
		struct lb_ipxe_initrd rd = { .cpio_name = "/a/b/c", .mode = 0644,
					     .mkdir = 1 };
		unsigned char buf[512];
		long n = lb_ipxe_cpio_header(&rd, 3, buf, sizeof(buf));
		/* "/a/b" directory then "/a/b/c": 110+4 -> 116, 110+6 -> 120 */
		CHECK_INT(n, 236);
		CHECK(!memcmp(buf + 14, "000041ed", 8)); /* S_IFDIR | 0755 */
		CHECK(!memcmp(buf + 54, "00000000", 8));
		CHECK(!memcmp(buf + 110, "/a/b", 4));
		CHECK(!memcmp(buf + 116 + 14, "000081a4", 8));
		CHECK(!memcmp(buf + 116 + 110, "/a/b/c", 6));
	}
	TEST("cpio-header-none") {
		struct lb_ipxe_initrd rd = { 0 };
		CHECK_INT(lb_ipxe_cpio_header(&rd, 3, NULL, 0), 0);
	}
	TEST("cpio-from-script-mkdir-all") {
		struct host h = { .files = NULL };
		struct lb_ipxe_host x = mkhost(&h);
		struct lb_ipxe_result r;
		x.fetch = NULL;
		const char *s = "#!ipxe\ninitrd cfg /etc/a/b mkdir=-1 mode=755\nkernel k\nboot\n";
		CHECK_INT(lb_ipxe_run(&x, "http://s/x.ipxe", s, strlen(s), &r), 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_INT(r.n_initrd, 1);
		if (r.n_initrd == 1) {
			CHECK_INT(r.initrd[0].mode, 0755);
			unsigned char buf[1024];
			long n = lb_ipxe_cpio_header(&r.initrd[0], 1, buf, sizeof(buf));
			/* "/etc" dir, "/etc/a" dir, "/etc/a/b" file */
			CHECK_INT(n, 116 + 120 + 120);
		}
		lb_ipxe_result_free(&r);
	}
}

/* what the boot flow refuses to wrap: one line each (lb_ipxe_cpio_check) */
static void test_cpio_check(void)
{
	static const struct { const char *args; int rc; const char *err; } chk[] = {
		{ "/etc/x.conf mode=0600", 0, "" },
		{ "/etc/x.conf", 0, "" },
		{ "/etc/x.conf mode=7777", 0, "" },
		{ "/etc/x.conf mode=0x9", -EINVAL, "mode=0x9: not a file mode (octal, at most 07777)" },
		{ "/etc/x.conf mode=8", -EINVAL, "mode=8: not a file mode (octal, at most 07777)" },
		{ "/etc/x.conf mode=", -EINVAL, "mode=: not a file mode (octal, at most 07777)" },
		{ "/etc/x.conf mode=010000", -EINVAL, "mode=010000: not a file mode (octal, at most 07777)" },
		{ "/etc/x.conf mode=-1", -EINVAL, "mode=-1: not a file mode (octal, at most 07777)" },
		{ "/etc/x.conf mode=0600x", -EINVAL, "mode=0600x: not a file mode (octal, at most 07777)" },
	};
	for (size_t i = 0; i < sizeof(chk) / sizeof(chk[0]); i++) {
		TEST(chk[i].args) {
			struct host h = { .files = NULL };
			struct lb_ipxe_host x = mkhost(&h);
			struct lb_ipxe_result r;
			char s[256], err[160] = "";

			x.fetch = NULL;
			snprintf(s, sizeof(s), "#!ipxe\ninitrd cfg %s\nkernel k\nboot\n", chk[i].args);
			CHECK_INT(lb_ipxe_run(&x, "http://s/x.ipxe", s, strlen(s), &r), 0);
			CHECK_INT(r.n_initrd, 1);
			if (r.n_initrd == 1) {
				CHECK_INT(lb_ipxe_cpio_check(&r.initrd[0], err, sizeof(err)), chk[i].rc);
				CHECK_STR(err, chk[i].err);
				CHECK_STR(r.initrd[0].cpio_args, chk[i].args);
			}
			lb_ipxe_result_free(&r);
		}
	}
	TEST("cpio-check-long-path") {
		static char name[4200];
		struct lb_ipxe_initrd rd = { .cpio_name = name, .mode = 0644 };
		char err[160] = "";

		memset(name, 'n', sizeof(name) - 1);
		name[0] = '/';
		name[4097] = 0;
		CHECK_INT(lb_ipxe_cpio_check(&rd, err, sizeof(err)), -ENAMETOOLONG);
		CHECK_STR(err, "cpio path of 4097 bytes: at most 4096 fit");
		name[4096] = 0;
		CHECK_INT(lb_ipxe_cpio_check(&rd, err, sizeof(err)), 0);
		/* mkdir=-1 over 700 levels: headers past the cap */
		for (size_t i = 0; i + 2 < 1500; i += 2)
			memcpy(name + i, "/d", 2);
		name[1500] = 0;
		rd.mkdir = UINT_MAX;
		CHECK_INT(lb_ipxe_cpio_check(&rd, err, sizeof(err)), -ENAMETOOLONG);
		CHECK(!strncmp(err, "cpio headers of ", 16) && strstr(err, ": at most 65536"));
		rd.cpio_name = NULL;
		CHECK_INT(lb_ipxe_cpio_check(&rd, err, sizeof(err)), 0);
	}
}

/* ---- URIs, no fetch callback, caps ----------------------------------------- */

static void test_misc(void)
{
	static const struct { const char *base, *ref, *want; } uris[] = {
		{ "http://a/b/c/d;p?q", "g", "http://a/b/c/g" },
		{ "http://a/b/c/d;p?q", "./g", "http://a/b/c/g" },
		{ "http://a/b/c/d;p?q", "g/", "http://a/b/c/g/" },
		{ "http://a/b/c/d;p?q", "/g", "http://a/g" },
		/* iPXE: no authority without a scheme */
		{ "http://a/b/c/d;p?q", "//g", "http://a//g" },
		{ "http://a/b/c/d;p?q", "?y", "http://a/b/c/d;p?y" },
		{ "http://a/b/c/d;p?q", "g?y", "http://a/b/c/g?y" },
		{ "http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s" },
		{ "http://a/b/c/d;p?q", "..", "http://a/b/" },
		{ "http://a/b/c/d;p?q", "../..", "http://a/" },
		{ "http://a/b/c/d;p?q", "../../../g", "http://a/g" },
		/* iPXE resolves only leading ./ and ../ (measured: real iPXE
		 * asked the server for /sub/../vmlinuz) */
		{ "http://a/b/c/d;p?q", "g;x=1/../y", "http://a/b/c/g;x=1/../y" },
		{ "http://10.0.2.2:8000/images.ipxe", "sub/../vmlinuz",
		  "http://10.0.2.2:8000/sub/../vmlinuz" },
		{ "http://a/b/c/d;p?q", "./../g", "http://a/b/g" },
		{ "http://a/b/c/d;p?q", "urn:x:y", "urn:x:y" },
		{ "http://a/b", "a1b2:x", "http://a/a1b2:x" },
		{ "http://a/b/c/d;p?q", "tftp://h/f", "tftp://h/f" },
		{ "http://a", "g", "http://a/g" },
		{ "tftp://10.0.2.2/pxe/boot.ipxe", "vmlinuz", "tftp://10.0.2.2/pxe/vmlinuz" },
		{ NULL, "vmlinuz", "vmlinuz" },
		{ "http://a/b", "x y\x01", "http://a/x%20y%01" },
	};
	TEST("resolve-as-ipxe") {
		for (size_t i = 0; i < sizeof(uris) / sizeof(uris[0]); i++) {
			char *got = lb_ipxe_resolve(uris[i].base, uris[i].ref);
			CHECK_STR(got, uris[i].want);
			free(got);
		}
	}
	TEST("no-fetch-chain-result") {
		struct host h = { 0 };
		struct lb_ipxe_host x = { .ctx = &h, .output = h_output };
		struct lb_ipxe_result r;
		const char *s = "#!ipxe\ndhcp\ninitrd a.img\nchain next.ipxe foo=1\n";
		CHECK_INT(lb_ipxe_run(&x, "http://s/d/x.ipxe", s, strlen(s), &r), 0);
		CHECK_INT(r.action, LB_IPXE_CHAIN);
		CHECK_STR(r.kernel, "http://s/d/next.ipxe");
		CHECK_STR(r.cmdline, "foo=1");
		check_initrds(&r, "http://s/d/a.img");
		lb_ipxe_result_free(&r);
	}
	TEST("no-fetch-kernel-boot") {
		struct lb_ipxe_host x = { 0 };
		struct lb_ipxe_result r;
		const char *s = "#!ipxe\nkernel k a\nboot\n";
		CHECK_INT(lb_ipxe_run(&x, NULL, s, strlen(s), &r), 0);
		CHECK_INT(r.action, LB_IPXE_BOOT);
		CHECK_STR(r.kernel, "k");
		CHECK_STR(r.cmdline, "a");
		lb_ipxe_result_free(&r);
	}
	TEST("cap-script-size") {
		struct lb_ipxe_host x = { 0 };
		struct lb_ipxe_result r;
		size_t n = LB_IPXE_MAX_SCRIPT + 1;
		char *big = malloc(n);
		memset(big, '\n', n);
		memcpy(big, "#!ipxe\n", 7);
		CHECK_INT(lb_ipxe_run(&x, "u", big, n, &r), -E2BIG);
		CHECK(r.error != NULL);
		lb_ipxe_result_free(&r);
		free(big);
	}
	TEST("cap-line-length") {
		struct lb_ipxe_host x = { 0 };
		struct lb_ipxe_result r;
		size_t n = LB_IPXE_MAX_LINE + 100;
		char *big = malloc(n + 1);
		memset(big, 'a', n);
		memcpy(big, "#!ipxe\necho ", 12);
		big[n] = 0;
		CHECK_INT(lb_ipxe_run(&x, "u", big, n, &r), -E2BIG);
		CHECK(r.error && strstr(r.error, "u:2:"));
		lb_ipxe_result_free(&r);
		free(big);
	}
	TEST("cap-variables") {
		struct lb_ipxe_host x = { 0 };
		struct lb_ipxe_result r;
		const char *s = "#!ipxe\nset i:int32 0\n:l\nset v${i} x\ninc i\ngoto l\n";
		CHECK_INT(lb_ipxe_run(&x, "u", s, strlen(s), &r), -E2BIG);
		CHECK(r.error && strstr(r.error, "too many settings"));
		lb_ipxe_result_free(&r);
	}
	TEST("long-echo") {
		struct host h = { 0 };
		struct lb_ipxe_result r;
		const char *s = "#!ipxe\nset v 0123456789012345678901234567890123456789\n"
			"set v ${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}\n"
			"echo ${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}\n";
		CHECK_INT(run_text(&h, "u", s, &r), 0);
		CHECK_INT(strlen(h.out), 7681);
		lb_ipxe_result_free(&r);
	}
	TEST("cap-work") {
		struct lb_ipxe_host x = { 0 };
		struct lb_ipxe_result r;
		/* 8000-byte arguments in a loop: the byte budget ends it before
		 * the step budget */
		const char *s = "#!ipxe\nset v x\n:d\nset v ${v}${v}\niseq ${v:hexraw} x || goto d\n";
		CHECK_INT(lb_ipxe_run(&x, "u", s, strlen(s), &r), -E2BIG);
		lb_ipxe_result_free(&r);
		const char *s2 = "#!ipxe\nset v 0123456789012345678901234567890123456789\n"
			"set v ${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}\n"
			"set v ${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}${v}\n:l echo -n ${v}\ngoto l\n";
		CHECK_INT(lb_ipxe_run(&x, "u", s2, strlen(s2), &r), -E2BIG);
		CHECK(r.error && strstr(r.error, "bytes of arguments"));
		CHECK(r.steps < LB_IPXE_MAX_STEPS);
		lb_ipxe_result_free(&r);
	}
	TEST("cap-value-doubling") {
		struct lb_ipxe_host x = { 0 };
		struct lb_ipxe_result r;
		const char *s = "#!ipxe\nset v x\n:l\nset v ${v}${v}\ngoto l\n";
		CHECK_INT(lb_ipxe_run(&x, "u", s, strlen(s), &r), -E2BIG);
		lb_ipxe_result_free(&r);
	}
	TEST("is-script") {
		CHECK(lb_ipxe_is_script("#!ipxe\n", 7));
		CHECK(lb_ipxe_is_script("#!gpxe ", 7));
		CHECK(!lb_ipxe_is_script("#!ipxe", 6));
		CHECK(!lb_ipxe_is_script("#!ipxeX", 7));
		CHECK(!lb_ipxe_is_script("MZ\x90", 3));
	}
}

/* ---- provenance: which bytes came from the network (issue 23, 5) -------- */

/* as lboot's netboot answers: the NIC's MAC and SMBIOS are the machine's
 * own, everything else is what DHCP sent */
static int h_setting_local(void *ctx, const char *block, const char *name,
			   char *buf, size_t size)
{
	int t = h_setting(ctx, block, name, buf, size);

	if (t >= 0 && (!strcmp(name, "mac") || !strcmp(name, "uuid") || !strcmp(name, "serial")))
		t |= LB_IPXE_LOCAL;
	return t;
}

static int run_net(const char *text, struct lb_ipxe_result *r)
{
	struct host h = { 0 };
	struct lb_ipxe_host x = mkhost(&h);

	x.setting = h_setting_local;
	memset(r, 0, sizeof(*r));
	return lb_ipxe_run(&x, "http://srv/boot/s.ipxe", text, strlen(text), r);
}

static void test_provenance(void)
{
	static const struct {
		const char *name, *script, *cmdline;
		int net;
	} c[] = {
		{ "literal", "#!ipxe\nkernel vmlinuz root=/dev/sda1 quiet\ninitrd initrd.img\nboot\n",
		  "root=/dev/sda1 quiet", 0 },
		{ "hostname-in-cmdline", "#!ipxe\nkernel vmlinuz root=/dev/sda1 hostname=${hostname}\nboot\n",
		  "root=/dev/sda1 hostname=node7", LB_IPXE_NET_CMDLINE },
		{ "unset-setting-adds-nothing", "#!ipxe\nkernel vmlinuz ${filename}\nboot\n",
		  NULL, 0 }, /* unset: expands to nothing, adds no bytes */
		{ "next-server-url", "#!ipxe\nkernel http://${next-server}/vmlinuz quiet\nboot\n",
		  "quiet", LB_IPXE_NET_URL },
		{ "through-a-variable", "#!ipxe\nset h ${hostname}\nset args console=ttyS0 name=${h}\n"
		  "kernel vmlinuz ${args}\nboot\n", "console=ttyS0 name=node7", LB_IPXE_NET_CMDLINE },
		{ "variable-name-chosen", "#!ipxe\nset ${hostname} init=/bin/sh\nkernel vmlinuz ${node7}\nboot\n",
		  "init=/bin/sh", LB_IPXE_NET_CMDLINE },
		{ "nested-reference", "#!ipxe\nset which hostname\nkernel vmlinuz x=${${which}}\nboot\n",
		  "x=node7", LB_IPXE_NET_CMDLINE },
		{ "mac-and-platform-are-own", "#!ipxe\nkernel vmlinuz-${platform} id=${mac:hexhyp} "
		  "sn=${serial}\nboot\n", "id=52-54-00-12-34-56 sn=SN 0042", 0 },
		{ "imgargs-replaces", "#!ipxe\nkernel vmlinuz h=${hostname}\nimgargs vmlinuz quiet\nboot\n",
		  "quiet", 0 },
		{ "imgargs-taints", "#!ipxe\nkernel vmlinuz quiet\nimgargs vmlinuz ip=${ip}\nboot\n",
		  "ip=10.0.2.15", LB_IPXE_NET_CMDLINE },
		{ "initrd-url", "#!ipxe\nkernel vmlinuz quiet\ninitrd http://${next-server}/i.img\nboot\n",
		  "quiet", LB_IPXE_NET_URL },
		{ "initrd-cpio-path", "#!ipxe\nkernel vmlinuz quiet\ninitrd i.img /etc/${hostname}.conf mode=0600\nboot\n",
		  "quiet", LB_IPXE_NET_CPIO },
		{ "inc-keeps", "#!ipxe\nset n:int32 ${ip:int32}\ninc n\nkernel vmlinuz n=${n}\nboot\n",
		  NULL, LB_IPXE_NET_CMDLINE },
		{ "menu-label", "#!ipxe\nmenu M\nitem ${hostname} from dhcp\nchoose pick\n"
		  "kernel vmlinuz role=${pick}\nboot\n", "role=node7", LB_IPXE_NET_CMDLINE },
		{ "menu-literal", "#!ipxe\nmenu ${hostname}\nitem lit a literal item\nchoose pick\n"
		  "kernel vmlinuz role=${pick}\nboot\n", "role=lit", 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char name[128];
		struct lb_ipxe_result r;
		int rc;

		snprintf(name, sizeof(name), "provenance-%s", c[i].name);
		TEST(name) {
			rc = run_net(c[i].script, &r);
			CHECK_INT(rc, 0);
			CHECK_INT(r.action, LB_IPXE_BOOT);
			if (c[i].cmdline)
				CHECK_STR(r.cmdline ? r.cmdline : "", c[i].cmdline);
			CHECK_INT(r.net, c[i].net);
			lb_ipxe_result_free(&r);
		}
	}
	TEST("provenance-relative-url-against-a-network-base") {
		/* chain http://${next-server}/x.ipxe: the chained script's
		 * relative kernel URL resolves against the network's server */
		static const struct file f[] = {
			{ "http://10.0.2.2/x.ipxe", NULL, "#!ipxe\nkernel vmlinuz quiet\nboot\n", 0 },
			{ "http://srv/boot/y.ipxe", NULL, "#!ipxe\nkernel vmlinuz quiet\nboot\n", 0 },
			{ NULL, NULL, NULL, 0 },
		};
		struct host h = { .files = f };
		struct lb_ipxe_host x = mkhost(&h);
		struct lb_ipxe_result r = { 0 };
		const char *t1 = "#!ipxe\nchain http://${next-server}/x.ipxe\n";
		const char *t2 = "#!ipxe\nchain y.ipxe\n";

		x.setting = h_setting_local;
		CHECK_INT(lb_ipxe_run(&x, "http://srv/boot/s.ipxe", t1, strlen(t1), &r), 0);
		CHECK_STR(r.kernel ? r.kernel : "", "http://10.0.2.2/vmlinuz");
		CHECK_INT(r.net, LB_IPXE_NET_URL);
		lb_ipxe_result_free(&r);
		memset(&r, 0, sizeof(r));
		CHECK_INT(lb_ipxe_run(&x, "http://srv/boot/s.ipxe", t2, strlen(t2), &r), 0);
		CHECK_STR(r.kernel ? r.kernel : "", "http://srv/boot/vmlinuz");
		CHECK_INT(r.net, 0);
		lb_ipxe_result_free(&r);
		memset(&r, 0, sizeof(r));
	}
}

int main(void)
{
	run_cases();
	test_netbootxyz();
	test_ironic();
	test_fleet();
	test_flatcar();
	test_cpio();
	test_cpio_check();
	test_misc();
	test_provenance();
	return t_done();
}
