#!/usr/bin/env python3
"""tcg-replay.py LOG.yaml SERIAL PCRS: the PCRs a TCG event log replays to
(the pcrs: section of tpm2_eventlog's output, LOG.yaml) against the values
the target printed on its serial console ("lboot-target: pcr BANK N HEX",
tests/guest/target-init.c, or "@@PCR BANK N HEX"), for the PCRs in PCRS
(a comma list: 2,4,8,9); a PCR the log has no event for replays to zero.
Prints "mismatch BANK N REPLAY TPM" lines, then "checked N bad M".
Shared by the measured-boot scenarios (tests/e2e/*measure*.sh)."""
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
for line in open(serial, errors='replace'):
    m = re.match(r'(?:lboot-target: pcr|@@PCR) (sha1|sha256|sha384|sha512) (\d+) ([0-9A-Fa-f]+)$', line.strip())
    if not m or int(m.group(2)) not in want:
        continue
    k, v = (m.group(1), int(m.group(2))), m.group(3).lower()
    n += 1
    if replay.get(k, '0' * len(v)) != v:
        bad += 1
        print('mismatch', k[0], k[1], replay.get(k), v)
print('checked', n, 'bad', bad)
