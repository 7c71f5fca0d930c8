#!/bin/bash
# lboot fetch over HTTPS against nginx (Debian's nginx-light, OpenSSL) on
# 127.0.0.1/::1 in a private network namespace (unshare -n), with a test PKI
# made here by openssl: an RSA CA and an ECDSA CA, an intermediate, server
# certificates for RSA and ECDSA keys, one for another name, one expired, a
# pinned self-signed one. curl --cacert fetches the same URLs as the oracle
# for the bytes. Faults: the wrong CA, no CA, a name mismatch, an expired
# certificate, a TLS 1.3-only server, a server that never answers and one
# that trickles bytes (both must fail within the --timeout bound).
# Prints ok/not ok/skip lines.
cd "$(dirname "$0")/../.." || exit 1
LBOOT=$PWD/out/lboot

. tests/host/netns-lib.sh
netns_enter https "$@"

for b in nginx openssl curl python3 cmp; do
	command -v $b >/dev/null 2>&1 || { echo "skip host/https: $b not installed (scripts/deps.sh)"; exit 0; }
done

netns_setup https


# --- the test PKI ---------------------------------------------------------------
P=$T/pki
mkdir -p "$P"
cat > "$P/ca.cnf" <<'EOF'
[ca]
default_ca = c
[c]
database = $ENV::CADIR/index
new_certs_dir = $ENV::CADIR
serial = $ENV::CADIR/serial
default_md = sha256
policy = p
unique_subject = no
[p]
commonName = supplied
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = $ENV::SAN
[inter]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
EOF
newkey() { # name rsa|ec
	if [ "$2" = rsa ]; then
		openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$P/$1.key" 2>/dev/null
	else
		openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$P/$1.key" 2>/dev/null
	fi
}
newca() { # name rsa|ec
	newkey "$1" "$2"
	openssl req -x509 -new -key "$P/$1.key" -out "$P/$1.pem" -days 30 -subj "/CN=lboot test $1" \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
	mkdir -p "$P/$1.db"
	: > "$P/$1.db/index"
	echo 01 > "$P/$1.db/serial"
}
sign() { # ca name rsa|ec ext san [openssl ca date args...]
	local ca=$1 name=$2 kt=$3 ext=$4 san=$5
	shift 5
	[ $# = 0 ] && set -- -days 30
	newkey "$name" "$kt"
	openssl req -new -key "$P/$name.key" -out "$P/$name.csr" -subj "/CN=$name" 2>/dev/null
	CADIR=$P/$ca.db SAN=$san openssl ca -batch -notext -config "$P/ca.cnf" -cert "$P/$ca.pem" \
		-keyfile "$P/$ca.key" -in "$P/$name.csr" -out "$P/$name.pem" -extensions "$ext" \
		"$@" >"$P/$name.log" 2>&1
}
newca rsa-ca rsa
newca ec-ca ec
sign rsa-ca rsa-srv rsa server "IP:127.0.0.1,IP:::1,DNS:localhost"
sign ec-ca ec-srv ec server "IP:127.0.0.1,DNS:localhost"
sign rsa-ca other-srv rsa server "DNS:other.test,IP:127.0.0.2"
sign rsa-ca old-srv rsa server "IP:127.0.0.1" -startdate 20200101000000Z -enddate 20210101000000Z
sign rsa-ca inter ec inter "IP:0.0.0.0"
mkdir -p "$P/inter.db"
: > "$P/inter.db/index"
echo 01 > "$P/inter.db/serial"
sign inter chain-srv ec server "IP:127.0.0.1"
cat "$P/chain-srv.pem" "$P/inter.pem" > "$P/chain-full.pem"
# a pinned server: self-signed, not a CA
newkey pin-srv ec
openssl req -x509 -new -key "$P/pin-srv.key" -out "$P/pin-srv.pem" -days 30 -subj "/CN=pinned" \
	-addext "basicConstraints=critical,CA:FALSE" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
for f in rsa-srv ec-srv other-srv old-srv inter chain-srv pin-srv; do
	[ -s "$P/$f.pem" ] || { notok "https/pki/$f" "openssl: $(tail -2 "$P/$f.log" 2>/dev/null)"; exit 1; }
done
ok "https/pki"
mkdir -p "$T/cas"
cp "$P/rsa-ca.pem" "$T/cas/rsa.pem"
openssl x509 -in "$P/ec-ca.pem" -outform DER -out "$T/cas/ec.der"
echo "not a certificate" > "$T/cas/README"      # not a CA file name: skipped

# --- servers --------------------------------------------------------------------
W=$T/www
mkdir -p "$W/files" "$T/nginx" "$T/out"
head -c 300000 /dev/urandom > "$W/files/small.bin"
head -c 40000000 /dev/urandom > "$W/files/big.bin"
chmod -R 755 "$W"
srv() { # port cert key [extra directives]
	cat <<EOF
	server {
		listen 127.0.0.1:$1 ssl;
		listen [::1]:$1 ssl;
		ssl_certificate $2;
		ssl_certificate_key $3;
		root $W;
		location = /redirect { return 302 https://127.0.0.1:8444/files/small.bin; }
		location = /downgrade { return 302 http://127.0.0.1:8080/files/small.bin; }
		location = /downgrade-tftp { return 302 tftp://127.0.0.1/files/small.bin; }
		$4
	}
EOF
}
cat > "$T/nginx/nginx.conf" <<EOF
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 64; }
http {
	log_format sni '\$server_port \$request_uri sni=\$ssl_server_name';
	access_log $T/nginx/access.log sni;
	client_body_temp_path $T/nginx; proxy_temp_path $T/nginx;
	fastcgi_temp_path $T/nginx; uwsgi_temp_path $T/nginx; scgi_temp_path $T/nginx;
	ssl_protocols TLSv1.2 TLSv1.3;
	server { listen 127.0.0.1:8080; root $W; }
$(srv 8443 "$P/rsa-srv.pem" "$P/rsa-srv.key")
$(srv 8444 "$P/ec-srv.pem" "$P/ec-srv.key")
$(srv 8445 "$P/other-srv.pem" "$P/other-srv.key")
$(srv 8446 "$P/old-srv.pem" "$P/old-srv.key")
$(srv 8447 "$P/chain-full.pem" "$P/chain-srv.key")
$(srv 8448 "$P/pin-srv.pem" "$P/pin-srv.key")
$(srv 8449 "$P/ec-srv.pem" "$P/ec-srv.key" "ssl_protocols TLSv1.2; ssl_ciphers ECDHE-ECDSA-CHACHA20-POLY1305;")
$(srv 8450 "$P/rsa-srv.pem" "$P/rsa-srv.key" "ssl_protocols TLSv1.2; ssl_ciphers ECDHE-RSA-AES256-GCM-SHA384;")
$(srv 8451 "$P/rsa-srv.pem" "$P/rsa-srv.key" "ssl_protocols TLSv1.3;")
$(srv 8452 "$P/rsa-srv.pem" "$P/rsa-srv.key" "ssl_protocols TLSv1.2; ssl_ciphers AES128-SHA;")
}
EOF
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.log" &
pids+=($!)
# a listener that accepts and never answers; one that trickles a byte a
# second after a TLS record header (an idle timeout alone never fires)
cat > "$T/stall.py" <<'EOF'
import socket, sys, threading, time
def serve(port, trickle):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(8)
    held = []
    while True:
        c, _ = s.accept()
        held.append(c)
        if trickle:
            def drip(c=c):
                try:
                    c.sendall(b"\x16\x03\x03\x40\x00")
                    while True:
                        time.sleep(1)
                        c.sendall(b"\x00")
                except OSError:
                    pass
            threading.Thread(target=drip, daemon=True).start()
threading.Thread(target=serve, args=(8460, False), daemon=True).start()
serve(8461, True)
EOF
python3 "$T/stall.py" &
pids+=($!)
# a body delimited by the end of the connection (no Content-Length): ended
# by close_notify (complete) or by a bare TCP close (truncated: refused);
# and a Content-Length body followed by a bare TCP close (complete)
cat > "$T/eof.py" <<'EOP'
import socket, ssl, sys, threading
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
body = open(sys.argv[3], "rb").read()
def serve(port, clean, length=False):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(8)
    while True:
        c, _ = s.accept()
        try:
            t = ctx.wrap_socket(c, server_side=True)
            req = b""
            while b"\r\n\r\n" not in req:
                d = t.recv(4096)
                if not d:
                    break
                req += d
            cl = b"Content-Length: %d\r\n" % len(body) if length else b""
            t.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n" + cl + b"\r\n" + body)
            if clean:
                t.unwrap().close()  # close_notify, then TCP FIN
            else:
                t.shutdown(socket.SHUT_RDWR)    # TCP FIN, no close_notify
                t.close()
        except (OSError, ssl.SSLError):
            c.close()
threading.Thread(target=serve, args=(8462, False), daemon=True).start()
threading.Thread(target=serve, args=(8464, False, True), daemon=True).start()
serve(8463, True)
EOP
python3 "$T/eof.py" "$P/rsa-srv.pem" "$P/rsa-srv.key" "$W/files/small.bin" 2>"$T/eof.log" &
pids+=($!)

for i in $(seq 50); do
	(exec 3<>/dev/tcp/127.0.0.1/8452) 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/8461) 2>/dev/null &&
		(exec 3<>/dev/tcp/127.0.0.1/8463) 2>/dev/null && break
	sleep 0.1
done

out=$T/out
fetch() { # name expected-exit args...
	local name=$1 want=$2; shift 2
	"$LBOOT" fetch -q "$@" >"$T/$name.stdout" 2>"$T/$name.stderr"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		notok "https/$name" "exit $rc, expected $want: $(head -c 300 "$T/$name.stderr")"
		return 1
	fi
	return 0
}
same() { # name file reference
	if cmp -s "$2" "$3"; then ok "https/$1"; else notok "https/$1" "content differs"; fi
}
refused() { # name pattern args... (exit 1, one line matching, no output file)
	local name=$1 pat=$2; shift 2
	echo old > "$out/keep-$name"
	if fetch "$name" 1 "$@" -o "$out/keep-$name"; then
		if grep -q -- "$pat" "$T/$name.stderr" && [ "$(wc -l < "$T/$name.stderr")" = 1 ] &&
		   [ "$(cat "$out/keep-$name")" = old ]; then
			ok "https/$name"
		else
			notok "https/$name" "$(cat "$T/$name.stderr")"
		fi
		echo "# $(cat "$T/$name.stderr")"
	fi
}

# curl agrees with the refusals (the oracle refuses what we refuse)
curl_refuses() { # name ca url
	if curl -sS --fail --max-time 5 --cacert "$2" -o /dev/null "$3" 2>/dev/null; then
		notok "https/$1/curl-refuses-too" "curl accepted $3"
	else
		ok "https/$1/curl-refuses-too"
	fi
}

# --- fetches that must work ----------------------------------------------------
if fetch rsa 0 --ca "$P/rsa-ca.pem" --json https://127.0.0.1:8443/files/small.bin -o "$out/rsa"; then
	same rsa "$out/rsa" "$W/files/small.bin"
fi
if fetch ecdsa 0 --ca "$P/ec-ca.pem" https://127.0.0.1:8444/files/small.bin -o "$out/ec"; then
	same ecdsa "$out/ec" "$W/files/small.bin"
fi
# a DNS name: SNI sent, BearSSL's name check; localhost may resolve to ::1 first
if fetch dns-name 0 --ca "$P/rsa-ca.pem" https://localhost:8443/files/small.bin -o "$out/dns"; then
	same dns-name "$out/dns" "$W/files/small.bin"
fi
# SNI: the name for a DNS host, none for an address (RFC 6066)
if grep -q '^8443 /files/small.bin sni=localhost$' "$T/nginx/access.log" &&
   grep -q '^8443 /files/small.bin sni=-$' "$T/nginx/access.log"; then
	ok "https/sni"
else
	notok "https/sni" "$(cat "$T/nginx/access.log")"
fi
if ip -6 addr show dev lo | grep -q '::1'; then
	if fetch ipv6-literal 0 --ca "$P/rsa-ca.pem" "https://[::1]:8443/files/small.bin" -o "$out/v6"; then
		same ipv6-literal "$out/v6" "$W/files/small.bin"
	fi
else
	echo "skip https/ipv6-literal: no ::1 on lo"
fi
if fetch chacha20 0 --ca "$P/ec-ca.pem" https://127.0.0.1:8449/files/small.bin -o "$out/chacha"; then
	same chacha20 "$out/chacha" "$W/files/small.bin"
fi
if fetch aes256-gcm 0 --ca "$P/rsa-ca.pem" https://127.0.0.1:8450/files/small.bin -o "$out/aes256"; then
	same aes256-gcm "$out/aes256" "$W/files/small.bin"
fi
if fetch intermediate 0 --ca "$P/rsa-ca.pem" https://127.0.0.1:8447/files/small.bin -o "$out/inter"; then
	same intermediate "$out/inter" "$W/files/small.bin"
fi
if fetch pinned 0 --ca "$P/pin-srv.pem" https://127.0.0.1:8448/files/small.bin -o "$out/pin"; then
	same pinned-self-signed "$out/pin" "$W/files/small.bin"
fi
# a directory of CA files (PEM and DER) and https -> https redirect to the
# other CA's server
if fetch redirect 0 --ca "$T/cas" --json https://127.0.0.1:8443/redirect -o "$out/redir"; then
	if cmp -s "$out/redir" "$W/files/small.bin" && grep -q '"redirects": 1' "$T/redirect.stdout" &&
	   grep -q '"final_url": "https://127.0.0.1:8444/files/small.bin"' "$T/redirect.stdout"; then
		ok "https/redirect-https-to-https"
	else
		notok "https/redirect-https-to-https" "$(cat "$T/redirect.stdout")"
	fi
fi
# an https:// fetch is never redirected off TLS (issue 23 finding 8): to
# plain http:// (served, on 8080) or tftp://, the fetch fails, nothing written
for d in downgrade downgrade-tftp; do
	rm -f "$out/$d"
	if fetch $d 1 --ca "$P/rsa-ca.pem" https://127.0.0.1:8443/$d -o "$out/$d"; then
		if grep -q "redirect to .* refused: https:// may only redirect to https://" "$T/$d.stderr" && [ ! -e "$out/$d" ]; then
			ok "https/$d-refused"
		else
			notok "https/$d-refused" "$(head -c 300 "$T/$d.stderr")"
		fi
	fi
done
# 40 MB, and curl as the oracle for the bytes
if fetch big 0 --ca "$P/rsa-ca.pem" --json https://127.0.0.1:8443/files/big.bin -o "$out/big"; then
	same big-40MB "$out/big" "$W/files/big.bin"
	echo "# lboot https 40 MB: $(sed -n 's/.*"seconds": \([0-9.]*\).*"bytes_per_second": \([0-9]*\).*/\1 s, \2 B\/s/p' "$T/big.stdout")"
	if curl -sS --fail --cacert "$P/rsa-ca.pem" -o "$out/big.curl" https://127.0.0.1:8443/files/big.bin 2>"$T/curl.err"; then
		same big-40MB/curl-oracle "$out/big" "$out/big.curl"
	else
		notok "https/big-40MB/curl-oracle" "curl: $(cat "$T/curl.err")"
	fi
fi
# end of body = end of connection: only a close_notify makes it complete
if fetch close-notify 0 --ca "$P/rsa-ca.pem" https://127.0.0.1:8463/ -o "$out/eof"; then
	same body-ended-by-close-notify "$out/eof" "$W/files/small.bin"
fi
# (curl is no oracle here: it sets OpenSSL's SSL_OP_IGNORE_UNEXPECTED_EOF)
refused truncated-without-close-notify "Broken pipe after" --ca "$P/rsa-ca.pem" https://127.0.0.1:8462/
if fetch length-then-tcp-close 0 --ca "$P/rsa-ca.pem" https://127.0.0.1:8464/ -o "$out/eof2"; then
	same content-length-then-tcp-close "$out/eof2" "$W/files/small.bin"
fi
# the target's defaults, /etc/lboot/tls/ and /etc/lboot/ca.pem, in a mount
# namespace with a tmpfs over /etc (the host's /etc is untouched)
if [ -x out/lboot-target ] && unshare -m true 2>/dev/null; then
	cat > "$T/defaults.sh" <<'EOD'
set -e
mount -t tmpfs none /etc
mkdir -p /etc/lboot/tls
cp "$P/rsa-ca.pem" /etc/lboot/tls/rsa.crt
cp "$P/ec-ca.pem" /etc/lboot/ca.pem
L=$PWD/out/lboot-target
$L fetch -q https://127.0.0.1:8443/files/small.bin -o "$out/d1"
$L fetch -q https://127.0.0.1:8444/files/small.bin -o "$out/d2"
cmp "$out/d1" "$W/files/small.bin" && cmp "$out/d2" "$W/files/small.bin"
echo garbage > /etc/lboot/tls/bad.pem
! $L fetch -q https://127.0.0.1:8443/files/small.bin -o "$out/d3" 2>"$T/d3.err"
grep -q "trust anchors: /etc/lboot/tls/bad.pem: no certificate" "$T/d3.err"
# a broken CA store does not stop plain http
$L fetch -q http://127.0.0.1:8080/files/small.bin -o "$out/d4"
cmp "$out/d4" "$W/files/small.bin"
echo done
EOD
	if P=$P W=$W T=$T out=$out unshare -m bash "$T/defaults.sh" >"$T/defaults.log" 2>&1 &&
	   grep -q '^done$' "$T/defaults.log"; then
		ok "https/default-anchors-etc-lboot"
	else
		notok "https/default-anchors-etc-lboot" "$(tail -3 "$T/defaults.log" | tr '\n' ' ')"
	fi
else
	echo "skip https/default-anchors-etc-lboot: no out/lboot-target or no unshare -m"
fi
# the static musl target binary (BearSSL from Debian's .a, fortify shim)
if [ -x out/lboot-target ]; then
	if out/lboot-target fetch -q --ca "$P/ec-ca.pem" https://127.0.0.1:8444/files/big.bin \
		-o "$out/target" 2>"$T/target.stderr"; then
		same target-static-musl "$out/target" "$W/files/big.bin"
	else
		notok "https/target-static-musl" "$(cat "$T/target.stderr")"
	fi
else
	echo "skip https/target-static-musl: out/lboot-target not built"
fi

# --- refusals -------------------------------------------------------------------
refused wrong-ca "certificate not trusted" --ca "$P/ec-ca.pem" https://127.0.0.1:8443/files/small.bin
curl_refuses wrong-ca "$P/ec-ca.pem" https://127.0.0.1:8443/files/small.bin
refused no-ca "no trust anchors" https://127.0.0.1:8443/files/small.bin
refused name-mismatch "certificate name mismatch (127.0.0.1 is not among its IP addresses)" \
	--ca "$P/rsa-ca.pem" https://127.0.0.1:8445/files/small.bin
curl_refuses name-mismatch "$P/rsa-ca.pem" https://127.0.0.1:8445/files/small.bin
refused dns-name-mismatch "certificate name mismatch (localhost is not among its names)" \
	--ca "$P/rsa-ca.pem" https://localhost:8445/files/small.bin
refused expired "certificate expired or not yet valid (clock $(date -u +%Y-%m-%d) " \
	--ca "$P/rsa-ca.pem" https://127.0.0.1:8446/files/small.bin
curl_refuses expired "$P/rsa-ca.pem" https://127.0.0.1:8446/files/small.bin
# the pinned certificate does not vouch for anything it did not sign
refused pinned-other-server "certificate not trusted" --ca "$P/pin-srv.pem" https://127.0.0.1:8443/files/small.bin
refused tls13-only "does not speak TLS 1.2\|protocol_version" --ca "$P/rsa-ca.pem" https://127.0.0.1:8451/files/small.bin
refused no-common-suite "handshake failed" --ca "$P/rsa-ca.pem" https://127.0.0.1:8452/files/small.bin
refused bad-ca-file "--ca .*README: no certificate" --ca "$T/cas/README" https://127.0.0.1:8443/files/small.bin
for s in never-answers:8460 trickles:8461; do
	name=stall-${s%:*}
	t0=$(date +%s%N)
	refused "$name" "handshake failed: not done within 3 s (the server does not answer)" --ca "$P/rsa-ca.pem" --timeout 3 "https://127.0.0.1:${s#*:}/x"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	if [ "$ms" -ge 2900 ] && [ "$ms" -lt 6000 ]; then
		ok "https/$name/bounded"
	else
		notok "https/$name/bounded" "took $ms ms with --timeout 3"
	fi
done
if ls -A "$out" | grep -q '^\.'; then notok "https/no-temp-left" "$(ls -A "$out")"; else ok "https/no-temp-left"; fi
exit $fail
