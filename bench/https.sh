#!/bin/bash
# HTTPS figures for issue 13 / issue 9, printed side by side, never asserted:
#  1. throughput of a 40 MB file over loopback: lboot fetch (host build and
#     the static musl target) over HTTP and HTTPS (ECDHE-RSA with AES-128-GCM,
#     ECDHE-ECDSA with ChaCha20-Poly1305), curl (OpenSSL) as the peer, from
#     nginx in a private network namespace; best of RUNS;
#  2. what TLS adds to out/lboot-target: stripped bytes and xz -6 bytes, now
#     and at the commit before src/net/tls.c came (built from `git
#     archive` in a temp dir; BENCH_SIZE=0 skips it).
#   bench/https.sh [RUNS]      (needs `make out/lboot out/lboot-target`)
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
runs=${1:-3}

if [ -z "$LBOOT_BENCH_NETNS" ]; then
	if [ "${BENCH_SIZE:-1}" = 1 ]; then
		base=$(git log --format=%H --diff-filter=A -- src/net/tls.c | tail -1)
		if [ -n "$base" ] && [ -x out/lboot-target ]; then
			B=$(mktemp -d /tmp/lboot-bench-base.XXXXXX)
			git archive "$base^" | tar -x -C "$B"
			echo "# building out/lboot-target at ${base:0:12}^ (before TLS) in $B ..."
			if make -C "$B" -j2 out/lboot-target >"$B/build.log" 2>&1; then
				printf '%-34s %10s %10s\n' "lboot-target" "stripped" "xz -6"
				for f in "$B/out/lboot-target" out/lboot-target; do
					printf '%-34s %10d %10d\n' "$([ "$f" = out/lboot-target ] && echo "now" || echo "before TLS (${base:0:8}^)")" \
						"$(stat -c %s "$f")" "$(xz -6 -c "$f" | wc -c)"
				done
				a=$(stat -c %s out/lboot-target); b=$(stat -c %s "$B/out/lboot-target")
				ax=$(xz -6 -c out/lboot-target | wc -c); bx=$(xz -6 -c "$B/out/lboot-target" | wc -c)
				printf '%-34s %+10d %+10d\n' "added" $((a - b)) $((ax - bx))
			else
				echo "# baseline build failed: $B/build.log"
			fi
			rm -rf "$B"
		else
			echo "# sizes: no commit adding src/net/tls.c, or out/lboot-target not built"
		fi
		echo
	fi
	if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
		echo "# throughput: needs root and unshare -n"
		exit 0
	fi
	LBOOT_BENCH_NETNS=1 exec unshare -n bash "$0" "$@"
fi

ip link set lo up
for b in nginx openssl curl; do
	command -v $b >/dev/null || { echo "# throughput: $b not installed"; exit 0; }
done
T=$(mktemp -d /tmp/lboot-bench-https.XXXXXX)
chmod 755 "$T"
trap 'kill $(cat "$T/nginx.pid" 2>/dev/null) 2>/dev/null; sleep 0.2; rm -rf "$T"' EXIT
cd "$T"
openssl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.pem -days 2 -subj /CN=bench \
	-addext subjectAltName=IP:127.0.0.1 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key -out ec.pem -days 2 \
	-subj /CN=bench -addext subjectAltName=IP:127.0.0.1 2>/dev/null
mkdir -p www
head -c 40000000 /dev/urandom > www/40m.bin
chmod -R 755 www
cat > nginx.conf <<EOF
daemon on;
pid $T/nginx.pid;
error_log $T/error.log;
events { worker_connections 64; }
http {
	access_log off;
	sendfile on;
	client_body_temp_path $T; proxy_temp_path $T; fastcgi_temp_path $T;
	uwsgi_temp_path $T; scgi_temp_path $T;
	server { listen 127.0.0.1:8080; root $T/www; }
	server { listen 127.0.0.1:8443 ssl; root $T/www; ssl_certificate $T/rsa.pem;
		ssl_certificate_key $T/rsa.key; ssl_protocols TLSv1.2;
		ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256; }
	server { listen 127.0.0.1:8444 ssl; root $T/www; ssl_certificate $T/ec.pem;
		ssl_certificate_key $T/ec.key; ssl_protocols TLSv1.2;
		ssl_ciphers ECDHE-ECDSA-CHACHA20-POLY1305; }
}
EOF
nginx -p "$T" -c "$T/nginx.conf" || { echo "# nginx did not start"; exit 0; }
sleep 0.3

best_lboot() { # binary ca url
	local best=0 v
	for i in $(seq "$runs"); do
		v=$("$1" fetch -q --json --ca "$2" "$3" -o "$T/out" 2>/dev/null |
			sed -n 's/.*"bytes_per_second": \([0-9]*\).*/\1/p')
		[ -n "$v" ] && [ "$v" -gt "$best" ] && best=$v
	done
	echo "$best"
}
best_curl() { # ca url
	local best=0 v
	for i in $(seq "$runs"); do
		v=$(curl -s --cacert "$1" -o "$T/out" -w '%{speed_download}' "$2" | cut -d. -f1)
		[ -n "$v" ] && [ "$v" -gt "$best" ] && best=$v
	done
	echo "$best"
}
mbs() { awk -v b="$1" 'BEGIN { printf "%8.1f MB/s", b / 1e6 }'; }

printf '40 MB over loopback, best of %s    %-14s %-14s %-14s\n' "$runs" "lboot (glibc)" "lboot-target" "curl"
row() { # label url ca
	local h t c
	h=$(best_lboot "$ROOT/out/lboot" "$3" "$2")
	t=0
	[ -x "$ROOT/out/lboot-target" ] && t=$(best_lboot "$ROOT/out/lboot-target" "$3" "$2")
	c=$(best_curl "$3" "$2")
	printf '%-34s %s   %s   %s\n' "$1" "$(mbs "$h")" "$(mbs "$t")" "$(mbs "$c")"
	echo "$h" > "$T/last.h"
}
row "http" http://127.0.0.1:8080/40m.bin "$T/rsa.pem"
http=$(cat "$T/last.h")
row "https ECDHE-RSA AES-128-GCM" https://127.0.0.1:8443/40m.bin "$T/rsa.pem"
rsa=$(cat "$T/last.h")
row "https ECDHE-ECDSA ChaCha20-Poly1305" https://127.0.0.1:8444/40m.bin "$T/ec.pem"
awk -v a="$rsa" -v b="$http" 'BEGIN { if (b > 0) printf "lboot https (AES-GCM) / http: %.2f\n", a / b }'
