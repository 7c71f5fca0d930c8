/* Boot flow and PID 1. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "discover.h"
#include "console.h"
#include "init.h"
#include "uptime.h"
#include "kexec.h"
#include "kexecload.h"
#include "menu.h"
#include "progress.h"
#include "scan.h"
#include "verify.h"
#include "measure.h"
#include "totpseal.h"
#include "qr.h"
#include "netboot.h"
#include "grubenv.h"
#include "netio.h"
#include "ntp.h"
#include "tls.h"
#include "timefloor.h"
#include "efivars.h"
#include "watchdog.h"
#include "order.h"
#include "bootstate.h"
#include "cmos.h"
#include "io.h"
#include "coreboot.h"
#include "tcglog.h"
#include "log.h"
#include "fwupdate.h"
#include "fwsource.h"

void lb_boot_opts_init(struct lb_boot_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout = -1;
	o->wait = LB_DEFAULT_WAIT;
	o->settle_ms = 0; /* by the hardware: see lb_discover_wait */
	lb_unattended_init(&o->unattended);
}

static int parse_secs(const char *v, int *out)
{
	char *end;
	long x;

	if (!*v)
		return -EINVAL;
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || x < 0 || x > 86400)
		return -EINVAL;
	*out = (int)x;
	return 0;
}

/* The next whitespace-separated word of *p into tok (quotes group and are
 * dropped, as the kernel's parser does; longer words are cut). 0 at the end. */
static int next_word(const char **p, char *tok, size_t size)
{
	const char *s = *p;
	size_t k = 0;
	int quoted = 0;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (!*s) {
		*p = s;
		return 0;
	}
	while (*s && (quoted || (*s != ' ' && *s != '\t' && *s != '\n'))) {
		if (*s == '"')
			quoted = !quoted;
		else if (k + 1 < size)
			tok[k++] = *s;
		s++;
	}
	tok[k] = 0;
	*p = s;
	return 1;
}

/* The value of word tok when it is key=VALUE (key ends in '='), else NULL. */
static const char *opt_value(const char *tok, const char *key)
{
	size_t l = strlen(key);

	return strncmp(tok, key, l) ? NULL : tok + l;
}

/* Copy v into a field of `size` bytes: 1, or 0 when it does not fit. */
static int opt_copy(char *dst, size_t size, const char *v)
{
	size_t l = strlen(v);

	if (l >= size)
		return 0;
	memcpy(dst, v, l + 1);
	return 1;
}

/* Options whose value is kept as given (checked later, where it is used). */
#define STR_OPT(key, field) \
	{ key, offsetof(struct lb_boot_opts, field), sizeof(((struct lb_boot_opts *)0)->field) }
static const struct str_opt {
	const char *key;
	size_t off, size;
} str_opts[] = {
	STR_OPT("lboot.fault_hang=", fault_hang),
	STR_OPT("lboot.order=", order),
	STR_OPT("lboot.net.iface=", net_iface),
	STR_OPT("lboot.tpm=", tpm),
	STR_OPT("lboot.measure=", measure),
	STR_OPT("lboot.totp=", totp),
	STR_OPT("lboot.verify=", verify),
	STR_OPT("lboot.update=", update),
	STR_OPT("lboot.flash=", flash),
	STR_OPT("lboot.slot=", slot),
};

/* lboot.boot=net: network boot by itself, always, before the disks. */
static void opt_boot_net(struct lb_boot_opts *o)
{
	size_t l = strlen(o->order);

	memcpy(o->net, "on", 3);
	if (!strncmp(o->order, "net", 3) && (!o->order[3] || o->order[3] == ','))
		return;
	if (l && l + 4 < sizeof(o->order)) {
		memmove(o->order + 4, o->order, l + 1);
		memcpy(o->order, "net,", 4);
	} else if (!l) {
		memcpy(o->order, "net", 4);
	}
}

/* Options about the network and its boot flow: 1 when tok was one and
 * valid, 0 when it was one with a bad value, -1 when it is not one. */
static int parse_net_option(const char *tok, struct lb_boot_opts *o)
{
	const char *v;
	char *end;

	if ((v = opt_value(tok, "lboot.net="))) {
		if (strcmp(v, "auto") && strcmp(v, "on") && strcmp(v, "off"))
			return 0;
		return opt_copy(o->net, sizeof(o->net), v);
	}
	if (!strcmp(tok, "lboot.boot=net")) {
		opt_boot_net(o);
		return 1;
	}
	if ((v = opt_value(tok, "lboot.netboot="))) {
		if (!opt_copy(o->netboot, sizeof(o->netboot), v))
			return 0;
		if (!o->net[0])
			memcpy(o->net, "auto", 5);
		return 1;
	}
	if ((v = opt_value(tok, "lboot.vlan="))) {
		long id = strtol(v, &end, 10);

		if (end == v || *end || id < 1 || id > 4094)
			return 0;
		o->vlan = (unsigned)id;
		return 1;
	}
	if ((v = opt_value(tok, "lboot.ntp="))) {
		struct lb_ntp_server sv;

		if (strcmp(v, "off") &&
		    (strlen(v) >= sizeof(o->ntp) || lb_ntp_server_parse(v, &sv)))
			return 0;
		return opt_copy(o->ntp, sizeof(o->ntp), v);
	}
	if ((v = opt_value(tok, "lboot.net.timeout=")))
		return !parse_secs(v, &o->net_timeout);
	return -1;
}

/* One word of the command line: 1 when it was an lboot option with a
 * valid value (and o took it), else 0. */
static int parse_option(const char *tok, struct lb_boot_opts *o)
{
	const char *v;
	char *end;
	int r;

	for (size_t i = 0; i < sizeof(str_opts) / sizeof(str_opts[0]); i++)
		if ((v = opt_value(tok, str_opts[i].key)))
			return opt_copy((char *)o + str_opts[i].off, str_opts[i].size, v);
	if ((v = opt_value(tok, "lboot.timeout=")))
		return !parse_secs(v, &o->timeout);
	if ((v = opt_value(tok, "lboot.wait=")))
		return !parse_secs(v, &o->wait);
	if ((v = opt_value(tok, "lboot.settle="))) {
		long ms = strtol(v, &end, 10);

		if (end == v || *end || ms < 0 || ms > 60000)
			return 0;
		o->settle_ms = ms ? (int)ms : 1;
		return 1;
	}
	if ((v = opt_value(tok, "lboot.default="))) { /* cut to fit */
		size_t l = strlen(v);

		if (l >= sizeof(o->default_sel))
			l = sizeof(o->default_sel) - 1;
		memcpy(o->default_sel, v, l);
		o->default_sel[l] = 0;
		return 1;
	}
	if ((v = opt_value(tok, "lboot.phase_timeout="))) {
		int ms[LB_PHASE_N] = { 0 };

		if (strlen(v) >= sizeof(o->phase_timeout) || lb_progress_parse_timeouts(v, ms))
			return 0;
		return opt_copy(o->phase_timeout, sizeof(o->phase_timeout), v);
	}
	if (!strcmp(tok, "lboot.fault_dropcaches=1") ||
	    !strcmp(tok, "lboot.fault_dropcaches=0")) {
		o->fault_dropcaches = tok[23] == '1';
		return 1;
	}
	if ((v = opt_value(tok, "lboot.kexec="))) {
		int m = lb_kexec_mode_parse(v);

		if (m < 0)
			return 0;
		o->kexec_mode = m;
		return 1;
	}
	if (!strcmp(tok, "lboot.debug") || !strcmp(tok, "lboot.debug=1")) {
		o->debug = 1;
		return 1;
	}
	if ((r = parse_net_option(tok, o)) >= 0)
		return r;
	return lb_unattended_parse(tok, &o->unattended) > 0;
}

int lb_boot_parse_cmdline(const char *cmdline, struct lb_boot_opts *o)
{
	const char *p = cmdline;
	char tok[256];
	int n = 0;

	while (p && next_word(&p, tok, sizeof(tok)))
		n += parse_option(tok, o);
	return n;
}

/* Where lboot's messages go (log.h): to the console, and in PID 1 to the
 * kernel log too; markers (kmsg.h) give a line its level. */
static FILE *out_log;

static FILE *outf(void)
{
	if (!out_log)
		out_log = lb_log_open(0, NULL);
	return out_log ? out_log : stdout;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(outf(), fmt, ap);
	va_end(ap);
	fflush(outf());
}

/* one line per config file: "lboot: FILE on DEVICE: N entries" */
static void report_configs(const struct lb_entries *l, const struct lb_fsset *set,
			   int debug)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *si = l->v[i].source ? l->v[i].source : "?";
		const char *ci = strrchr(si, ':');
		size_t li = ci ? (size_t)(ci - si) : strlen(si), count = 0;
		int seen = 0;

		for (size_t j = 0; j < l->n; j++) {
			const char *sj = l->v[j].source ? l->v[j].source : "?";
			const char *cj = strrchr(sj, ':');
			size_t lj = cj ? (size_t)(cj - sj) : strlen(sj);
			int same = li == lj && !memcmp(si, sj, li) &&
				   !strcmp(lb_entry_device(set, &l->v[i]),
					   lb_entry_device(set, &l->v[j]));
			if (same && j < i) {
				seen = 1;
				break;
			}
			count += same;
		}
		if (!seen)
			say("lboot: config %.*s on %s: %zu entr%s\n", (int)li, si,
			    lb_entry_device(set, &l->v[i]), count, count == 1 ? "y" : "ies");
	}
	for (size_t i = 0; i < l->n_msgs; i++)
		say("lboot: %s\n", l->msgs[i]);
	if (debug)
		for (size_t i = 0; i < l->n; i++) {
			const struct lb_entry *e = &l->v[i];
			say(LB_LOG_DEBUG "lboot: entry %zu%s: '%s' id=%s fs=%s kernel=%s initrds=%zu cmdline=%s%s\n",
			    i, e->is_default ? " (default)" : "", e->title ? e->title : "",
			    e->id ? e->id : "-", e->fs ? e->fs : "-",
			    e->kernel ? e->kernel : "-", e->n_initrd,
			    e->cmdline ? e->cmdline : "", e->hidden ? " hidden" : "");
		}
}

