#!/usr/bin/env python3
# bench/stamp.py TIMEOUT LOG END_LABEL LABEL=REGEX... -- QEMU ARGS...: runs
# QEMU with its serial on stdout, writes every line prefixed with the seconds
# since QEMU's start to LOG, prints "LABEL=S:C" (or LABEL=-) for the first
# match of each REGEX (S: wall seconds since QEMU's start, C: CPU seconds
# QEMU used by then: less sensitive to a loaded host) and stops QEMU when
# END_LABEL matched (or 3 s after a "target" label without it) or at
# TIMEOUT. Shared by bench/rom-boot.sh, bench/rom-tpm.sh, bench/arm64-boot.sh.
import os, re, subprocess, sys, time, select
i = sys.argv.index('--')
timeout, logpath, end = float(sys.argv[1]), sys.argv[2], sys.argv[3]
marks = []
for a in sys.argv[4:i]:
    k, v = a.split('=', 1)
    marks.append((k, re.compile(v.encode())))
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[i + 1:], stdin=subprocess.DEVNULL,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
tick = os.sysconf('SC_CLK_TCK')
def cpu():  # QEMU's user + system CPU seconds so far (all its threads)
    try:
        with open('/proc/%d/stat' % p.pid) as f:
            st = f.read().rsplit(')', 1)[1].split()
        return (int(st[11]) + int(st[12])) / tick
    except (OSError, IndexError, ValueError):
        return -1.0
seen, cur, lines, fd = {}, b'', [], p.stdout.fileno()
while end not in seen:
    left = timeout - (time.monotonic() - t0)
    if left <= 0 or ('target' in seen and time.monotonic() - t0 - seen['target'][0] > 3):
        break  # (the END line did not follow the target's first one)
    r, _, _ = select.select([fd], [], [], min(left, 0.5))
    if not r:
        if p.poll() is not None:
            break
        continue
    data = os.read(fd, 65536)
    now = time.monotonic() - t0
    if not data:
        break
    for b in re.split(rb'(\r|\n)', data):
        if b in (b'\r', b'\n'):
            if cur:
                lines.append(b'%8.3f %s' % (now, cur))
            cur = b''
            continue
        cur += b
        for k, rx in marks:
            if k not in seen and rx.search(cur):
                seen[k] = (now, cpu())
if cur:
    lines.append(b'%8.3f %s' % (time.monotonic() - t0, cur))
p.kill()
p.wait()
with open(logpath, 'wb') as f:
    f.write(b'\n'.join(lines) + b'\n')
print(' '.join('%s=%.2f:%.2f' % (k, *seen[k]) if k in seen else '%s=-' % k for k, _ in marks))
