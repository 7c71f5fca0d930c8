#!/usr/bin/env python3
# pcr-replay.py LOG.yaml SERIAL: tpm2_eventlog's replay (its "pcrs:" block)
# against the PCR values a guest printed on its serial console, either as
# "@@PCR BANK N VALUE" (the test /init's) or "OS-PCR: N VALUE" (sha256; an
# installed OS's control script). PCR 10 (IMA's, logged elsewhere) is left
# out; a PCR the log never extends must read zero. Prints one "mismatch"
# line per difference, then "checked N bad B", "pcr0 VALUE" (sha256),
# "events PCR:COUNT ..." and "apps DIGEST ..." (the sha256 digests of PCR
# 4's EV_EFI_BOOT_SERVICES_APPLICATION events, in order).
# Sourced by nothing; called by tests/e2e/measure-rom.sh and os-lib.sh.
import re
import sys

text = open(sys.argv[1]).read()
replay, bank = {}, None
for line in text[text.rfind('pcrs:'):].splitlines():
    m = re.match(r'\s+(sha1|sha256|sha384|sha512):\s*$', line)
    if m:
        bank = m.group(1)
        continue
    m = re.match(r'\s+(\d+)\s*:\s*0x([0-9A-Fa-f]+)', line)
    if m and bank:
        replay[(bank, int(m.group(1)))] = m.group(2).lower()
tpm = {}
for line in open(sys.argv[2], errors='replace'):
    line = line.strip()
    m = re.match(r'@@PCR (\w+) (\d+) ([0-9A-Fa-f]+)$', line)
    if m:
        tpm[(m.group(1), int(m.group(2)))] = m.group(3).lower()
        continue
    m = re.match(r'OS-PCR: (\d+) ([0-9A-Fa-f]{64})$', line)
    if m:
        tpm[('sha256', int(m.group(1)))] = m.group(2).lower()
n = bad = 0
for (b, p), v in sorted(tpm.items()):
    if p == 10:
        continue
    n += 1
    if replay.get((b, p), '0' * len(v)) != v:
        bad += 1
        print('mismatch', b, p, replay.get((b, p)), v)
print('checked', n, 'bad', bad)
print('pcr0', tpm.get(('sha256', 0), ''))
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