/* The verified-boot state of one boot_run: the policy, and why entries
 * were refused this round (shown by the menu). */
static struct {
	struct lb_policy pol;
	struct lb_verifier v;
	char **refused;
	size_t n_refused;
} vb;

static void refused_clear(void)
{
	for (size_t i = 0; i < vb.n_refused; i++)
		free(vb.refused[i]);
	free(vb.refused);
	vb.refused = NULL;
	vb.n_refused = 0;
}

static void refused_set(const struct lb_entries *l, const struct lb_entry *e,
			const char *why)
{
	size_t i = (size_t)(e - l->v);

	if (!l || e < l->v || i >= l->n)
		return;
	if (vb.n_refused < l->n) {
		char **nv = realloc(vb.refused, l->n * sizeof(*nv));
		if (!nv)
			return;
		memset(nv + vb.n_refused, 0, (l->n - vb.n_refused) * sizeof(*nv));
		vb.refused = nv;
		vb.n_refused = l->n;
	}
	free(vb.refused[i]);
	vb.refused[i] = strdup(why);
}

/* --- measured boot ------------------------------------------------------ */

static struct lb_measure tpm; /* 53 KB: not on the stack */
static int tpm_on, tpm_dry, tpm_require;
static int tpm_best_effort; /* lboot.tpm=best-effort: a failed measurement
			     * (PCRs capped) does not refuse the entry */
static int measure_refused; /* the last check refused an entry it could not measure */
static int fault_dropcaches; /* lboot.fault_dropcaches=1 */

/* Under coreboot (no EFI): coreboot 4.x measured its stages and payload into
 * PCR 2 and kept the log in CBMEM (TCPA format), where no kernel reads it;
 * the log lboot hands over starts with those events, so the OS can replay
 * PCR 2 too (docs/coreboot.md). coreboot extends one bank (SHA-256): when
 * the TPM has other banks active, its events cannot be written as the
 * crypto-agile log needs them, and that is said instead. */
static void measure_coreboot(void)
{
	static struct lb_cb_mevent ev[LB_CB_MAX_MEVENTS];
	char why[256] = "", pcrs[64] = "";
	unsigned mask = lb_measure_banks(&tpm), seen = 0;
	size_t n = 0, k;
	int r = lb_cb_measurements(lb_cb_read_mem, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why));

	if (r == -ENODEV)
		return; /* not coreboot */
	if (r) {
		say(LB_LOG_WARN "lboot: TPM: coreboot's measurements are not in the event log: %s\n", why);
		return;
	}
	for (k = 0; k < n; k++)
		if (LB_HASH_BIT(ev[k].alg) != mask)
			break;
	if (k < n) {
		say(LB_LOG_WARN "lboot: TPM: coreboot's %zu measurements are not in the event log: "
		    "coreboot extended %s only and the TPM's active banks differ; the OS cannot replay "
		    "the PCRs coreboot extended\n", n, lb_hash_name(ev[k].alg));
		return;
	}
	for (k = 0; k < n; k++) {
		struct lb_digests d = { .mask = mask };

		memcpy(d.d[ev[k].alg], ev[k].digest, lb_hash_len(ev[k].alg));
		if ((r = lb_measure_firmware_event(&tpm, ev[k].pcr, LB_EV_ACTION, &d, ev[k].name,
						   strlen(ev[k].name) + 1))) {
			say(LB_LOG_WARN "lboot: TPM: coreboot's measurement %zu: %s\n", k, strerror(-r));
			return;
		}
		if (!(seen & (1u << ev[k].pcr))) {
			size_t l = strlen(pcrs);

			seen |= 1u << ev[k].pcr;
			snprintf(pcrs + l, sizeof(pcrs) - l, "%s%u", l ? " " : "", ev[k].pcr);
		}
	}
	say(LB_LOG_NOTICE "lboot: TPM: coreboot's %zu measurements (PCR %s, its TCPA log) start the event log\n",
	    n, n ? pcrs : "-");
}

static void measure_setup(const struct lb_boot_opts *o)
{
	char err[256] = "", banks[64] = "";
	unsigned mask;
	int r;

	tpm_require = vb.pol.tpm_require || !strcmp(o->tpm, "require");
	tpm_best_effort = !tpm_require && !strcmp(o->tpm, "best-effort");
	if (tpm_require)
		say(LB_LOG_ERR "lboot: a TPM is required (%s): nothing boots unmeasured\n",
		    vb.pol.tpm_require ? "built in" : "lboot.tpm=require");
	if (!tpm_require && (!strcmp(o->measure, "0") || !strcmp(o->measure, "off")))
		return;
	r = lb_measure_open(&tpm, NULL, err, sizeof(err));
	if (r == -ENOENT) {
		if (tpm_require || !strcmp(o->measure, "1") || !strcmp(o->measure, "on"))
			say(LB_LOG_WARN "lboot: TPM: none found; lboot.measure=%s, and nothing can be measured\n",
			    o->measure);
		return;
	}
	if (r) {
		say(LB_LOG_WARN "lboot: TPM: %s; booting unmeasured\n", err[0] ? err : strerror(r < 0 ? -r : EIO));
		return;
	}
	mask = lb_measure_banks(&tpm);
	for (unsigned a = 0; a < LB_HASH_N; a++)
		if (mask & LB_HASH_BIT(a)) {
			size_t l = strlen(banks);
			snprintf(banks + l, sizeof(banks) - l, "%s%s", l ? " " : "", lb_hash_name(a));
		}
	say(LB_LOG_NOTICE "lboot: TPM 2.0 (%s): measuring what boots into PCR 4, 9 (and 11 for a UKI), banks %s\n",
	    tpm.dev.path, banks);
	tpm_on = 1;
	if (o->pid1 && access("/sys/firmware/efi", F_OK))
		measure_coreboot();
}

/* The platform hierarchy locked after measuring, whatever its outcome:
 * the OS does not inherit its authority. */
static void lock_platform(void)
{
	int r = lb_measure_lock_platform(&tpm);

	if (r)
		say(LB_LOG_ERR "lboot: TPM: locking the platform hierarchy failed: %s\n",
		    r < 0 ? strerror(-r) : "TPM error");
	else
		say("lboot: TPM: platform hierarchy locked\n");
}

/* what UEFI + the EFI stub + systemd-stub would measure for this entry,
 * from the staged bytes, all built before the first extend; then the log
 * where the next kernel finds it, and the platform hierarchy locked (the OS
 * does not inherit its authority), whatever happened. 0, or negative when
 * something could not be measured: then the PCRs are capped
 * (lb_measure_boot) and the caller refuses the entry. */
static int measure_stage(const struct lb_entry *e, struct lb_stage *st)
{
	const char *title = e->title ? e->title : "?";
	struct lb_measure_boot b = {
		.path = e->kernel, .is_uki = st->is_uki, .cmdline = st->cmdline,
		.initrd = st->initrd.fd >= 0 ? &st->initrd.dig : NULL,
		.verdict = st->verdict[0] ? st->verdict : "NOT verified (verify off)",
	};
	char err[256] = "", lerr[256] = "";
	size_t nsec = 0;
	int r, lr;

	if ((r = lb_blob_map(&st->file, &b.img))) {
		snprintf(err, sizeof(err), "the staged file: %s; PCRs %s", strerror(-r),
			 lb_measure_cap(&tpm, LB_MEASURE_CAP_PCRS) ? "NOT capped" :
			 "0-9, 11-13 capped (EV_SEPARATOR 1)");
	} else {
		b.len = st->file.size;
		r = lb_measure_boot(&tpm, &b, &nsec, err, sizeof(err));
	}
	lr = lb_measure_log_acpi(&tpm, NULL, lerr, sizeof(lerr));
	if (!r)
		say(LB_LOG_NOTICE "lboot: measured '%s': PCR 4 %s, PCR 9 command line%s%s; event log %s%s\n",
		    title, st->is_uki ? "UKI" : "kernel", st->initrd.fd >= 0 ? " and initrd" : "",
		    st->is_uki ? ", PCR 11 UKI sections" : "",
		    lr ? "not handed over: " : "handed over in the ACPI TPM2 log area",
		    lr ? (lerr[0] ? lerr : strerror(-lr)) : "");
	else
		say(LB_LOG_ERR "lboot: TPM: measuring '%s' failed: %s; %s\n", title, err,
		    tpm_best_effort ? "booting it anyway (lboot.tpm=best-effort)" :
		    "not booting it");
	lock_platform();
	return r > 0 ? -EIO : r;
}

/* lboot.fault_dropcaches=1 (fault injection for
 * tests/e2e/verify-changing-disk.sh): after the check passed and before
 * the load, the page cache goes (clean pages, the block devices' too), so
 * anything that read the entry's files again now would get the disk's
 * bytes of now, not the ones checked. The staged memfds are shmem, not
 * page cache: they stay. */
static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, "3\n", 2) == 2;

	if (fd >= 0)
		close(fd);
	say(LB_LOG_WARN "lboot: fault injection: page cache %s after the check (lboot.fault_dropcaches)\n",
	    ok ? "dropped" : "NOT dropped");
}

/* The TOTP NV index of lboot.totp= (the default for ""); -1: off or a
 * bad value (said once per call) */
static int totp_index(const struct lb_boot_opts *o, uint32_t *index)
{
	char *end;

	*index = LB_TOTPSEAL_NV_DEFAULT;
	if (!strcmp(o->totp, "off"))
		return -1;
	if (o->totp[0]) {
		unsigned long v = strtoul(o->totp, &end, 0);

		if (*end || (v >> 24) != 0x01 || v > 0xffffffffUL) {
			say(LB_LOG_WARN "lboot: lboot.totp=%s: want off or an NV index 0x01xxxxxx\n", o->totp);
			return -1;
		}
		*index = (uint32_t)v;
	}
	return 0;
}

