#!/bin/bash
# lboot fetch against real servers on 127.0.0.1, in a private network
# namespace (unshare -n: port 69 is ours, nothing else sees the servers):
#   - atftpd 0.8 (RFC 7440 windowsize) and dnsmasq's TFTP server
#   - nginx (Debian's nginx-light, config in the temp dir; its echo module
#     for a chunked body)
#   - busybox nc for faults nginx will not produce (closing early, more
#     bytes than Content-Length, an endless chunk)
# A 40 MB file over TFTP with 512-byte blocks (block numbers roll over past
# 65535) and with blksize 1468 + windowsize 16, a chunked answer, a 404, a
# redirect loop, a server gone mid-file: output written atomically or not
# at all. Prints ok/not ok/skip lines.
cd "$(dirname "$0")/../.." || exit 1
LBOOT=$PWD/out/lboot

. tests/host/netns-lib.sh
netns_enter fetch "$@"

for b in atftpd dnsmasq nginx busybox cmp; do
	command -v $b >/dev/null 2>&1 || { echo "skip host/fetch: $b not installed (scripts/deps.sh)"; exit 0; }
done

netns_setup fetch


mkdir -p "$T/root/dir" "$T/dnsroot" "$T/www/files" "$T/out" "$T/nginx"
chmod -R 755 "$T/root" "$T/dnsroot" "$T/www"
head -c 40000000 /dev/urandom > "$T/root/big.bin"
head -c 300000 /dev/urandom > "$T/root/dir/small.bin"
ln "$T/root/big.bin" "$T/dnsroot/big.bin"
cp "$T/root/dir/small.bin" "$T/www/files/small.bin"
head -c 5000000 /dev/urandom > "$T/www/files/5m.bin"
chmod 644 "$T"/root/big.bin "$T"/root/dir/small.bin "$T"/www/files/*

# --- servers ------------------------------------------------------------------
atftpd --daemon --no-fork --port 69 --bind-address 127.0.0.1 --user root.root \
	--logfile "$T/atftpd.log" "$T/root" &
pids+=($!)
dnsmasq --no-daemon --port=0 --enable-tftp --tftp-root="$T/dnsroot" \
	--listen-address=127.0.0.2 --bind-interfaces --user=root \
	--log-facility="$T/dnsmasq.log" 2>"$T/dnsmasq.err" &
dnsmasq_pid=$!
pids+=($!)
cat > "$T/nginx/nginx.conf" <<EOF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $T/nginx/access.log;
	client_body_temp_path $T/nginx; proxy_temp_path $T/nginx;
	fastcgi_temp_path $T/nginx; uwsgi_temp_path $T/nginx; scgi_temp_path $T/nginx;
	server {
		listen 127.0.0.1:8080;
		listen [::1]:8080;
		root $T/www;
		location = /loop { return 302 /loop; }
		location = /go { return 301 /files/small.bin; }
		location = /rel { return 302 files/5m.bin; }
		location = /chunked { echo_duplicate 200000 "0123456789"; }
	}
}
EOF
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.log" &
pids+=($!)
# faults: one answer per connection from a script
cat > "$T/serve.sh" <<'EOS'
#!/bin/sh
# read the request head, then answer with the file and close (FIN, not RST)
cr=$(printf '\r')
while IFS= read -r l; do case "$l" in "$cr"|"") break ;; esac; done
cat "$1"
EOS
chmod 755 "$T/serve.sh"
fault() { # port response-file
	# the listening nc dies with its loop (killed on exit: no server is
	# left behind in the dead namespace)
	(trap 'kill $nc 2>/dev/null; exit 0' TERM
	 while :; do
		busybox nc -l -p "$1" -e "$T/serve.sh" "$2" </dev/null >/dev/null 2>&1 &
		nc=$!
		wait $nc || break
	 done) &
	pids+=($!)
}
printf 'HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n' > "$T/early"
head -c 1000 /dev/urandom >> "$T/early"
printf 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789EXTRA' > "$T/extra"
{ printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n'; head -c 3000 /dev/zero; } > "$T/endless"
fault 8081 "$T/early"
fault 8082 "$T/extra"
fault 8083 "$T/endless"

for i in $(seq 50); do
	(exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && break
	sleep 0.1
done

out=$T/out
fetch() { # name expected-exit args...
	local name=$1 want=$2; shift 2
	"$LBOOT" fetch -q "$@" >"$T/$name.stdout" 2>"$T/$name.stderr"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		notok "fetch/$name" "exit $rc, expected $want: $(head -c 300 "$T/$name.stderr")"
		return 1
	fi
	return 0
}
no_leftovers() { # name
	if ls -A "$out" | grep -q '^\.'; then notok "fetch/$1/no-temp-left" "$(ls -A "$out")"; else ok "fetch/$1/no-temp-left"; fi
}

# --- TFTP ---------------------------------------------------------------------
t0=$(date +%s.%N)
if fetch tftp-512-rollover 0 --no-tftp-options --json tftp://127.0.0.2/big.bin -o "$out/big512"; then
	if cmp -s "$T/root/big.bin" "$out/big512"; then ok "fetch/tftp-512-rollover"; else notok "fetch/tftp-512-rollover" "content differs"; fi
	grep -q '"tftp_blksize": 512, "tftp_windowsize": 1' "$T/tftp-512-rollover.stdout" &&
		ok "fetch/tftp-512-rollover/plain-rfc1350" || notok "fetch/tftp-512-rollover/plain-rfc1350" "$(cat "$T/tftp-512-rollover.stdout")"
	echo "# dnsmasq TFTP 512-byte blocks, 40 MB: $(sed -n 's/.*"seconds": \([0-9.]*\).*"bytes_per_second": \([0-9]*\).*/\1 s, \2 B\/s/p' "$T/tftp-512-rollover.stdout")"
