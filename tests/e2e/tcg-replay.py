#!/usr/bin/env python3
"""tcg-replay.py LOG.yaml SERIAL PCRS [--events]: the PCRs a TCG event log replays to
(the pcrs: section of tpm2_eventlog's output, LOG.yaml) against the values
the target printed on its serial console ("lboot-target: pcr BANK N HEX",
tests/guest/target-init.c, "@@PCR BANK N HEX", or "OS-PCR: N HEX" for
sha256, an installed OS's: tests/e2e/os-lib.sh), for the PCRs in PCRS
(a comma list: 2,4,8,9); a PCR the log has no event for replays to zero.
Prints "mismatch BANK N REPLAY TPM" lines, then "checked N bad M"; with
--events also "pcr0 HEX" (sha256, as printed), "events PCR:COUNT ..." and
"apps DIGEST ..." (the sha256 digests of PCR 4's
EV_EFI_BOOT_SERVICES_APPLICATION events, in order).
Shared by the measured-boot scenarios (tests/e2e/*measure*.sh) and the
installed systems (tests/e2e/os-lib.sh)."""
import re
import sys

log, serial, want = sys.argv[1], sys.argv[2], {int(p) for p in sys.argv[3].split(',')}
text = open(log).read()
replay, bank = {}, None
for line in text[text.rfind('pcrs:'):].splitlines():
    m = re.match(r'\s+(sha1|sha256|sha384|sha512):\s*$', line)
    if m:
        bank = m.group(1)
        continue
    m = re.match(r'\s+(\d+)\s*:\s*0x([0-9A-Fa-f]+)', line)
    if m and bank:
        replay[(bank, int(m.group(1)))] = m.group(2).lower()
n = bad = 0
pcr0 = ''
for line in open(serial, errors='replace'):
    line = line.strip()
    m = re.match(r'(?:lboot-target: pcr|@@PCR) (sha1|sha256|sha384|sha512) (\d+) ([0-9A-Fa-f]+)$', line)
    if not m:
        m = re.match(r'OS-PCR: ()(\d+) ([0-9A-Fa-f]{64})$', line)
    if not m:
        continue
    k, v = (m.group(1) or 'sha256', int(m.group(2))), m.group(3).lower()
    if k == ('sha256', 0):
        pcr0 = v
    if k[1] not in want:
        continue
    n += 1
    if replay.get(k, '0' * len(v)) != v:
        bad += 1
        print('mismatch', k[0], k[1], replay.get(k), v)
print('checked', n, 'bad', bad)
if sys.argv[4:] == ['--events']:
    print('pcr0', pcr0)
    pcrs, apps = {}, []
    for e in re.split(r'\n- EventNum:', text)[1:]:
        m = re.search(r'PCRIndex:\s*(\d+)', e)
        p = int(m.group(1)) if m else -1
        pcrs[p] = pcrs.get(p, 0) + 1
        if p == 4 and 'EV_EFI_BOOT_SERVICES_APPLICATION' in e:
            d = re.search(r'AlgorithmId:\s*sha256\s*\n\s*Digest:\s*"([0-9a-fA-F]+)"', e)
            apps.append(d.group(1).lower() if d else '?')
    print('events', ' '.join('%d:%d' % kv for kv in sorted(pcrs.items())))
    print('apps', ' '.join(apps))