/* "sha256 PCRs 0,2,4,7,9 in NV 0x01500010" */
static void totp_what(uint32_t mask, uint32_t index, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "sha256 PCRs");
	int first = 1;

	for (unsigned i = 0; i < LB_TPM2_NUM_PCRS && k < n; i++)
		if (mask & (1u << i)) {
			k += (size_t)snprintf(buf + k, n - k, "%s%u", first ? " " : ",", i);
			first = 0;
		}
	if (k < n)
		snprintf(buf + k, n - k, " in NV 0x%08x", index);
}

/*
 * The menu's 't' (src/console/menu.h): reseal the owner's TOTP to the PCRs
 * as they are at the menu, after a firmware update. A new secret (the old
 * one no longer unseals once the PCRs changed), sealed to the PCRs the
 * record names; shown as seal-totp shows it (otpauth:// URI, QR code) with
 * the code it gives now. Any failure: one line, and what is in NV now.
 */
static struct menu_reseal {
	uint32_t index;
	char what[128];
} mr;

static int menu_reseal_run(void *arg, char *text, size_t cap)
{
	static struct lb_qr q;
	static char qr[16 * 1024];
	struct menu_reseal *c = arg;
	uint8_t secret[LB_TOTPSEAL_SECRET];
	uint32_t mask = 0;
	char uri[512], line[160], why[160], rcs[96];
	long qn;
	int rc;

	if (!tpm_on || tpm.n_ev) {
		snprintf(text, cap, "lboot: TOTP not resealed: this boot has measured an entry "
			 "since the menu first showed (the PCRs are not the firmware's alone); "
			 "restart and reseal at the first menu\n");
		return -EBUSY;
	}
	rc = lb_totpseal_reseal(&tpm.t, c->index, secret, &mask);
	if (!rc) {
		rc = lb_totpseal_uri(secret, sizeof(secret), "lboot", "owner", uri, sizeof(uri));
		memset(secret, 0, sizeof(secret));
		totp_what(mask, c->index, c->what, sizeof(c->what));
		if (rc) {
			snprintf(text, cap, "lboot: TOTP resealed to %s, but the otpauth URI: %s\n",
				 c->what, strerror(-rc));
			return rc;
		}
		rc = lb_qr_encode((const uint8_t *)uri, strlen(uri), LB_QR_ECC_M, -1, &q);
		if (rc == -EMSGSIZE)
			rc = lb_qr_encode((const uint8_t *)uri, strlen(uri), LB_QR_ECC_L, -1, &q);
		qn = rc ? -1 : lb_qr_text(&q, LB_QR_TEXT_UTF8, LB_QR_QUIET, 0, qr, sizeof(qr));
		if (qn < 0 || (size_t)qn >= sizeof(qr))
			snprintf(qr, sizeof(qr), "(no QR code: %s)\n", strerror(rc ? -rc : ENOSPC));
		memset(&q, 0, sizeof(q));
		if (lb_totpseal_line(&tpm.t, c->index, (int64_t)time(NULL), line, sizeof(line)))
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " (just resealed)");
		snprintf(text, cap, "lboot: TOTP resealed to %s; add the new secret to the "
			 "authenticator app:\n%s\n%s%s\n", c->what, uri, qr, line);
		memset(uri, 0, sizeof(uri));
		memset(qr, 0, sizeof(qr));
		say(LB_LOG_WARN "lboot: TOTP resealed from the menu to %s\n", c->what);
		return 0;
	}
	if (rc == -ENOTSUP)
		snprintf(why, sizeof(why), "the TPM has no active sha256 PCR bank");
	else if (rc == -ENOENT)
		snprintf(why, sizeof(why), "no TOTP in NV 0x%08x (lboot tpm seal-totp sets one up)", c->index);
	else if (rc == -EILSEQ)
		snprintf(why, sizeof(why), "NV 0x%08x holds no TOTP record", c->index);
	else if (rc > 0)
		snprintf(why, sizeof(why), "%s: %s", lb_tpm2_cc_name(tpm.t.last_cc) ?
			 lb_tpm2_cc_name(tpm.t.last_cc) : "?",
			 lb_tpm2_rc_str((uint32_t)rc, rcs, sizeof(rcs)));
	else
		snprintf(why, sizeof(why), "%s", strerror(-rc));
	/* what is in NV now: the old record (nothing written), or none (a
	 * record of another size was undefined before its replacement failed) */
	mask = 0;
	snprintf(text, cap, "lboot: TOTP not resealed: %s; %s\n", why,
		 lb_totpseal_info(&tpm.t, c->index, &mask) == -ENOENT ?
		 "NV holds no TOTP now (lboot tpm seal-totp sets one up)" :
		 "the old sealed secret is unchanged");
	say(LB_LOG_ERR "lboot: TOTP reseal failed: %s\n", why);
	return rc > 0 ? -EIO : rc;
}

static const struct lb_menu_reseal menu_reseal = {
	.what = mr.what, .run = menu_reseal_run, .arg = &mr,
};

/* The owner's TOTP above the menu (docs/measured-boot.md): unsealed against
 * the PCRs as they are when the menu shows, so only while this boot has
 * extended nothing yet. No TPM, lboot.totp=off or nothing provisioned: no
 * line. Returns the menu's 't' when a TOTP record is there to reseal. */
static const struct lb_menu_reseal *totp_show(const struct lb_boot_opts *o)
{
	uint32_t index, mask;
	char line[160];

	if (!tpm_on || tpm.n_ev || totp_index(o, &index))
		return NULL;
	/* shown on the console only, as part of the menu: a code (or its
	 * failure) is for the owner's eyes, not for the kernel log and the
	 * boot log the OS reads */
	if (lb_totpseal_line(&tpm.t, index, (int64_t)time(NULL), line, sizeof(line)) == -ENOENT)
		return NULL;
	fflush(outf());
	printf("%s\n", line);
	fflush(stdout);
	if (lb_totpseal_info(&tpm.t, index, &mask))
		return NULL;
	mr.index = index;
	totp_what(mask, index, mr.what, sizeof(mr.what));
	return &menu_reseal;
}

/* the kexec check: verify (policy), then measure what will boot */
static int check_entry(void *arg, const struct lb_entry *e, struct lb_stage *st,
		       char *why, size_t whysz)
{
	int r;

	if (vb.pol.mode != LB_VERIFY_OFF && (r = lb_verify_stage(arg, e, st, why, whysz)))
		return r;
	if (tpm_require && !tpm_on) {
		snprintf(why, whysz, "TPM: none usable, and a TPM is required");
		return -EKEYREJECTED;
	}
	/* measurement fails closed: what could not be measured does not boot
	 * (the PCRs are capped either way), unless lboot.tpm=best-effort */
	if (tpm_on && !tpm_dry && measure_stage(e, st) && !tpm_best_effort) {
		measure_refused = 1;
		snprintf(why, whysz, "TPM: measuring failed (PCRs capped; lboot.tpm=best-effort boots it)");
		return -EKEYREJECTED;
	}
	if (fault_dropcaches)
		drop_caches();
	return 0;
}

static void time_save(void);
static void update_round(const struct lb_boot_opts *o, const struct lb_fsset *set);

/* Load and jump; returns only on failure (or after a dry run: 0). */
static int try_entry(const struct lb_boot_opts *o, const struct lb_fsset *set,
		     const struct lb_entries *l, const struct lb_entry *e,
		     const char *cmdline)
{
	struct lb_kexec_req rq = {
		.set = set, .entry = e, .cmdline = cmdline,
		.dry_run = o->dry_run, .log = outf(),
		.digest_mask = lb_verify_mask_entry(&vb.pol, set, e) |
			       (tpm_on ? lb_measure_banks(&tpm) : 0),
		.check = check_entry,
		.check_arg = &vb.v,
		.mode = o->kexec_mode,
	};
	char why[1024];
	int r;

	lb_progress(LB_PHASE_LOAD, lb_entry_device(set, e));
	tpm_dry = o->dry_run;
	fault_dropcaches = o->fault_dropcaches;
	measure_refused = 0;
	r = lb_kexec_load(&rq, why, sizeof(why));
	if (r == -EKEYREJECTED && (vb.pol.mode == LB_VERIFY_ENFORCE || tpm_require || measure_refused)) {
		say(LB_LOG_ERR "lboot: refused: '%s' (%s): %s\n", e->title ? e->title : "?",
		    lb_entry_device(set, e), why);
		refused_set(l, e, why);
		return r;
	}

	if (!r) {
		if (o->dry_run)
			return 0;
		if (o->pid1) /* EFI variables for the OS, boot counting */
			lb_bootstate_handover(set, l, e, o->default_sel, o->start_ms, outf());
		time_save(); /* the clock's floor for the next boots */
		if (o->pid1) /* the boot log, last: the kexec line is in it */
			lb_bootlog_handover(outf());
		lb_watchdog_handover(o->unattended.handover, outf());
		r = lb_kexec_exec();
		lb_watchdog_resume(outf());
		snprintf(why, sizeof(why), "reboot(KEXEC): %s", strerror(-r));
	}
	say(LB_LOG_ERR "lboot: boot failed: %s (%s): %s\n", e->title ? e->title : "?",
	    lb_entry_device(set, e), why);
	return r ? r : -EIO;
}

/* The disk an entry came from: GRUB's disk (hd1 of hd1,gpt2), else its
 * filesystem's device, else "network". */
static void entry_disk(const struct lb_fsset *set, const struct lb_entry *e,
		       char *out, size_t size)
{
	const struct lb_fs *fs = e->fs && set ? lb_fsset_by_ident(set, e->fs) : NULL;

	if (fs && fs->grub)
		snprintf(out, size, "%.*s", (int)strcspn(fs->grub, ","), fs->grub);
	else
		snprintf(out, size, "%s", lb_entry_device(set, e));
}