fi
if fetch tftp-window 0 --json --blksize 1468 --windowsize 16 tftp://127.0.0.1/big.bin -o "$out/bigwin"; then
	if cmp -s "$T/root/big.bin" "$out/bigwin"; then ok "fetch/tftp-window"; else notok "fetch/tftp-window" "content differs"; fi
	grep -q '"tftp_blksize": 1468, "tftp_windowsize": 16' "$T/tftp-window.stdout" &&
		ok "fetch/tftp-window/negotiated" || notok "fetch/tftp-window/negotiated" "$(cat "$T/tftp-window.stdout")"
	echo "# atftpd blksize 1468 windowsize 16, 40 MB: $(sed -n 's/.*"seconds": \([0-9.]*\).*"bytes_per_second": \([0-9]*\).*/\1 s, \2 B\/s/p' "$T/tftp-window.stdout")"
fi
if fetch tftp-512-atftpd 0 --json --no-tftp-options tftp://127.0.0.1/big.bin -o "$out/big512a"; then
	cmp -s "$T/root/big.bin" "$out/big512a" && ok "fetch/tftp-512-atftpd" || notok "fetch/tftp-512-atftpd" "content differs"
	echo "# atftpd 512-byte blocks, 40 MB: $(sed -n 's/.*"seconds": \([0-9.]*\).*"bytes_per_second": \([0-9]*\).*/\1 s, \2 B\/s/p' "$T/tftp-512-atftpd.stdout")"
fi
# dnsmasq knows blksize and tsize but not windowsize: it leaves windowsize
# out of its OACK, and the transfer goes on with one block per ACK
if fetch tftp-omitted-option 0 --json tftp://127.0.0.2/big.bin -o "$out/bigdm"; then
	cmp -s "$T/root/big.bin" "$out/bigdm" && grep -q '"tftp_blksize": 1468, "tftp_windowsize": 1' "$T/tftp-omitted-option.stdout" &&
		ok "fetch/tftp-omitted-option" || notok "fetch/tftp-omitted-option" "$(cat "$T/tftp-omitted-option.stdout")"
fi
if fetch tftp-subdir 0 tftp://127.0.0.1/dir/small.bin -o "$out/small"; then
	cmp -s "$T/root/dir/small.bin" "$out/small" && ok "fetch/tftp-subdir" || notok "fetch/tftp-subdir" "content differs"
