#!/usr/bin/env python3
"""Build minimal UEFI images around EFI 1.1 / Tiano payloads for UEFIExtract.

  mkfv.py raw IN OUT            wrap IN as an EFI_SECTION_RAW (0x19) section
  mkfv.py fv COMP ORIGLEN OUT   firmware volume (FFSv2, erase polarity 1) with
                                one FREEFORM file holding one
                                EFI_COMPRESSION_SECTION (type 0x01,
                                CompressionType 0x01 = EFI_STANDARD_COMPRESSION)
                                whose payload is COMP (8-byte header + bits)
                                and UncompressedLength ORIGLEN.
"""
import struct
import sys
import os

FFS2_GUID = bytes.fromhex("78e58c8c3d8a1c4f9935896185c32dd3")  # 8c8ce578-8a3d-4f1c-9935-896185c32dd3
FILE_GUID = bytes.fromhex("a0b1c2d3e4f5061728394a5b6c7d8e9f")
BLOCK = 0x1000


def section(stype, body):
    size = 4 + len(body)
    if size >= 1 << 24:
        sys.exit("mkfv.py: section too large (%d bytes)" % size)
    return struct.pack("<I", size)[:3] + bytes([stype]) + body


def ffs_file(ftype, body):
    size = 24 + len(body)
    if size >= 1 << 24:
        sys.exit("mkfv.py: file too large (%d bytes)" % size)
    hdr = bytearray(FILE_GUID + b"\0\0" + bytes([ftype, 0]) + struct.pack("<I", size)[:3] + b"\0")
    hdr[16] = (-sum(hdr)) & 0xFF  # header checksum; file checksum and state count as 0
    hdr[17] = 0xAA                # no FFS_ATTRIB_CHECKSUM
    hdr[23] = 0xF8                # ~(CONSTRUCTION|VALID|DATA_VALID), erase polarity 1
    return bytes(hdr) + body


def fv(files):
    hlen = 0x48
    body = files
    total = hlen + len(body)
    total = (total + BLOCK - 1) // BLOCK * BLOCK
    hdr = bytearray(b"\0" * 16 + FFS2_GUID + struct.pack("<Q", total) + b"_FVH" +
                    struct.pack("<IHHHBB", 0x0004FEFF, hlen, 0, 0, 0, 2) +
                    struct.pack("<IIII", total // BLOCK, BLOCK, 0, 0))
    assert len(hdr) == hlen
    csum = sum(struct.unpack("<%dH" % (hlen // 2), bytes(hdr))) & 0xFFFF
    struct.pack_into("<H", hdr, 0x32, (-csum) & 0xFFFF)
    img = bytes(hdr) + body
    return img + b"\xff" * (total - len(img))


def write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv):
    if len(argv) == 4 and argv[1] == "raw":
        write(argv[3], section(0x19, open(argv[2], "rb").read()))
    elif len(argv) == 5 and argv[1] == "fv":
        comp = open(argv[2], "rb").read()
        body = section(0x01, struct.pack("<IB", int(argv[3]), 0x01) + comp)
        write(argv[4], fv(ffs_file(0x02, body)))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