/* The default first, then the other shown entries of its disk, then every
 * other shown entry, in list order (the list follows the boot order): a
 * failed default falls back on its own disk before the next device. */
int lb_boot_fallback_order(const struct lb_fsset *set, const struct lb_entries *l,
			   size_t *order)
{
	long d = lb_entries_default(l);
	char dd[128], di[128];
	size_t n = 0;

	if (!l->n)
		return 0;
	if (d < 0)
		d = 0;
	order[n++] = (size_t)d;
	entry_disk(set, &l->v[d], dd, sizeof(dd));
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < l->n; i++) {
			if ((long)i == d || l->v[i].hidden)
				continue;
			entry_disk(set, &l->v[i], di, sizeof(di));
			if (!strcmp(di, dd) == !pass)
				order[n++] = i;
		}
	return (int)n;
}

static int try_all(const struct lb_boot_opts *o, const struct lb_fsset *set,
		   const struct lb_entries *l)
{
	size_t *order = calloc(l->n ? l->n : 1, sizeof(*order));
	int n;

	if (!order) {
		say(LB_LOG_ERR "lboot: out of memory for the fallback order\n");
		return -ENOMEM;
	}
	n = lb_boot_fallback_order(set, l, order);
	for (int k = 0; k < n; k++)
		if (!try_entry(o, set, l, &l->v[order[k]], NULL)) {
			free(order);
			return 0;
		}
	free(order);
	say(LB_LOG_ERR "lboot: every entry failed to boot\n");
	return -ENOEXEC;
}

/* Keys typed while devices are scanned are kept for the menu but not
 * echoed by the tty (the menu echoes what it uses). */
static int quiet_tty(struct termios *saved)
{
	struct termios q;

	if (tcgetattr(0, saved) < 0)
		return 0;
	q = *saved;
	q.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	tcsetattr(0, TCSANOW, &q);
	return 1;
}

static int boot_run(const struct lb_boot_opts *o);

/* --- the clock's floor --------------------------------------------------- */

/* The floor (build date, or the time stored by the last good boot,
 * timefloor.h) and the clock this boot started with. Only PID 1 (not a
 * dry run) raises the clock and stores the floor. */
static struct {
	int64_t floor, start;
	int on;
} tfl;

static void time_setup(const struct lb_boot_opts *o)
{
	int64_t build = lb_tls_build_date(__DATE__), stored = 0;
	struct timespec now;
	char t1[40], t2[40];
	int bad = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	tfl.on = o->pid1 && !o->dry_run;
	tfl.floor = build;
	if (tfl.on && lb_timefloor_where())
		tfl.floor = lb_timefloor_load(build, &stored, &bad);
	if (bad)
		say(LB_LOG_WARN "lboot: clock: %s is malformed (%s): ignored, the floor is the build date\n",
		    lb_timefloor_where(), lb_cmos_boot && lb_efivars_open() ?
		    "the CMOS checksum is wrong" : "not 8 bytes of Unix time");
	tfl.start = lb_timefloor_clamp(now.tv_sec, tfl.floor);
	if (tfl.on && now.tv_sec < tfl.floor) {
		struct timespec ts = { .tv_sec = (time_t)tfl.floor };
		int r = clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
		say("lboot: clock: %s is before the floor %s (%s): %s\n",
		    lb_ntp_fmt(now.tv_sec, t1, sizeof(t1)), lb_ntp_fmt(tfl.floor, t2, sizeof(t2)),
		    stored > build ? "the last boot's time" : "the build date",
		    r ? strerror(-r) : "raised to it");
	}
}

/* After a good NTP answer and before the jump: the floor for the next
 * boots (at most a day past this boot's starting clock, timefloor.h). */
static void time_save(void)
{
	struct timespec now;
	int r;

	if (!tfl.on)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if ((r = lb_timefloor_save(lb_timefloor_next(tfl.start, now.tv_sec))) && r != -ENOENT)
		say(LB_LOG_WARN "lboot: clock: cannot store the floor in %s: %s\n",
		    lb_timefloor_where() ? lb_timefloor_where() : "-", strerror(-r));
}

/* --- network boot ------------------------------------------------------- */

static struct {
	struct lb_tls_anchors *anchors;
	struct lb_tls_config tls;
	struct lb_fetch_opts fetch;
	int ntp_off, ntp_done;
	struct lb_ntp_server ntp[LB_NTP_MAX_SERVERS];
	size_t nntp;
} nb;

#define NTP_BOUND_MS 3000
/* lboot.update=: fetching URL and URL.minisig, then checking and writing */
#define UPDATE_FETCH_MS 300000u
#define UPDATE_WRITE_MS 600000
/* the "device" of the update's progress stamps: a boot process that hung
 * there is restarted without the unattended update (lb_progress_skipped) */
#define UPDATE_DEV "lboot.update"

/* Before the first TLS handshake of a boot: the time from the NTP servers
 * (the lease's, or lboot.ntp=), within NTP_BOUND_MS. The answer is not
 * authenticated: it may move the clock forward only, never back and never
 * below the floor (time_setup). One line either way; without a server,
 * nothing is said and the clock (with the floor) is used. */
static void ntp_once(void)
{
	struct lb_ntp_opts no = { .timeout_ms = NTP_BOUND_MS, .pivot = nb.tls.time_floor };
	struct lb_ntp_result res;
	struct timespec now, was;
	char err[384], t1[40], t2[40], fl[40];
	int r;

	if (nb.ntp_done || nb.ntp_off || !nb.nntp)
		return;
	nb.ntp_done = 1;
	lb_ntp_fmt(nb.tls.time_floor, fl, sizeof(fl));
	r = lb_ntp_query(nb.ntp, nb.nntp, &no, &res, err, sizeof(err));
	clock_gettime(CLOCK_REALTIME, &was);
	if (r) {
		say("lboot: ntp: %s; certificates checked at the clock's time %s (not before the floor %s)\n",
		    err, lb_ntp_fmt(was.tv_sec, t1, sizeof(t1)), fl);
		return;
	}
	lb_ntp_now(&res, &now);
	lb_ntp_fmt(now.tv_sec, t1, sizeof(t1));
	if (!lb_timefloor_may_set(was.tv_sec, nb.tls.time_floor, now.tv_sec)) {
		say("lboot: ntp: %s says %s, not later than the clock %s (floor %s): clock not moved back\n",
		    nb.ntp[res.server].name, t1, lb_ntp_fmt(was.tv_sec, t2, sizeof(t2)), fl);
		return;
	}
	if (clock_settime(CLOCK_REALTIME, &now)) {
		/* the time is still good for the certificate checks */
		say("lboot: ntp: %s says %s (stratum %u); cannot set the clock: %s\n",
		    nb.ntp[res.server].name, t1, res.stratum, strerror(errno));
		nb.tls.time_floor = now.tv_sec;
		return;
	}
	say("lboot: ntp: clock set to %s from %s (stratum %u, round trip %u ms, %.1f s; was %s)\n",
	    t1, nb.ntp[res.server].name, res.stratum, res.rtt_ms, (double)res.elapsed_ms / 1000,
	    lb_ntp_fmt(was.tv_sec, t2, sizeof(t2)));
	time_save();
}

static int ntp_tls_open(void *arg, int fd, const char *host, unsigned timeout_ms,
			struct lb_net_transport *t, char *err, size_t errsz)
{
	ntp_once();
	return lb_tls_open(arg, fd, host, timeout_ms, t, err, errsz);
}

/* the lease's NTP servers (DHCPv4 42, DHCPv6 56) unless lboot.ntp= names one */
static void ntp_lease(void *arg, const struct lb_net_lease *l)
{
	(void)arg;
	if (nb.ntp_off || nb.ntp_done || nb.nntp)
		return;
	for (unsigned i = 0; i < l->dhcp.nntp && nb.nntp < LB_NTP_MAX_SERVERS; i++)
		lb_ntp_server_v4(l->dhcp.ntp[i], &nb.ntp[nb.nntp++]);
	for (unsigned i = 0; i < l->nntp6 && nb.nntp < LB_NTP_MAX_SERVERS; i++)
		lb_ntp_server_v6(l->ntp6[i], l->ifindex, &nb.ntp[nb.nntp++]);
}

/* HTTPS trust anchors from /etc/lboot/tls and /etc/lboot/ca.pem (built in
 * by mkinitramfs --ca); without any, https:// URLs are refused */
static void net_setup(const struct lb_boot_opts *o)
{
	static const char *const paths[] = { LB_TLS_DEFAULT_DIR, LB_TLS_DEFAULT_FILE };

	memset(&nb, 0, sizeof(nb));
	/* lboot.ntp=: off, or the one server asked (already checked) */
	if (!strcmp(o->ntp, "off"))
		nb.ntp_off = 1;
	else if (o->ntp[0] && !lb_ntp_server_parse(o->ntp, &nb.ntp[0]))
		nb.nntp = 1;
	if ((nb.anchors = lb_tls_anchors_new())) {
		for (size_t i = 0; i < 2; i++) {
			char e[256];
			if (access(paths[i], F_OK))
				continue;
			if (lb_tls_anchors_add_path(nb.anchors, paths[i], e, sizeof(e)) < 0)
				say(LB_LOG_WARN "lboot: https trust anchors: %s\n", e);
		}
		nb.tls.anchors = nb.anchors;
		nb.tls.time_floor = tfl.floor;
		nb.fetch.tls_open = ntp_tls_open;
		nb.fetch.tls_arg = &nb.tls;
	}
	lb_kexec_set_fetch(&nb.fetch);
}

static void net_release(void)
{
	lb_kexec_set_fetch(NULL);
	lb_tls_anchors_free(nb.anchors);
	nb.anchors = NULL;
}

