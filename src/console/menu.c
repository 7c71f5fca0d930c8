/* Console boot menu over termios raw mode (serial friendly). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "keys.h"
#include "kexec.h"
#include "menu.h"

#define KEY_TIMEOUT -1
#define KEY_EOF -2
#define LINE_MAX_ LB_KEXEC_MAX_CMDLINE

struct term {
	int fd, saved_ok;
	struct termios saved;
};

static void out(const struct lb_menu *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void out(const struct lb_menu *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(m->out, fmt, ap);
	va_end(ap);
}

static void apply_raw(struct term *t)
{
	struct termios r = t->saved;

	r.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | ISIG | IEXTEN);
	r.c_iflag &= ~(tcflag_t)(ICRNL | INLCR | IGNCR | IXON | ISTRIP | BRKINT | PARMRK);
	r.c_iflag |= IGNBRK; /* a BREAK is not a key (nor a SIGINT) */
	r.c_oflag |= OPOST | ONLCR;
	r.c_cc[VMIN] = 1;
	r.c_cc[VTIME] = 0;
	tcsetattr(t->fd, TCSANOW, &r);
}

static void term_raw(struct term *t, int fd)
{
	t->fd = fd;
	t->saved_ok = 0;
	if (tcgetattr(fd, &t->saved) < 0)
		return; /* not a terminal: read bytes as they come */
	t->saved_ok = 1;
	apply_raw(t);
}

static void term_restore(struct term *t)
{
	if (t->saved_ok)
		tcsetattr(t->fd, TCSANOW, &t->saved);
}

/* a usable line discipline for a shell, whatever the boot flow had set */
static void term_sane(struct term *t)
{
	struct termios c;

	if (!t->saved_ok)
		return;
	c = t->saved;
	c.c_lflag |= ICANON | ECHO | ECHOE | ECHOK | ISIG | IEXTEN;
	c.c_iflag |= ICRNL;
	c.c_oflag |= OPOST | ONLCR;
	tcsetattr(t->fd, TCSANOW, &c);
}

/* Console input through the key decoder (src/console/keys.h): noise is
 * counted and skipped; the keys that move the selection come as KEY_UP ...
 * KEY_PGDN, other escape sequences as one KEY_OTHER. */
#define KEY_OTHER 0x100 /* Escape, Alt-x, Left/Right, function keys */
#define KEY_NAV 0x200   /* + enum lb_keysym: Up Down Home End PgUp PgDn */
#define KEY_GAP_MS 100  /* no byte for this long ends a sequence */

/* one console: its own decoder (a half sequence on one does not mix with
 * bytes of another) and its own terminal state */
struct cons {
	int fd, dead;
	struct lb_keydec d;
	long last_ms;       /* when its last byte came */
	struct term t;
};