fi
echo old > "$out/keep"
if fetch tftp-not-found 1 tftp://127.0.0.1/nope.bin -o "$out/keep"; then
	grep -qi "tftp://127.0.0.1/nope.bin: .*not found" "$T/tftp-not-found.stderr" &&
		[ "$(wc -l < "$T/tftp-not-found.stderr")" = 1 ] &&
		ok "fetch/tftp-not-found/message" || notok "fetch/tftp-not-found/message" "$(cat "$T/tftp-not-found.stderr")"
	[ "$(cat "$out/keep")" = old ] && ok "fetch/tftp-not-found/output-kept" || notok "fetch/tftp-not-found/output-kept"
fi
if fetch tftp-no-server 1 --timeout 3 tftp://127.0.0.3/x -o "$out/none"; then
	[ ! -e "$out/none" ] && ok "fetch/tftp-no-server" || notok "fetch/tftp-no-server" "output written"
	echo "# $(cat "$T/tftp-no-server.stderr")"
fi

# a TFTP server gone mid-file: stop dnsmasq after the transfer started
"$LBOOT" fetch -q --no-tftp-options tftp://127.0.0.2/big.bin -o "$out/gone" >"$T/gone.stdout" 2>"$T/gone.stderr" &
fp=$!
for i in $(seq 100); do
	sleep 0.1
	ls -A "$out" | grep -q '^\.gone' && [ "$(stat -c %s "$out"/.gone.* 2>/dev/null | head -1)" -gt 100000 ] 2>/dev/null && break
done
kill -STOP $dnsmasq_pid
wait $fp
rc=$?
kill -CONT $dnsmasq_pid
if [ $rc = 1 ] && [ ! -e "$out/gone" ] && grep -q "stopped sending" "$T/gone.stderr"; then
	ok "fetch/tftp-server-gone"
else
	notok "fetch/tftp-server-gone" "exit $rc: $(cat "$T/gone.stderr")"
fi
no_leftovers tftp

# --- HTTP ---------------------------------------------------------------------
if fetch http-5m 0 --json http://127.0.0.1:8080/files/5m.bin -o "$out/5m"; then
	cmp -s "$T/www/files/5m.bin" "$out/5m" && ok "fetch/http-5m" || notok "fetch/http-5m" "content differs"
	grep -q '"http_status": 200' "$T/http-5m.stdout" && ok "fetch/http-5m/json" || notok "fetch/http-5m/json" "$(cat "$T/http-5m.stdout")"
fi
# progress lines (stderr not a tty: one per line) for files over 1 MiB
if "$LBOOT" fetch http://127.0.0.1:8080/files/5m.bin -o "$out/5m-progress" 2>"$T/progress.stderr" &&
	grep -q '^[0-9.]* MiB of 4.8 MiB (100%), .*/s$' "$T/progress.stderr"; then
	ok "fetch/progress"
else
	notok "fetch/progress" "$(tail -3 "$T/progress.stderr")"
fi
if "$LBOOT" fetch tftp://127.0.0.1/dir/small.bin -o "$out/small-progress" 2>"$T/progress-small.stderr" &&
	[ ! -s "$T/progress-small.stderr" ]; then
	ok "fetch/progress-quiet-under-1MiB"
else
	notok "fetch/progress-quiet-under-1MiB" "$(cat "$T/progress-small.stderr")"
fi
if ip -6 addr show dev lo | grep -q '::1'; then
	if fetch http-ipv6 0 http://[::1]:8080/files/small.bin -o "$out/v6"; then
		cmp -s "$T/www/files/small.bin" "$out/v6" && ok "fetch/http-ipv6" || notok "fetch/http-ipv6" "content differs"
	fi
else
	echo "skip fetch/http-ipv6: no ::1 on lo"
fi
if fetch http-chunked 0 http://127.0.0.1:8080/chunked -o "$out/chunked"; then
	if [ "$(stat -c %s "$out/chunked")" = 2000000 ] && ! tr -d '0123456789' < "$out/chunked" | grep -q . ; then
		ok "fetch/http-chunked"
	else
		notok "fetch/http-chunked" "wrong body ($(stat -c %s "$out/chunked") bytes)"
	fi
	grep -qi 'transfer-encoding: chunked' <(printf 'GET /chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' | busybox nc 127.0.0.1 8080 | head -c 400) &&
		ok "fetch/http-chunked/server-chunks" || notok "fetch/http-chunked/server-chunks" "nginx did not send chunked"