/* DHCP and what it points at, appended to l (after the disks' entries) */
static void net_scan(const struct lb_boot_opts *o, struct lb_entries *l, int first)
{
	struct lb_netboot_opts no = {
		.iface = o->net_iface[0] ? o->net_iface : NULL,
		.timeout_ms = (unsigned)(o->net_timeout > 0 ? o->net_timeout : 30) * 1000u,
		.log = outf(),
		.v = &vb.v,
		.url = o->netboot[0] ? o->netboot : NULL,
		.vlan = o->vlan,
		.on_lease = ntp_lease,
	};
	struct lb_entries nl = LB_ENTRIES_INIT;
	struct lb_net_lease lease;
	char err[512] = "";
	int r, had_default = lb_entries_default(l) >= 0;

	if (!first)
		no.timeout_ms = no.timeout_ms < 10000 ? no.timeout_ms : 10000;
	say("lboot: network boot: bringing links up (DHCP, up to %u s)\n", no.timeout_ms / 1000);
	lb_progress_bound(LB_PHASE_SCAN, "net", (int)no.timeout_ms + 60000);
	r = lb_netboot(&no, &nl, &lease, err, sizeof(err));
	if (r) {
		say(LB_LOG_ERR "lboot: network boot: %s\n", err[0] ? err : strerror(-r));
		lb_entries_free(&nl);
		return;
	}
	say(LB_LOG_NOTICE "lboot: network boot: %zu entr%s from %s\n", nl.n, nl.n == 1 ? "y" : "ies",
	    lease.ifname);
	for (size_t i = 0; i < nl.n; i++)
		if (had_default)
			nl.v[i].is_default = 0;
	if (lb_entries_append(l, &nl))
		lb_entries_free(&nl);
}

static void save_env(void *arg, const struct lb_grub_save *s)
{
	(void)arg;
	lb_grubenv_apply(s, outf());
	fflush(outf());
}

/* The built-in policy, made stricter by lboot.verify=; one line says it. */
static void policy_setup(const struct lb_boot_opts *o)
{
	lb_policy_load(o->policy_root ? o->policy_root : "/", &vb.pol);
	if (o->verify[0]) {
		int r = lb_policy_raise(&vb.pol, o->verify);
		if (r < 0)
			say(LB_LOG_WARN "lboot: lboot.verify=%s: want off, warn or enforce; keeping %s\n",
			    o->verify, lb_verify_mode_name(vb.pol.mode));
		else if (!r && strcmp(o->verify, lb_verify_mode_name(vb.pol.mode)))
			say(LB_LOG_WARN "lboot: lboot.verify=%s ignored: the built-in policy is %s, and the command line may only make it stricter\n",
			    o->verify, lb_verify_mode_name(vb.pol.mode));
	}
	if (vb.pol.err[0])
		say(LB_LOG_ERR "lboot: verified boot policy invalid, nothing can boot: %s\n", vb.pol.err);
	if (vb.pol.mode != LB_VERIFY_OFF)
		say(LB_LOG_NOTICE "lboot: verified boot: %s, %zu trusted key%s, %zu revoked, %zu CA%s%s%s\n",
		    lb_verify_mode_name(vb.pol.mode), vb.pol.n_trusted,
		    vb.pol.n_trusted == 1 ? "" : "s", vb.pol.n_revoked, vb.pol.n_cas,
		    vb.pol.n_cas == 1 ? "" : "s",
		    vb.pol.allow_edit ? ", edits allowed" : "",
		    vb.pol.allow_shell ? ", shell allowed" : "");
	if (vb.pol.fw_version || vb.pol.n_update_keys)
		say(LB_LOG_NOTICE "lboot: firmware version %llu, %zu update key%s\n",
		    (unsigned long long)vb.pol.fw_version, vb.pol.n_update_keys,
		    vb.pol.n_update_keys == 1 ? "" : "s");
	vb.v.pol = &vb.pol;
	vb.v.log = outf();
	lb_scan_set_check(vb.pol.mode != LB_VERIFY_OFF ? lb_verify_config : NULL, &vb.v);
}

/* `manifest-floor-nv`: the floor is the TPM counter's value; no TPM or no
 * readable counter: the policy fails closed (one line) */
static void floor_nv_setup(void)
{
	if (!vb.pol.manifest_floor_nv)
		return;
	if (lb_policy_floor_nv(&vb.pol, tpm_on ? &tpm.t : NULL)) {
		say(LB_LOG_ERR "lboot: verified boot policy invalid, nothing can boot: %s\n", vb.pol.err);
		lb_scan_set_check(lb_verify_config, &vb.v);
		return;
	}
	say("lboot: manifest floor %llu (NV counter 0x%08x holds %llu)\n",
	    (unsigned long long)vb.pol.manifest_floor, vb.pol.manifest_floor_nv,
	    (unsigned long long)vb.pol.floor_nv_value);
}

int lb_boot_run(const struct lb_boot_opts *o)
{
	struct termios saved;
	int tty = quiet_tty(&saved), r;

	time_setup(o);
	policy_setup(o);
	measure_setup(o);
	floor_nv_setup();
	net_setup(o);
	/* GRUB's save_env (next_entry after grub-reboot): written as GRUB
	 * would, but not by a dry run */
	lb_scan_set_save(o->dry_run ? NULL : save_env, NULL);
	r = boot_run(o);
	lb_scan_set_save(NULL, NULL);
	net_release();
	if (tpm_on)
		lb_measure_close(&tpm);
	tpm_on = 0;
	lb_scan_set_check(NULL, NULL);
	refused_clear();
	lb_policy_free(&vb.pol);
	if (tty)
		tcsetattr(0, TCSANOW, &saved);
	return r;
}

/*
 * Nothing to boot (no entry, or every entry failed): one line for this
 * round, and the menu waits for the round's backoff before the rescan
 * (m->first_wait). After lboot.giveup seconds without a key: reboot.
 * At the recovery prompt (nothing scanned: a boot process died) no
 * rescans: the wait lasts until lboot.giveup, then the reboot.
 * Returns 0 to wait and rescan, 1 when the caller should stop (not PID 1,
 * or a dry run: nobody to reboot for).
 */
static int nothing_round(const struct lb_boot_opts *o, long since_ms, unsigned round,
			 int recovery, struct lb_menu *m)
{
	int giveup = o->unattended.giveup, delay = lb_rescan_delay(round), r;
	long left = giveup * 1000L - (lb_progress_now_ms() - since_ms);

	if (lb_giveup_due(giveup, since_ms, lb_progress_now_ms())) {
		say(LB_LOG_WARN "lboot: nothing to boot for %d s and nobody at the console (lboot.giveup=%d): rebooting\n",
		    giveup, giveup);
		if (o->dry_run || !o->pid1) {
			say("lboot: %s: not rebooting\n", o->dry_run ? "dry run" : "not PID 1");
			return 1;
		}
		r = lb_reboot(LB_LINUX_REBOOT_CMD_RESTART);
		say(LB_LOG_ERR "lboot: reboot failed: %s\n", strerror(-r));
	}
	if (giveup > 0 && left > 0 && (recovery || left < delay * 1000L))
		delay = (int)((left + 999) / 1000);
	if (recovery) {
		if (giveup > 0)
			say("lboot: recovery prompt: rebooting in %d s unless someone types (lboot.giveup=%d)\n",
			    delay, giveup);
		m->first_wait = giveup > 0 ? delay : 0;
		return 0;
	}
	if (giveup > 0)
		say(LB_LOG_WARN "lboot: nothing to boot (round %u): rescanning in %d s; rebooting in %ld s unless someone types (lboot.giveup=%d)\n",
		    round + 1, delay, left > 0 ? (left + 999) / 1000 : 0, giveup);
	else
		say(LB_LOG_WARN "lboot: nothing to boot (round %u): rescanning in %d s (lboot.giveup=0: never rebooting)\n",
		    round + 1, delay);
	m->first_wait = delay;
	return 0;
}

/* One round's devices and entries: discover and mount the block devices,
 * order them by policy, the network where the policy puts it, then the
 * configs, and the default the boot state or lboot.default= asks for. */
static void scan_round(const struct lb_boot_opts *o, int first, struct lb_fsset *set,
		       struct lb_entries *l)
{
	struct lb_discover_opts dopts = {
		.mnt = o->mnt, .wait_ms = (first ? o->wait : 1) * 1000,
		.stable_ms = o->settle_ms, .log = outf(),
	};
	size_t ndev = 0;
	int r, net_first;

	say("lboot: looking for block devices (up to %d s)\n", first ? o->wait : 1);
	/* the device wait has its own bound: lboot.wait */
	r = lb_progress_default_ms(LB_PHASE_DISCOVER);
	lb_progress_bound(LB_PHASE_DISCOVER, NULL, r ? dopts.wait_ms + r : 0);
	if ((r = lb_discover(&dopts, set, &ndev)))
		say(LB_LOG_ERR "lboot: device discovery: %s\n", strerror(-r));
	/* cloned disks: entries keep the device they came from */
	if (lb_fsset_mark_ambiguous(set))
		for (size_t i = 0; i < set->n; i++)
			if (set->v[i].ambiguous)
				say("lboot: %s: %s %s is on another device too (a clone?): its entries name %s\n",
				    set->v[i].name, set->v[i].uuid && *set->v[i].uuid ? "UUID" : "label",
				    set->v[i].uuid && *set->v[i].uuid ? set->v[i].uuid : set->v[i].label,
				    set->v[i].name);
	/* the order is policy: classes and hardware paths, lboot.order= */
	net_first = lb_order_sort(set, o->order, NULL);
	if (net_first < 0) {
		say(LB_LOG_WARN "lboot: lboot.order=%s: unknown token; using the default order\n",
		    o->order);
		net_first = 0;
	}
	if (o->debug)
		for (size_t i = 0; i < set->n; i++)
			say(LB_LOG_DEBUG "lboot: order %zu: %s\n", i, set->v[i].name ? set->v[i].name : "?");
	update_round(o, set);
	if (net_first && strcmp(o->net, "off"))
		net_scan(o, l, first);
	if (o->debug) {
		char up[32];
		say("lboot: %zu devices, %zu filesystems mounted at uptime %s s\n",
		    ndev, set->n, lb_uptime(up, sizeof(up)));
	}
	if ((r = lb_scan(set, l)))
		say(LB_LOG_ERR "lboot: scanning configs: %s\n", strerror(-r));
	if (o->debug) {
		char up[32];
		say("lboot: %zu entries at uptime %s s\n", l->n, lb_uptime(up, sizeof(up)));
	}
	if (!net_first && (!strcmp(o->net, "on") || (strcmp(o->net, "off") && !l->n)))
		net_scan(o, l, first);
	report_configs(l, set, o->debug);
	/* LoaderEntryOneShot/Default (EFI), then lboot.default= */
	lb_bootstate_select(l, o->default_sel, o->pid1, o->dry_run, outf());
	if (!l->n)
		say(LB_LOG_WARN "lboot: no bootable entries found on %zu devices\n", ndev);
}

