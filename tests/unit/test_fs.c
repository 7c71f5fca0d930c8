#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "entry.h"
#include "fs.h"
#include "t.h"

int main(void)
{
	char tmpl[] = "/tmp/lboot-fs-XXXXXX";
	char *d = mkdtemp(tmpl), path[4200];

	snprintf(path, sizeof(path), "%s/a", d);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/a/f.txt", d);
	FILE *f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a/esc", d);
	symlink("/etc/passwd", path);
	snprintf(path, sizeof(path), "%s/a/up", d);
	symlink("../../../../../etc/hostname", path);

	struct lb_fs fs;
	TEST("fs spec parse") {
		char spec[4200];
		snprintf(spec, sizeof(spec), "%s@uuid=ABCD-1234,label=ESP", d);
		CHECK_INT(lb_fs_parse_spec(spec, &fs), 0);
		CHECK_STR(fs.dir, d);
		CHECK_STR(fs.uuid, "ABCD-1234");
		CHECK_STR(fs.label, "ESP");
		CHECK_STR(lb_fs_ident(&fs), "ABCD-1234");
	}
	TEST("fs spec grub name keeps its comma") {
		struct lb_fs g;
		CHECK_INT(lb_fs_parse_spec("/x@grub=hd0,gpt2,label=ROOT", &g), 0);
		CHECK_STR(g.grub, "hd0,gpt2");
		CHECK_STR(g.label, "ROOT");
		lb_fs_free(&g);
		CHECK_INT(lb_fs_parse_spec("/x@label=a,b", &g), 0);
		CHECK_STR(g.label, "a,b");
		lb_fs_free(&g);
	}
	TEST("fs spec rejects unknown key") {
		struct lb_fs g;
		CHECK_INT(lb_fs_parse_spec("/x@bogus=1", &g), -EINVAL);
	}
	TEST("fs read inside root") {
		char *buf; size_t len;
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 100, &buf, &len), 0);
		CHECK_INT(len, 6);
		CHECK_STR(buf, "hello\n");
		free(buf);
		CHECK_INT(lb_fs_read(&fs, "a/../a/./f.txt", 100, &buf, &len), 0);
		free(buf);
		CHECK_INT(lb_fs_read(&fs, "/../../a/f.txt", 100, &buf, &len), 0);
		free(buf);
	}
	TEST("fs read caps size") {
		char *buf; size_t len;
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 3, &buf, &len), -EFBIG);
	}
	TEST("fs symlinks stay inside root") {
		char *buf; size_t len;
		CHECK(lb_fs_read(&fs, "/a/esc", 100000, &buf, &len) < 0);
		CHECK(lb_fs_read(&fs, "/a/up", 100000, &buf, &len) < 0);
	}
	TEST("fs list sorted") {
		char **names; size_t n;
		CHECK_INT(lb_fs_list(&fs, "/a", &names, &n), 0);
		CHECK_INT(n, 3);
		CHECK_STR(names[0], "esc");
		CHECK_STR(names[1], "f.txt");
		lb_fs_list_free(names, n);
	}
	TEST("entries default and remove") {
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_entry *e = lb_entries_add(&l);
		lb_setstr(&e->title, "one");
		e = lb_entries_add(&l);
		lb_setstr(&e->title, "two");
		lb_entry_add_initrd(e, "/a");
		lb_entries_set_default(&l, 1);
		CHECK_INT(lb_entries_default(&l), 1);
		lb_entries_remove(&l, 0);
		CHECK_INT(l.n, 1);
		CHECK_STR(l.v[0].title, "two");
		CHECK_INT(lb_entries_default(&l), 0);
		lb_entries_free(&l);
	}
	lb_fs_free(&fs);
	snprintf(path, sizeof(path), "rm -rf %s", d);
	system(path);
	return t_done();
}