struct reader {
	size_t n;
	struct cons c[LB_CONS_MAX];
	size_t from;        /* the console of the last key */
	int multi;          /* reading the consoles of console.h, not fd 0 */
	unsigned noise;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void reader_init(struct reader *r, const struct lb_menu *m)
{
	memset(r, 0, sizeof(*r));
	if (m->ins && m->n_ins) {
		r->multi = 1;
		r->n = m->n_ins < LB_CONS_MAX ? m->n_ins : LB_CONS_MAX;
		for (size_t i = 0; i < r->n; i++)
			r->c[i].fd = m->ins[i];
	} else {
		r->n = 1;
		r->c[0].fd = m->in;
	}
	for (size_t i = 0; i < r->n; i++) {
		lb_key_init(&r->c[i].d);
		term_raw(&r->c[i].t, r->c[i].fd);
	}
}

static void reader_restore(struct reader *r)
{
	for (size_t i = 0; i < r->n; i++)
		term_restore(&r->c[i].t);
}

/* an event as the menu sees it, or -3 for noise */
static int key_code(struct reader *r, const struct lb_key *k)
{
	switch (k->kind) {
	case LB_KEY_CHAR:
		return k->code;
	case LB_KEY_ENTER:
		return '\r';
	case LB_KEY_SPECIAL:
		switch (k->code) {
		case LB_KS_UP: case LB_KS_DOWN: case LB_KS_HOME: case LB_KS_END:
		case LB_KS_PGUP: case LB_KS_PGDN:
			return KEY_NAV + k->code;
		}
		return KEY_OTHER;
	case LB_KEY_ESC:
	case LB_KEY_ALT:
		return KEY_OTHER;
	default:
		r->noise += (unsigned)k->n;
		return -3;
	}
}

/* The next key from any console, KEY_TIMEOUT once deadline_ms
 * (CLOCK_MONOTONIC ms; < 0: none) has passed, or KEY_EOF when every
 * console is closed. */
static int nextkey(struct reader *r, long deadline_ms)
{
	struct pollfd p[LB_CONS_MAX];
	struct lb_key k;
	unsigned char c;

	for (;;) {
		long now = now_ms(), wait = deadline_ms < 0 ? -1 : deadline_ms - now;
		int busy = 0, live = 0, v;

		if (wait < 0 && deadline_ms >= 0)
			wait = 0;
		/* a console quiet for the gap in the middle of a sequence: a
		 * lone Escape, or a cut sequence (noise) */
		for (size_t i = 0; i < r->n; i++) {
			struct cons *cn = &r->c[i];
			if (cn->dead || !lb_key_busy(&cn->d))
				continue;
			long g = cn->last_ms + KEY_GAP_MS - now;
			if (g <= 0) {
				if (lb_key_flush(&cn->d, &k) && (v = key_code(r, &k)) != -3) {
					r->from = i;
					return v;
				}
				continue;
			}
			busy = 1;
			if (wait < 0 || wait > g)
				wait = g;
		}
		if (!wait && !busy)
			return KEY_TIMEOUT;
		for (size_t i = 0; i < r->n; i++) {
			p[i] = (struct pollfd){ .fd = r->c[i].dead ? -1 : r->c[i].fd,
						.events = POLLIN };
			live += !r->c[i].dead;
		}
		if (!live)
			return KEY_EOF;
		int n = poll(p, (nfds_t)r->n, (int)wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return KEY_EOF;
		}
		for (size_t i = 0; n > 0 && i < r->n; i++) {
			struct cons *cn = &r->c[i];
			if (cn->dead || !p[i].revents)
				continue;
			ssize_t got = read(cn->fd, &c, 1);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				cn->dead = 1; /* closed: the others still count */
				continue;
			}
			now = now_ms();
			if (cn->last_ms && now - cn->last_ms > KEY_GAP_MS &&
			    lb_key_flush(&cn->d, &k))
				key_code(r, &k); /* a sequence cut by a pause: its noise counted */
			cn->last_ms = now;
			if (lb_key_feed(&cn->d, c, &k) && (v = key_code(r, &k)) != -3) {
				r->from = i;
				return v;
			}
		}
	}
}

size_t lb_menu_nav(size_t cur, size_t k, int keysym)
{
	if (!k)
		return 0;
	if (cur >= k)
		cur = k - 1;
	switch (keysym) {
	case LB_KS_UP:
		return cur ? cur - 1 : 0;
	case LB_KS_DOWN:
		return cur + 1 < k ? cur + 1 : k - 1;
	case LB_KS_HOME:
		return 0;
	case LB_KS_END:
		return k - 1;
	case LB_KS_PGUP:
		return cur > LB_MENU_PAGE ? cur - LB_MENU_PAGE : 0;
	case LB_KS_PGDN:
		return k - 1 - cur > LB_MENU_PAGE ? cur + LB_MENU_PAGE : k - 1;
	}
	return cur;
}

/* Read a line with echo, backspace, ^U (clear) and ^C (cancel: -ECANCELED);
 * -ETIMEDOUT after m->idle seconds without a key (when set). `first` is an
 * already typed key or -1. */
static int read_line(const struct lb_menu *m, struct reader *rd, char *buf,
		     size_t sz, int first)
{
	size_t n = 0;

	buf[0] = 0;
	for (;;) {
		int c = first >= 0 ? first :
			nextkey(rd, m->idle > 0 ? now_ms() + m->idle * 1000L : -1);

		first = -1;
		if (c == KEY_EOF)
			return -EPIPE;
		if (c == KEY_TIMEOUT)
			return -ETIMEDOUT;
		if (c == '\r' || c == '\n') {
			out(m, "\n");
			buf[n] = 0;
			return 0;
		}
		if (c == 3) {
			out(m, "^C\n");
			return -ECANCELED;
		}
		if (c == 0x7f || c == 8) {
			if (n) {
				n--;
				out(m, "\b \b");
			}
			continue;
		}
		if (c == 0x15) {
			while (n) {
				n--;
				out(m, "\b \b");
			}
			continue;
		}
		if (c < 0x20 || c > 0x7e || n + 1 >= sz)
			continue;
		buf[n++] = (char)c;
		out(m, "%c", c);
	}
}