fi
if fetch http-redirect 0 --json http://127.0.0.1:8080/go -o "$out/redir"; then
	cmp -s "$T/www/files/small.bin" "$out/redir" && grep -q '"redirects": 1' "$T/http-redirect.stdout" &&
		grep -q '"final_url": "http://127.0.0.1:8080/files/small.bin"' "$T/http-redirect.stdout" &&
		ok "fetch/http-redirect" || notok "fetch/http-redirect" "$(cat "$T/http-redirect.stdout")"
fi
if fetch http-redirect-relative 0 http://127.0.0.1:8080/rel -o "$out/rel"; then
	cmp -s "$T/www/files/5m.bin" "$out/rel" && ok "fetch/http-redirect-relative" || notok "fetch/http-redirect-relative" "content differs"
fi
echo old > "$out/keep"
if fetch http-404 1 http://127.0.0.1:8080/files/missing -o "$out/keep"; then
	grep -q "HTTP 404 Not Found" "$T/http-404.stderr" && [ "$(wc -l < "$T/http-404.stderr")" = 1 ] &&
		ok "fetch/http-404/message" || notok "fetch/http-404/message" "$(cat "$T/http-404.stderr")"
	[ "$(cat "$out/keep")" = old ] && ok "fetch/http-404/output-kept" || notok "fetch/http-404/output-kept"
fi
if fetch http-redirect-loop 1 http://127.0.0.1:8080/loop -o "$out/loop"; then
	grep -q "more than 8 redirects" "$T/http-redirect-loop.stderr" && [ ! -e "$out/loop" ] &&
		ok "fetch/http-redirect-loop" || notok "fetch/http-redirect-loop" "$(cat "$T/http-redirect-loop.stderr")"
fi
if fetch http-closed-early 1 --timeout 5 http://127.0.0.1:8081/x -o "$out/early"; then
	grep -q "closed after 1000 of 1000000 bytes" "$T/http-closed-early.stderr" && [ ! -e "$out/early" ] &&
		ok "fetch/http-closed-early" || notok "fetch/http-closed-early" "$(cat "$T/http-closed-early.stderr")"
fi
if fetch http-more-than-length 1 --timeout 5 http://127.0.0.1:8082/x -o "$out/extra"; then
	grep -q "more bytes than Content-Length" "$T/http-more-than-length.stderr" && [ ! -e "$out/extra" ] &&
		ok "fetch/http-more-than-length" || notok "fetch/http-more-than-length" "$(cat "$T/http-more-than-length.stderr")"
fi
if fetch http-endless-chunk 1 --timeout 5 --max-size 1000000 http://127.0.0.1:8083/x -o "$out/endless"; then
	grep -q "larger than allowed" "$T/http-endless-chunk.stderr" && [ ! -e "$out/endless" ] &&
		ok "fetch/http-endless-chunk" || notok "fetch/http-endless-chunk" "$(cat "$T/http-endless-chunk.stderr")"
fi
if fetch http-refused 1 http://127.0.0.1:9/x -o "$out/refused"; then
	grep -q "Connection refused" "$T/http-refused.stderr" && ok "fetch/http-refused" || notok "fetch/http-refused" "$(cat "$T/http-refused.stderr")"
fi
# https without trust anchors: refused, never unchecked (tests/host/https.sh has the rest)
if fetch https 1 https://127.0.0.1:8080/x -o "$out/tls"; then
	grep -q "^lboot fetch: https://127.0.0.1: no trust anchors for https" "$T/https.stderr" &&
		ok "fetch/https-without-anchors" || notok "fetch/https-without-anchors" "$(cat "$T/https.stderr")"
fi
if fetch usage 2 http://127.0.0.1:8080/x; then ok "fetch/usage"; fi
mkdir "$T/adir"
if fetch not-a-file 1 http://127.0.0.1:8080/files/small.bin -o "$T/adir"; then
	grep -q "exists and is not a regular file" "$T/not-a-file.stderr" && [ -d "$T/adir" ] &&
		ok "fetch/output-not-regular" || notok "fetch/output-not-regular" "$(cat "$T/not-a-file.stderr")"
fi
no_leftovers http
exit $fail
