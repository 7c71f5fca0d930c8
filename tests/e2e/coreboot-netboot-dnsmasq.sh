#!/bin/bash
# netboot-dnsmasq.sh under coreboot: options 209/210, DHCPv6 only, dual
# stack and proxyDHCP against dnsmasq and nginx, with lboot as coreboot's
# Linux payload (E2E_COREBOOT).
E2E_COREBOOT=1 exec bash "$(dirname "$0")/netboot-dnsmasq.sh"
