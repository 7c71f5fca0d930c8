#!/bin/bash
# verify-bls.sh under coreboot: the same disk, keys and checks (enforce:
# each bad entry refused with one line, the whole one boots with the signed
# command line), with lboot as coreboot's Linux payload (E2E_COREBOOT).
E2E_COREBOOT=1 exec bash "$(dirname "$0")/verify-bls.sh"
