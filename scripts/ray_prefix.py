#!/usr/bin/env python3
"""Writes the first N rays of a benchmark exchange ray file (u32 count, then 7 f32 per ray).

Used to count instructions per ray with callgrind on the same rays for raypick's `compare`
(`--rays N`) and for scripts/embree_bench.py (which takes whole files):

    scripts/ray_prefix.py bench-data/bunny_random.rays 20000 /tmp/bunny_random_20k.rays
"""
import struct
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src, "rb") as f:
        data = f.read()
    if len(data) < 4:
        sys.exit(f"{src}: truncated header")
    (total,) = struct.unpack("<I", data[:4])
    n = min(n, total, (len(data) - 4) // 28)
    with open(dst, "wb") as f:
        f.write(struct.pack("<I", n) + data[4 : 4 + 28 * n])


if __name__ == "__main__":
    main()
