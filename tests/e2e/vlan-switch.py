#!/usr/bin/env python3
# A one-port 802.1Q switch in user space, for hosts whose kernel has no
# 8021q (tests/e2e/netboot-dnsmasq.sh): QEMU's NIC is a UDP socket
# (-netdev socket,udp=..,localaddr=..); frames tagged VID go to the tap
# device untagged, frames from the tap go back tagged VID; anything else
# (untagged, other VIDs) is dropped and counted.
# usage: vlan-switch.py LISTEN_PORT QEMU_PORT TAP VID COUNTS_FILE
import fcntl, os, select, socket, struct, sys

lport, qport, tap, vid, counts = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
TUNSETIFF, IFF_TAP, IFF_NO_PI = 0x400454CA, 0x0002, 0x1000
t = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(t, TUNSETIFF, struct.pack("16sH", tap.encode(), IFF_TAP | IFF_NO_PI))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", lport))
n = {"tagged": 0, "untagged": 0, "other_vid": 0, "to_guest": 0}
while True:
    r, _, _ = select.select([t, u], [], [], 1.0)
    if u in r:
        f = u.recv(65536)
        if len(f) >= 18 and f[12:14] == b"\x81\x00":
            if struct.unpack("!H", f[14:16])[0] & 0xFFF == vid:
                os.write(t, f[:12] + f[16:])
                n["tagged"] += 1
            else:
                n["other_vid"] += 1
        else:
            n["untagged"] += 1
    if t in r:
        f = os.read(t, 65536)
        u.sendto(f[:12] + struct.pack("!HH", 0x8100, vid) + f[12:], ("127.0.0.1", qport))
        n["to_guest"] += 1
    with open(counts + ".tmp", "w") as c:
        c.write(" ".join("%s=%d" % kv for kv in n.items()) + "\n")
    os.replace(counts + ".tmp", counts)
