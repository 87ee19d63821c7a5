#!/usr/bin/env python3
"""png_same_above.py A.png B.png ROWS: exit 0 when the two PNG images are the same size and equal in
every pixel row above their last ROWS rows, 1 otherwise. compare-builds uses it to leave the status
bar out of a screenshot comparison: it shows how long the metrics took, which depends on the load.
Decodes 8-bit non-interlaced PNGs (what Qt writes) with the standard library only."""
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    if depth != 8 or interlace:
        raise ValueError(f"{path}: only 8-bit non-interlaced PNGs are read")
    bpp, stride = channels, width * channels
    raw = zlib.decompress(idat)
    out, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return width, height, out


def main():
    wa, ha, ra = rows(sys.argv[1])
    wb, hb, rb = rows(sys.argv[2])
    keep = ha - int(sys.argv[3])
    return 0 if (wa, ha) == (wb, hb) and ra[:keep] == rb[:keep] else 1


if __name__ == "__main__":
    sys.exit(main())