/* the update's progress, every 10 %, on the console with PID 1's other lines */
static void update_progress(void *arg, uint64_t done, uint64_t total)
{
	unsigned *last = arg, pct = total ? (unsigned)(done * 100 / total) : 100;

	if (pct / 10 != *last / 10 || done == total) {
		say("lboot: update: writing %u%%\n", pct);
		*last = pct;
	}
}

static void update_writing(void *arg, const struct lb_update_hdr *h)
{
	(void)arg;
	if (h->kind == LB_UPDATE_KIND_FLASH)
		say(LB_LOG_WARN "lboot: update: %s\n", LB_UPDATE_WHOLE_RISK);
	else
		say("lboot: update: writing version %llu into payload slot %c (the running slot is not touched)\n",
		    (unsigned long long)h->version, h->slot);
}

/*
 * A firmware update file from WHERE (DEVICE:PATH or a URL) through the one
 * decision (fwupdate.h), with one line for the outcome: refused (and
 * why), the running version (nothing to do), or written, and then the
 * machine restarts into it. apply 0: check only (the menu's first step;
 * so does a dry run). Returns lb_fwupdate's answer: 0 may be / was
 * written, 1 nothing to do, negative errno refused; line gets the outcome
 * without the "lboot: update WHERE: " prefix.
 */
static const char *slot_of(const struct lb_fwupdate_result *res)
{
	return res->h.slot ? (res->h.slot == 'A' ? "payload slot A of " : "payload slot B of ") : "";
}

static int update_file(const struct lb_boot_opts *o, const char *where,
		       const struct lb_fwsrc_file *f, int apply, int quiet, char *line,
		       size_t linesz)
{
	unsigned pr = 0;
	struct lb_fwupdate_opts uo = {
		.root = o->policy_root ? o->policy_root : "/",
		.want = o->flash[0] ? o->flash : NULL,
		.apply = apply && !o->dry_run, .only_newer = 1,
		.slot = (o->slot[0] == 'A' || o->slot[0] == 'B') && !o->slot[1] ? o->slot[0] : 0,
		.progress = update_progress, .arg = &pr, .writing = update_writing,
	};
	struct lb_fwupdate_result res;
	char why[768];
	long t0 = lb_progress_now_ms();
	int r;

#define usay(...) do { if (!quiet) say(__VA_ARGS__); } while (0)
	usay("lboot: update %s: checking (%zu bytes)\n", where, f->len);
	memset(&res, 0, sizeof(res));
	r = lb_fwupdate(f->buf, f->len, f->sig, f->siglen, &uo, &res, why, sizeof(why));
	if (r == 1) {
		snprintf(line, linesz, "%s", why);
		usay("lboot: update %s: %s\n", where, line);
		return 1;
	}
	if (r < 0) {
		snprintf(line, linesz, "refused: %s", why);
		usay(LB_LOG_ERR "lboot: update %s: %s\n", where, line);
		if (res.st.differ)
			usay(LB_LOG_ERR "lboot: update: the flash %s is partly written (%llu blocks): the running firmware goes on; apply the update again before powering off\n",
			    res.flash, (unsigned long long)res.st.differ);
		return r;
	}
	if (!uo.apply) {
		snprintf(line, linesz, "version %llu (%s) may be written to %s%s%s",
			 (unsigned long long)res.h.version, res.h.label, slot_of(&res), res.flash,
			 apply ? " (dry run)" : "");
		usay("lboot: update %s: %s\n", where, line);
		return 0;
	}
	snprintf(line, linesz, "version %llu (%s) written to %s%s: %llu of %llu erase blocks, each read back (%ld ms with the checks); restarting into it",
		 (unsigned long long)res.h.version, res.h.label, slot_of(&res), res.flash,
		 (unsigned long long)res.st.differ, (unsigned long long)res.st.blocks,
		 lb_progress_now_ms() - t0);
	usay("lboot: update %s: %s\n", where, line);
	sync();
	return 0;
#undef usay
}

/* An unattended update: 1 when the search is over (written: the machine
 * restarts; the running version; a dry run), 0 to try the next place. */
static int update_unattended(const struct lb_boot_opts *o, const char *where,
			     const struct lb_fwsrc_file *f)
{
	char line[1024];
	int r;

	/* the check and the write: generous, but not forever */
	lb_progress_bound(LB_PHASE_LOAD, UPDATE_DEV, UPDATE_WRITE_MS);
	r = update_file(o, where, f, 1, 0, line, sizeof(line));
	if (r < 0)
		return 0;
	if (!r && !o->dry_run && o->pid1)
		lb_reboot(LB_LINUX_REBOOT_CMD_RESTART);
	return 1;
}

/* The network for lboot.update=URL, brought up the way network boot does
 * (netif.h: DHCPv4, then DHCPv6 when no IPv4 lease comes), within
 * lboot.net.timeout (30 s) each, the lease's NTP servers noted for the
 * first TLS handshake. Once per boot; 0 or negative errno (its line said). */
static int update_net_up(const struct lb_boot_opts *o)
{
	static int state; /* 0 not tried, 1 up, < 0 failed */
	struct lb_net_opts no = {
		.iface = o->net_iface[0] ? o->net_iface : NULL,
		.timeout_ms = (unsigned)(o->net_timeout > 0 ? o->net_timeout : 30) * 1000u,
		.log = outf(), .vlan = o->vlan,
	};
	struct lb_net_lease lease;
	char err[512] = "";
	int r;

	if (state)
		return state > 0 ? 0 : state;
	say("lboot: update: bringing the network up (DHCP, up to %u s)\n", no.timeout_ms / 1000);
	lb_progress_bound(LB_PHASE_SCAN, UPDATE_DEV, 2 * (int)no.timeout_ms + 60000);
	r = lb_net_up(&no, &lease, err, sizeof(err));
	if (!r) {
		ntp_lease(NULL, &lease);
	} else if (r == -ETIMEDOUT) {
		struct lb_net6_lease *l6 = calloc(1, sizeof(*l6));
		char e6[256] = "";

		r = l6 ? lb_net_up6(&no, l6, e6, sizeof(e6)) : -ENOMEM;
		if (r) {
			size_t n = strlen(err);
			snprintf(err + n, sizeof(err) - n, "; DHCPv6: %s", e6[0] ? e6 : strerror(-r));
		}
		free(l6);
	}
	if (r)
		say(LB_LOG_ERR "lboot: update: no network: %s\n", err[0] ? err : strerror(-r));
	state = r ? r : 1;
	return r;
}

/* lboot.update=https://HOST/PATH (or http://): URL and URL.minisig over
 * the network, with network boot's trust (net_setup: the built-in CAs,
 * NTP before the first handshake), then the same decision and lines as a
 * file. */
static void update_url(const struct lb_boot_opts *o, const char *url)
{
	struct lb_fwsrc_file f;
	char why[768];
	const char *w = why;
	size_t ul = strlen(url);
	int r;

	if (update_net_up(o))
		return;
	say("lboot: update %s: fetching (up to %u s)\n", url, UPDATE_FETCH_MS / 1000);
	lb_progress_bound(LB_PHASE_LOAD, UPDATE_DEV, UPDATE_FETCH_MS + 60000);
	r = lb_fwsrc_fetch(url, &nb.fetch, UPDATE_FETCH_MS, &f, why, sizeof(why));
	if (r) {
		/* the fetch's line names the URL already */
		if (!strncmp(why, url, ul) && why[ul] == ':' && why[ul + 1] == ' ')
			w = why + ul + 2;
		say(LB_LOG_ERR "lboot: update %s: %s\n", url, w);
		return;
	}
	update_unattended(o, url, &f);
	lb_fwsrc_file_free(&f);
}

/*
 * lboot.update=fs:/PATH: a firmware update image PATH (and PATH.minisig) on
 * the first filesystem, in boot order, that holds it, e.g. where the OS
 * put it on the ESP. lboot.update=https://HOST/PATH: that URL (update_url).
 * Written only when newer than the running firmware and after every check
 * (fwupdate.h); then the machine restarts into it. Once per boot; a
 * refused file is said in one line and the next filesystem is tried (a
 * hostile disk earlier in the order cannot block a real update).
 */
static void update_round(const struct lb_boot_opts *o, const struct lb_fsset *set)
{
	static int done;
	enum lb_fwsrc_kind kind;
	const char *path;
	char why[768];

	if (done || !o->update[0])
		return;
	done = 1;
	if (lb_progress_skipped(UPDATE_DEV)) {
		say(LB_LOG_WARN "lboot: update: not tried again: it made no progress earlier in this boot\n");
		return;
	}
	if (lb_fwsrc_parse(o->update, &kind, &path, why, sizeof(why))) {
		say(LB_LOG_WARN "lboot: %s\n", why);
		return;
	}
	if (kind == LB_FWSRC_URL) {
		update_url(o, path);
		return;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct lb_fs *fs = &set->v[i];
		struct lb_fwsrc_file f;
		char where[512];
		int r = lb_fwsrc_read_fs(fs, path, &f, why, sizeof(why));

		if (r == -ENOENT)
			continue;
		snprintf(where, sizeof(where), "%s:%s", fs->name, path);
		if (r) {
			say(LB_LOG_ERR "lboot: update %s: %s\n", where, why);
			continue;
		}
		r = update_unattended(o, where, &f);
		lb_fwsrc_file_free(&f);
		if (r)
			return;
	}
}