static long default_index(const struct lb_entries *l)
{
	long d = lb_entries_default(l);

	if (d < 0 && l->n)
		d = 0;
	return d;
}

/* visible entries in list order; the default is shown even when hidden */
static size_t visible(const struct lb_entries *l, size_t *vis, size_t cap)
{
	long d = default_index(l);
	size_t k = 0;

	for (size_t i = 0; i < l->n && k < cap; i++)
		if (!l->v[i].hidden || (long)i == d)
			vis[k++] = i;
	return k;
}

/* How deep in submenus an entry sits: GRUB ids are "sub>entry" paths
 * (">>" is a literal '>'), so nested entries are indented under their
 * submenu's siblings instead of all looking top-level. */
static int depth(const struct lb_entry *e)
{
	int d = 0;

	for (const char *p = e->id; p && *p; p++) {
		if (p[0] == '>' && p[1] == '>') {
			p++;
			continue;
		}
		if (*p == '>')
			d++;
	}
	return d > 3 ? 3 : d;
}

static void show(const struct lb_menu *m, const struct lb_entries *l,
		 const struct lb_fsset *set, const size_t *vis, size_t k,
		 int shell)
{
	long d = default_index(l);

	out(m, "\nlboot: boot menu\n");
	if (!k)
		out(m, "  (no bootable entries)\n");
	for (size_t i = 0; i < k; i++) {
		const struct lb_entry *e = &l->v[vis[i]];
		out(m, " %c%2zu) %*s%s (%s)%s\n", (long)vis[i] == d ? '*' : ' ', i + 1,
		    2 * depth(e), "", e->title ? e->title : e->kernel ? e->kernel : "?",
		    lb_entry_device(set, e), (long)vis[i] == d ? " [default]" : "");
		if (vis[i] < m->n_refused && m->refused && m->refused[vis[i]])
			out(m, "      refused: %s\n", m->refused[vis[i]]);
	}
	if (k)
		out(m, "  Enter: boot default, N Enter: boot entry N, e: edit command line,\n");
	out(m, "  %s%s%sr: rescan, b: reboot, p: power off\n", shell ? "s: shell, " : "",
	    m->update ? "u: update firmware, " : "", m->reseal ? "t: reseal TOTP, " : "");
}

static int have_shell(const struct lb_menu *m)
{
	return m->shell && access(m->shell, X_OK) == 0;
}

/* on the console the 's' came from (the others see that it runs there) */
static void run_shell(const struct lb_menu *m, struct reader *rd)
{
	struct term *t = &rd->c[rd->from].t;
	char dev[48] = "";
	pid_t pid;

	if (rd->multi)
		snprintf(dev, sizeof(dev), "/dev/%s", lb_console_name(rd->from));
	term_sane(t);
	out(m, "\nlboot: starting %s%s%s (exit to return to the menu)\n", m->shell,
	    dev[0] ? " on " : "", dev);
	pid = fork();
	if (pid < 0) {
		out(m, "lboot: cannot start %s: %s\n", m->shell, strerror(errno));
	} else if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTSTP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		setsid();
		if (dev[0]) {
			/* a blocking descriptor of its own (the menu's is O_NONBLOCK) */
			int fd = open(dev, O_RDWR);
			if (fd < 0) {
				dprintf(2, "lboot: cannot open %s: %s\n", dev, strerror(errno));
				_exit(127);
			}
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		ioctl(0, TIOCSCTTY, 1);
		execl(m->shell, "sh", (char *)NULL);
		dprintf(2, "lboot: cannot run %s: %s\n", m->shell, strerror(errno));
		_exit(127);
	} else {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		out(m, "lboot: shell exited, back to the menu\n");
	}
	if (t->saved_ok)
		apply_raw(t);
}

/* Edit the command line of entry idx; fills res. 0, or
 * -ECANCELED/-EPIPE/-ETIMEDOUT. */
