#!/bin/bash
# netboot-dnsmasq.sh on arm64 (issue 27): options 209/210, DHCPv6 only, dual
# stack and proxyDHCP against dnsmasq and nginx through the arm64 LinuxBoot
# ROM; the proxy serves the arm64 boot file by the client architecture
# (option 93 = 11) lboot sends.
E2E_ARM64=1 exec bash "$(dirname "$0")/netboot-dnsmasq.sh"