/*
 * The menu's 'u' (src/console/menu.h): the update files there are now,
 * LB_FWSRC_DEFAULT_PATH and the lboot.update= path on each filesystem, and
 * the lboot.update= URL; each read again for the check and for the write
 * (the decision is always made on the bytes it writes). The lines go to
 * the menu, which shows them.
 */
static struct menu_upd {
	const struct lb_boot_opts *o;
	const struct lb_fsset *set;
	size_t n;
	struct {
		size_t fs;          /* index in set; SIZE_MAX: path is a URL */
		const char *path;
	} v[LB_MENU_UPD_MAX];
} mu;

static size_t menu_upd_find(void *arg, char (*names)[LB_MENU_UPD_NAME], size_t max)
{
	struct menu_upd *c = arg;
	enum lb_fwsrc_kind kind = LB_FWSRC_NONE;
	const char *opt = NULL, *paths[2] = { LB_FWSRC_DEFAULT_PATH, NULL };
	char why[768];

	c->n = 0;
	if (max > LB_MENU_UPD_MAX)
		max = LB_MENU_UPD_MAX;
	if (lb_fwsrc_parse(c->o->update, &kind, &opt, why, sizeof(why)))
		kind = LB_FWSRC_NONE;
	if (kind == LB_FWSRC_FS && strcmp(opt, LB_FWSRC_DEFAULT_PATH))
		paths[1] = opt;
	for (size_t i = 0; c->set && i < c->set->n && c->n < max; i++)
		for (size_t p = 0; p < 2 && paths[p] && c->n < max; p++) {
			int fd = lb_fs_open(&c->set->v[i], paths[p]);

			if (fd < 0)
				continue;
			close(fd);
			c->v[c->n].fs = i;
			c->v[c->n].path = paths[p];
			snprintf(names[c->n], LB_MENU_UPD_NAME, "%s:%s", c->set->v[i].name, paths[p]);
			c->n++;
		}
	if (kind == LB_FWSRC_URL && c->n < max) {
		c->v[c->n].fs = SIZE_MAX;
		c->v[c->n].path = opt;
		snprintf(names[c->n], LB_MENU_UPD_NAME, "%s", opt);
		c->n++;
	}
	return c->n;
}

static int menu_upd_run(void *arg, size_t i, int write, char *line, size_t linesz)
{
	struct menu_upd *c = arg;
	struct lb_fwsrc_file f;
	char why[768], where[LB_MENU_UPD_NAME];
	int r;

	if (i >= c->n)
		return -EINVAL;
	if (c->v[i].fs == SIZE_MAX) {
		snprintf(where, sizeof(where), "%s", c->v[i].path);
		if ((r = update_net_up(c->o))) {
			snprintf(line, linesz, "no network: %s", strerror(-r));
			return r;
		}
		r = lb_fwsrc_fetch(c->v[i].path, &nb.fetch, UPDATE_FETCH_MS, &f, why, sizeof(why));
	} else {
		if (c->v[i].fs >= c->set->n)
			return -ENODEV;
		snprintf(where, sizeof(where), "%s:%s", c->set->v[c->v[i].fs].name, c->v[i].path);
		r = lb_fwsrc_read_fs(&c->set->v[c->v[i].fs], c->v[i].path, &f, why, sizeof(why));
	}
	if (r) {
		snprintf(line, linesz, "cannot read it: %s", why[0] ? why : strerror(-r));
		return r;
	}
	r = update_file(c->o, where, &f, write, 1, line, linesz);
	lb_fwsrc_file_free(&f);
	return r;
}

static const struct lb_menu_update menu_upd = {
	.find = menu_upd_find, .run = menu_upd_run, .arg = &mu,
	.looked = LB_FWSRC_DEFAULT_PATH " on each filesystem, and lboot.update=",
};

/* The menu's reboot and power-off items (returns only when they failed
 * or in a dry run). */
static void menu_power(const struct lb_boot_opts *o, int action)
{
	int r;

	if (o->dry_run) {
		say("lboot: dry run: not %s\n",
		    action == LB_MENU_REBOOT ? "rebooting" : "powering off");
		return;
	}
	r = lb_reboot(action == LB_MENU_REBOOT ? LB_LINUX_REBOOT_CMD_RESTART :
						 LB_LINUX_REBOOT_CMD_POWER_OFF);
	say(LB_LOG_ERR "lboot: %s failed: %s\n",
	    action == LB_MENU_REBOOT ? "reboot" : "power off", strerror(-r));
}

/* How a round of the boot flow ends. */
enum round_end {
	ROUND_RESCAN,  /* scan again (the give-up round's wait is over) */
	ROUND_BY_HAND, /* scan again because the user asked: stay interactive */
	ROUND_OK,      /* a dry run booted an entry */
	ROUND_FAIL,    /* gave up, or the console closed outside PID 1 */
};

/* What giving up counts, across rounds. */
struct giveup {
	long since_ms;  /* the last key, or the start */
	unsigned round; /* rounds with nothing to boot since then */
	int scanned;    /* devices were scanned at least once */
};

/* The menu (or the countdown) of one round, until it asks for a rescan or
 * the flow ends; nothing: every entry failed or there is none. */
static enum round_end menu_round(const struct lb_boot_opts *o, struct lb_menu *m,
				 struct lb_fsset *set, struct lb_entries *l,
				 int timeout, int nothing, struct giveup *g)
{
	int r;

	for (;;) {
		struct lb_menu_result res;

		m->first_wait = 0;
		if (nothing && nothing_round(o, g->since_ms, g->round, !g->scanned, m))
			return ROUND_FAIL;
		lb_progress(LB_PHASE_MENU, NULL);
		mu.o = o;
		mu.set = set;
		m->update = vb.pol.n_update_keys ? &menu_upd : NULL;
		m->refused = vb.refused;
		m->n_refused = vb.n_refused;
		m->reseal = totp_show(o);
		if ((r = lb_menu_run(m, l, set, timeout, &res))) {
			say(LB_LOG_ERR "lboot: menu: %s\n", strerror(-r));
			sleep(1);
			continue;
		}
		timeout = -1;
		if (res.last_key_ms) { /* someone is there: giving up starts over */
			g->since_ms = res.last_key_ms;
			g->round = 0;
		}
		if (res.action != LB_MENU_AUTO)
			lb_progress_interactive();
		switch (res.action) {
		case LB_MENU_AUTO:
			if (nothing || !l->n) { /* the round's wait is over */
				g->round++;
				if (g->scanned)
					return ROUND_RESCAN;
				break;
			}
			if (!try_all(o, set, l) && o->dry_run)
				return ROUND_OK;
			nothing = 1;
			break;
		case LB_MENU_BOOT:
			r = res.index < l->n ? try_entry(o, set, l, &l->v[res.index], res.cmdline) : -EINVAL;
			free(res.cmdline);
			if (!r && o->dry_run)
				return ROUND_OK;
			break;
		case LB_MENU_RESCAN:
			return ROUND_BY_HAND;
		case LB_MENU_REBOOT:
		case LB_MENU_POWEROFF:
			menu_power(o, res.action);
			break;
		case LB_MENU_EOF:
			if (!o->pid1)
				return ROUND_FAIL;
			sleep(1);
			break;
		}
	}
}

static int boot_run(const struct lb_boot_opts *o)
{
	struct lb_menu m = { .in = 0, .out = 1, .shell = "/bin/sh",
			     .idle = o->unattended.idle };
	int interactive = o->recovery || o->interactive, scan = !o->recovery, first = 1;
	/* a recovery prompt starts its own clock: the user may have been typing */
	struct giveup g = {
		.since_ms = o->start_ms && !o->recovery ? o->start_ms : lb_progress_now_ms(),
	};

	m.ins = lb_console_fds(&m.n_ins);
	if (vb.pol.mode == LB_VERIFY_ENFORCE) {
		if (!vb.pol.allow_edit)
			m.no_edit = "verified boot is enforced (build with mkinitramfs --allow-edit to allow)";
		if (!vb.pol.allow_shell)
			m.no_shell = "verified boot is enforced (build with mkinitramfs --allow-shell to allow)";
	}

	for (;;) {
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fsset set = { 0 };
		enum round_end end = ROUND_RESCAN;
		int timeout, nothing = 0;

		if (scan) {
			g.scanned = 1;
			scan_round(o, first, &set, &l);
		}
		first = 0;
		scan = 1;
		timeout = o->timeout >= 0 ? o->timeout : l.timeout >= 0 ? l.timeout :
			  LB_DEFAULT_TIMEOUT;
		if (interactive || !l.n)
			timeout = -1;
		if (interactive)
			lb_progress_interactive();

		if (timeout == 0) {
			if (!try_all(o, &set, &l) && o->dry_run)
				end = ROUND_OK;
			timeout = -1;
			nothing = 1; /* every entry failed */
		}
		if (!l.n)
			nothing = 1;
		if (end != ROUND_OK)
			end = menu_round(o, &m, &set, &l, timeout, nothing, &g);
		if (end == ROUND_BY_HAND)
			interactive = 1;
		refused_clear();
		lb_entries_free(&l);
		lb_discover_release(&set);
		if (end == ROUND_OK)
			return 0;
		if (end == ROUND_FAIL)
			return 1;
	}
}

/* --- PID 1 --------------------------------------------------------------- */

static void mount_one(const char *src, const char *dir, const char *type,
		      unsigned long flags, const char *data)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, flags, data) < 0 && errno != EBUSY)
		say(LB_LOG_ERR "lboot: mount %s on %s: %s\n", type, dir, strerror(errno));
}