static int edit(const struct lb_menu *m, struct reader *rd,
		const struct lb_entries *l, size_t idx, struct lb_menu_result *res)
{
	const struct lb_entry *e = &l->v[idx];
	char *line = malloc(LINE_MAX_);
	int r;

	if (!line)
		return -ENOMEM;
	out(m, "\nlboot: edit the command line of '%s' for this boot\n",
	    e->title ? e->title : "?");
	out(m, "current: %s\n",
	    e->type == LB_ENTRY_UKI && !e->cmdline ? "(the UKI's built-in .cmdline)" :
	    e->cmdline ? e->cmdline : "");
	out(m, "new (empty keeps it, ^C cancels)> ");
	r = read_line(m, rd, line, LINE_MAX_, -1);
	if (r) {
		free(line);
		return r;
	}
	res->action = LB_MENU_BOOT;
	res->index = idx;
	res->cmdline = NULL;
	if (line[0])
		res->cmdline = line;
	else
		free(line);
	return 0;
}

/*
 * 'u': pick an update file, check it, show the result, write it only after
 * 'y'. 1: written (restart), 0: back to the prompt, or -EPIPE / -ETIMEDOUT
 * from reading the answer.
 */
/* After a dialog (u, t): nobody typed for lboot.idle (the default entry
 * boots) or the console closed: 1 and res says so; else 0 (back to the
 * menu). d is the default entry. */
static int dialog_ended(const struct lb_menu *m, int r, long d, struct lb_menu_result *res)
{
	if (r == -ETIMEDOUT) {
		out(m, "\nlboot: no input for %d s (lboot.idle)\n", m->idle);
		res->action = LB_MENU_AUTO;
		res->index = d >= 0 ? (size_t)d : 0;
		res->idle = 1;
		return 1;
	}
	if (r == -EPIPE) {
		res->action = LB_MENU_EOF;
		return 1;
	}
	return 0;
}

static int update_dialog(const struct lb_menu *m, struct reader *rd)
{
	const struct lb_menu_update *u = m->update;
	char (*names)[LB_MENU_UPD_NAME] = calloc(LB_MENU_UPD_MAX, sizeof(*names));
	char *line = malloc(1024), ans[16];
	size_t n, i = 0;
	int r;

	if (!names || !line) {
		free(names);
		free(line);
		return -ENOMEM;
	}
	out(m, "\nlboot: update the firmware from a file\n");
	n = u->find(u->arg, names, LB_MENU_UPD_MAX);
	if (!n) {
		out(m, "lboot: no update file found%s%s%s\n", u->looked ? " (" : "",
		    u->looked ? u->looked : "", u->looked ? ")" : "");
		r = 0;
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		out(m, "  %zu) %s\n", k + 1, names[k]);
	if (n > 1) {
		char *end;
		long v;

		out(m, "file (1-%zu, Enter: 1, ^C cancels)> ", n);
		if ((r = read_line(m, rd, ans, sizeof(ans), -1)))
			goto out;
		v = ans[0] ? strtol(ans, &end, 10) : 1;
		if (ans[0] && (*end || v < 1 || (size_t)v > n)) {
			out(m, "lboot: no such file\n");
			r = 0;
			goto out;
		}
		i = (size_t)v - 1;
	}
	out(m, "lboot: checking %s\n", names[i]);
	line[0] = 0;
	r = u->run(u->arg, i, 0, line, 1024);
	out(m, "lboot: update %s: %s\n", names[i], line);
	if (r) {                 /* refused, or nothing to do */
		r = 0;
		goto out;
	}
	out(m, "write it to the flash and restart? (y/N)> ");
	if ((r = read_line(m, rd, ans, sizeof(ans), -1)))
		goto out;
	if (strcmp(ans, "y") && strcmp(ans, "Y") && strcmp(ans, "yes")) {
		out(m, "lboot: not written\n");
		r = 0;
		goto out;
	}
	line[0] = 0;
	r = u->run(u->arg, i, 1, line, 1024);
	out(m, "lboot: update %s: %s\n", names[i], line);
	r = r == 0;
out:
	free(names);
	free(line);
	return r;
}

/*
 * 't': say what resealing the TOTP trusts, reseal only after 'y'.
 * 0: back to the prompt, or -EPIPE / -ETIMEDOUT from reading the answer.
 */
static int reseal_dialog(const struct lb_menu *m, struct reader *rd)
{
	const struct lb_menu_reseal *t = m->reseal;
	char ans[16], *text;
	size_t n;
	int r;

	out(m, "\nlboot: reseal the TOTP to the measurements of this boot (%s)\n",
	    t->what ? t->what : "?");
	out(m, "lboot: this trusts the firmware running now: reseal only after an update you made "
	       "yourself; a new secret replaces the old one and the authenticator app needs the "
	       "new QR code\n");
	out(m, "reseal the TOTP? (y/N)> ");
	if ((r = read_line(m, rd, ans, sizeof(ans), -1))) {
		if (r != -ECANCELED)
			return r;
		ans[0] = 0;    /* ^C: no */
	}
	if (strcmp(ans, "y") && strcmp(ans, "Y") && strcmp(ans, "yes")) {
		out(m, "lboot: TOTP not resealed (the sealed secret is unchanged)\n");
		return 0;
	}
	if (!(text = malloc(LB_MENU_RESEAL_TEXT)))
		return -ENOMEM;
	text[0] = 0;
	r = t->run(t->arg, text, LB_MENU_RESEAL_TEXT);
	text[LB_MENU_RESEAL_TEXT - 1] = 0;
	n = strlen(text);
	out(m, "%s%s", text, n && text[n - 1] == '\n' ? "" : "\n");
	explicit_bzero(text, LB_MENU_RESEAL_TEXT);   /* it held the new secret */
	free(text);
	(void)r;
	return 0;
}

int lb_menu_run(const struct lb_menu *m, const struct lb_entries *l,
		const struct lb_fsset *set, int timeout,
		struct lb_menu_result *res)
{
	size_t cap = l->n ? l->n : 1, k;
	size_t *vis = malloc(cap * sizeof(*vis));
	long d = default_index(l);
	int shell = have_shell(m) && !m->no_shell, pending = -1, r = 0, typed = 0;
	char num[16];
	size_t nn = 0;
	struct reader rd;
	long last;
	size_t cur = 0;

	if (!vis)
		return -ENOMEM;
	memset(res, 0, sizeof(*res));
	k = visible(l, vis, cap);
	for (size_t i = 0; i < k; i++)
		if ((long)vis[i] == d)
			cur = i;
	reader_init(&rd, m);
	show(m, l, set, vis, k, shell);

	if (timeout > 0 && d >= 0) {
		const char *title = l->v[d].title ? l->v[d].title : "?";
		long end = now_ms() + timeout * 1000L;
		int shown = -1;

		for (;;) {
			long left = end - now_ms();
			int s;

			if (left <= 0) {
				pending = KEY_TIMEOUT;
				break;
			}
			s = (int)((left + 999) / 1000);
			if (s != shown)
				out(m, "\rlboot: booting '%s' in %d s, press any key to stop ", title, s);
			shown = s;
			/* to the next whole second, whatever noise comes meanwhile */
			pending = nextkey(&rd, end - (s - 1) * 1000L);
			if (pending != KEY_TIMEOUT)
				break;
		}
		out(m, "\n");
		if (rd.noise)
			out(m, "lboot: %u byte%s on the console ignored: not keys\n", rd.noise,
			    rd.noise == 1 ? "" : "s");
		if (pending >= 0)
			res->last_key_ms = now_ms();
		/* no input can come (closed): as good as a countdown expiring;
		 * Enter boots the default now (CR LF counts once, keys.h) */
		if (pending == KEY_TIMEOUT || pending == KEY_EOF || pending == '\r') {
			res->action = LB_MENU_AUTO;
			res->index = (size_t)d;
			goto done;
		}
		/* the key that stopped the countdown is used as input */
		typed = 1;
		if (pending == KEY_OTHER)
			pending = -1;
		/* an arrow that stopped it moves the selection below */
	}

	out(m, "lboot> ");
	last = now_ms();
	for (;;) {
		int bound = !typed && m->first_wait > 0 ? m->first_wait : m->idle;
		int c = pending >= 0 ? pending :
			nextkey(&rd, bound > 0 ? last + bound * 1000L : -1);

		pending = -1;
		if (c == KEY_EOF) {
			res->action = LB_MENU_EOF;
			break;
		}
		if (c == KEY_TIMEOUT) {
			if (typed)
				out(m, "\nlboot: no input for %d s (lboot.idle)\n", bound);
			else
				out(m, "\n");
			res->action = LB_MENU_AUTO;
			res->index = d >= 0 ? (size_t)d : 0;
			res->idle = 1;
			break;
		}
		typed = 1;
		last = res->last_key_ms = now_ms();
		if (c > KEY_NAV && k) {
			/* Up/Down/Home/End/PgUp/PgDn: from the typed number or
			 * the selection; the number is typed in for Enter / 'e' */
			if (nn) {
				num[nn] = 0;
				long v = strtol(num, NULL, 10);
				if (v >= 1 && (size_t)v <= k)
					cur = (size_t)v - 1;
			}
			cur = lb_menu_nav(cur, k, c - KEY_NAV);
			nn = (size_t)snprintf(num, sizeof(num), "%zu", cur + 1);
			const struct lb_entry *e = &l->v[vis[cur]];
			out(m, "\r\033[Klboot: selected %zu) %s\nlboot> %s", cur + 1,
			    e->title ? e->title : e->kernel ? e->kernel : "?", num);
			continue;
		}
		if (c >= '0' && c <= '9') {
			if (nn + 1 < sizeof(num)) {
				num[nn++] = (char)c;
				out(m, "%c", c);
			}
			continue;
		}
		if (c == 0x7f || c == 8) {
			if (nn) {
				nn--;
				out(m, "\b \b");
			}
			continue;
		}
		if (c == 3 || c == 0x15) {
			nn = 0;
			out(m, "\nlboot> ");
			continue;
		}
		if (c == '\r' || c == '\n' || c == 'e') {
			long sel = d;

			if (nn) {
				num[nn] = 0;
				long v = strtol(num, NULL, 10);
				nn = 0;
				sel = (v >= 1 && (size_t)v <= k) ? (long)vis[v - 1] : -2;
			}
			if (sel == -2 || sel < 0) {
				out(m, "\nlboot: %s\nlboot> ", sel == -2 ? "no such entry" : "no entries to boot");
				continue;
			}
			if (c == 'e' && m->no_edit) {
				out(m, "\nlboot: editing refused: %s\nlboot> ", m->no_edit);
				continue;
			}
			if (c == 'e') {
				r = edit(m, &rd, l, (size_t)sel, res);
				if (r != -ETIMEDOUT)
					res->last_key_ms = now_ms();
				if (r == -ETIMEDOUT) {
					out(m, "\nlboot: no input for %d s (lboot.idle)\n", m->idle);
					res->action = LB_MENU_AUTO;
					res->index = (size_t)d;
					res->idle = 1;
					r = 0;
					break;
				}
				if (r == -ECANCELED || r == -EPIPE) {
					if (r == -EPIPE) {
						res->action = LB_MENU_EOF;
						r = 0;
						break;
					}
					r = 0;
					out(m, "lboot> ");
					continue;
				}
				break;
			}
			out(m, "\n");
			res->action = LB_MENU_BOOT;
			res->index = (size_t)sel;
			break;
		}
		nn = 0;
		switch (c) {
		case 's':
			if (m->no_shell)
				out(m, "\nlboot: shell refused: %s\n", m->no_shell);
			/* else: have_shell() was false */
			else if (shell) {
				run_shell(m, &rd);
				last = now_ms();
			}
			else
				out(m, "\nlboot: no shell in this image\n");
			show(m, l, set, vis, k, shell);
			out(m, "lboot> ");
			continue;
		case 'u':
			if (!m->update)
				continue;
			out(m, "u");
			r = update_dialog(m, &rd);
			last = now_ms();
			if (r == 1) {
				r = 0;
				res->action = LB_MENU_REBOOT;
				goto done;
			}
			if (dialog_ended(m, r, d, res)) {
				r = 0;
				goto done;
			}
			r = 0;    /* ^C, -ENOMEM: back to the menu */
			show(m, l, set, vis, k, shell);
			out(m, "lboot> ");
			continue;
		case 't':
			if (!m->reseal)
				continue;
			out(m, "t");
			r = reseal_dialog(m, &rd);
			last = now_ms();
			if (dialog_ended(m, r, d, res)) {
				r = 0;
				goto done;
			}
			r = 0;    /* -ENOMEM: back to the menu */
			show(m, l, set, vis, k, shell);
			out(m, "lboot> ");
			continue;
		case 'r':
			out(m, "r\nlboot: rescanning devices\n");
			res->action = LB_MENU_RESCAN;
			goto done;
		case 'b':
			out(m, "b\nlboot: rebooting\n");
			res->action = LB_MENU_REBOOT;
			goto done;
		case 'p':
			out(m, "p\nlboot: powering off\n");
			res->action = LB_MENU_POWEROFF;
			goto done;
		case '?':
		case 'h':
			show(m, l, set, vis, k, shell);
			out(m, "lboot> ");
			continue;
		default:
			continue;
		}
	}
done:
	res->noise = rd.noise;
	reader_restore(&rd);
	free(vis);
	return r;
}