static void setup(void)
{
	int fd;

	mount_one("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_one("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	/* the firmware's TPM event log (binary_bios_measurements): from UEFI
	 * firmware it is only there, not in the ACPI log area (measure.c) */
	mount_one("securityfs", "/sys/kernel/security", "securityfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_one("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	mount_one("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	mkdir("/tmp", 01777);
	setsid();
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	setenv("HOME", "/", 1);
	if (!getenv("TERM"))
		setenv("TERM", "linux", 1);
	chdir("/");
	umask(022);
}

/* the options built into the initramfs (mkinitramfs --order/--option, in
 * /etc/lboot/cmdline), then the kernel command line, which overrides them */
static void read_cmdline(struct lb_boot_opts *o)
{
	static const char *const src[] = { "/etc/lboot/cmdline", "/proc/cmdline" };
	char buf[4096];

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		ssize_t n = 0;
		int fd = open(src[i], O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		buf[n > 0 ? n : 0] = 0;
		if (!i && n > 0) {
			buf[strcspn(buf, "\n")] = 0;
			say("lboot: built-in options: %s\n", buf);
		}
		lb_boot_parse_cmdline(buf, o);
	}
}

/* lboot.fault_hang=pid1 (PID 1 stops) or pid1-exit (PID 1 exits: the
 * kernel panics), 2 s after the boot process started: tests of the
 * hardware watchdog (tests/e2e/watchdog.sh) */
static int fault_pid1;

static void fault_pid1_now(void)
{
	say("\n" LB_LOG_WARN "lboot: fault injection: PID 1 %s\n",
	    fault_pid1 == 2 ? "exits" : "stops (nothing feeds the watchdog now)");
	if (fault_pid1 == 2)
		_exit(1);
	for (;;)
		pause();
}

int lb_supervise_once(const struct lb_boot_opts *o,
		      int (*run)(const struct lb_boot_opts *o),
		      struct lb_child_end *end)
{
	struct lb_progress *p = lb_progress_new();
	struct lb_watch w;
	sigset_t chld, old;
	pid_t pid;
	int r = 0;

	memset(end, 0, sizeof(*end));
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* SIGCHLD stays pending (blocked) so sigtimedwait can sleep on it */
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		signal(SIGINT, SIG_DFL);
		lb_progress_attach(p);
		run(o);
		_exit(1);
	}
	lb_watch_init(&w, lb_progress_now_ms());
	for (long started = lb_progress_now_ms();;) {
		struct timespec ts;
		long wait = -1, now = lb_progress_now_ms();
		pid_t x;
		int st;

		lb_watchdog_feed(now);
		if (fault_pid1 && getpid() == 1 && now - started > 2000)
			fault_pid1_now();

		/* reap every child (PID 1 inherits orphans), note ours */
		while ((x = waitpid(-1, &st, WNOHANG)) > 0)
			if (x == pid) {
				end->status = st;
				goto out;
			}
		if (x < 0 && errno == ECHILD) {
			end->status = 0;
			goto out;
		}
		if (p && lb_watch_check(&w, p, lb_progress_now_ms(), &wait)) {
			long t0 = lb_progress_now_ms();

			end->hung = 1;
			end->phase = w.phase;
			end->secs = (int)((t0 - w.since_ms + 500) / 1000);
			end->interactive = w.interactive;
			memcpy(end->dev, w.dev, sizeof(end->dev));
			end->dev[sizeof(end->dev) - 1] = 0;
			kill(pid, SIGKILL);
			/* a process in uninterruptible sleep dies only when the
			 * kernel lets it: wait a little, then go on without it */
			end->stuck = 1;
			while (lb_progress_now_ms() - t0 < 2000) {
				while ((x = waitpid(-1, &st, WNOHANG)) > 0)
					if (x == pid)
						end->stuck = 0;
				if (!end->stuck)
					break;
				ts = (struct timespec){ 0, 100 * 1000000L };
				sigtimedwait(&chld, NULL, &ts);
			}
			goto out;
		}
		if (wait < 0 || wait > 250)
			wait = 250; /* a new stamp is seen within 250 ms */
		ts.tv_sec = wait / 1000;
		ts.tv_nsec = (wait % 1000) * 1000000L;
		sigtimedwait(&chld, NULL, &ts);
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	lb_progress_free(p);
	return r;
}

void lb_init_main(void)
{
	struct lb_boot_opts o;
	struct termios tios;
	int crashes = 0, hangs = 0, tty;

	setup();
	out_log = lb_log_open(1, NULL); /* /dev is there now */
	tty = tcgetattr(0, &tios) == 0;
	lb_console_setup(stdout);
	{
		char up[32];
		say("\n" LB_LOG_NOTICE "lboot: lboot %s starting (uptime %s s)\n", LB_VERSION,
		    lb_uptime(up, sizeof(up)));
	}
	lb_boot_opts_init(&o);
	read_cmdline(&o);
	o.pid1 = 1;
	o.start_ms = lb_progress_now_ms();
	if (o.unattended.watchdog)
		lb_watchdog_arm(o.unattended.watchdog, outf());
	if (access("/sys/firmware/efi", F_OK)) {
		/* coreboot, or a kernel started without EFI: said once, here */
		static struct lb_cmos cmos;
		char why[256], cb[96] = "no boot log for the OS", st[400];
		uint64_t con = 0;
		size_t clen = 0;
		int r = lb_cmos_open(&cmos, lb_cb_read_mem, NULL, why, sizeof(why));

		if (!r && !lb_cmos_find(&cmos.lay, "lboot_oneshot") && !lb_cmos_find(&cmos.lay, "lboot_last") &&
		    !lb_cmos_find(&cmos.lay, LB_TIMEFLOOR_CMOS))
			r = lb_whyf(why, sizeof(why), -ENOENT, "coreboot's CMOS option table has no lboot_* options");
		if (!r) {
			lb_cmos_boot = &cmos;
			snprintf(st, sizeof(st), "the boot state is in coreboot's CMOS options (lboot_oneshot, "
				 "lboot_default, lboot_last, lboot_timefloor%s)",
				 lb_cmos_cks_ok(&cmos.lay, cmos.img) ? "" : "; their checksum is wrong: not used");
		} else {
			snprintf(st, sizeof(st), "no one-shot or saved default entry, and the clock's floor "
				 "is the build date (%s)", r == -ENODEV ? "not coreboot" : why);
		}
		if (!lb_cb_console_find(lb_cb_read_mem, NULL, &con, &clen, why, sizeof(why)))
			snprintf(cb, sizeof(cb), "coreboot: the boot log goes after its console in CBMEM "
				 "at 0x%llx", (unsigned long long)con);
		say(LB_LOG_WARN "lboot: no EFI firmware (/sys/firmware/efi absent): no EFI variables, so "
		    "no boot counting and no loader variables for the OS; %s; %s\n", st, cb);
	}
	if (o.debug)
		say(LB_LOG_DEBUG "lboot: timeout=%d wait=%d default=%s idle=%d giveup=%d\n", o.timeout,
		    o.wait, o.default_sel[0] ? o.default_sel : "-", o.unattended.idle,
		    o.unattended.giveup);
	if (!strcmp(o.fault_hang, "pid1") || !strcmp(o.fault_hang, "pid1-exit")) {
		fault_pid1 = o.fault_hang[4] ? 2 : 1;
		say(LB_LOG_WARN "lboot: fault injection: PID 1 will %s\n", fault_pid1 == 2 ? "exit" : "hang");
	} else if (lb_progress_configure(-1, o.fault_hang))
		say(LB_LOG_WARN "lboot: lboot.fault_hang=%s: no such phase\n", o.fault_hang);
	else if (o.fault_hang[0])
		say(LB_LOG_WARN "lboot: fault injection: the boot process will hang at %s\n",
		    o.fault_hang);
	if (o.phase_timeout[0])
		lb_progress_timeouts(o.phase_timeout); /* checked by the parser */
	signal(SIGINT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * The boot flow (parsers of untrusted configs included) runs in a
	 * child: if it ever crashes, PID 1 survives, reaps everything and
	 * starts it again at the recovery prompt. If one of its phases
	 * outlives its bound (progress.h), PID 1 kills it and starts a new
	 * one without the device that phase was working on.
	 */
	for (;;) {
		struct lb_child_end end;
		int st, r = lb_supervise_once(&o, lb_boot_run, &end);

		if (r < 0) {
			say(LB_LOG_ERR "lboot: fork: %s: running the menu in PID 1\n", strerror(-r));
			lb_boot_run(&o);
			sleep(1);
			continue;
		}
		if (tty) /* the child may have left echo off or raw mode on */
			tcsetattr(0, TCSANOW, &tios);
		lb_console_restore();
		if (end.hung) {
			say("\n" LB_LOG_ERR "lboot: %s%s%s: no progress for %d s: stopped the boot process\n",
			    lb_phase_name(end.phase), end.dev[0] ? " of " : "",
			    end.dev, end.secs);
			if (end.stuck)
				say(LB_LOG_WARN "lboot: it is stuck in the kernel: going on without waiting for it\n");
			if (end.dev[0] && ++hangs <= 16 && !lb_progress_skipped(end.dev) &&
			    !lb_progress_skip_add(end.dev)) {
				say(LB_LOG_WARN "lboot: going on without %s\n", end.dev);
				if (o.recovery || end.interactive) {
					o.recovery = 0; /* scan again, then the menu */
					o.interactive = 1;
				}
			} else {
				say("lboot: back to the recovery prompt\n");
				o.recovery = 1;
			}
			continue;
		}
		st = end.status;
		if (WIFSIGNALED(st))
			say("\n" LB_LOG_ERR "lboot: boot menu died (signal %d): back to the recovery prompt\n",
			    WTERMSIG(st));
		else
			say("\n" LB_LOG_ERR "lboot: boot menu exited (status %d): back to the recovery prompt\n",
			    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		o.recovery = 1;
		if (++crashes > 3) {
			struct timespec ts = { 1, 0 };
			nanosleep(&ts, NULL);
		}
	}
}
