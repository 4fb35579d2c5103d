#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Extract the uncompressed ELF vmlinux from an x86 bzImage.

Usage: extract-vmlinux.py BZIMAGE OUTPUT

qemu boots an ELF vmlinux through its PVH entry point, which under TCG is
about 5 s faster than booting the bzImage (no decompressor running in the
emulated CPU).  The bzImage's setup header says where the compressed
payload is (payload_offset/payload_length, boot protocol >= 2.08); the
payload is decompressed with the Python standard library (xz, lzma, gzip,
bzip2), or with the zstd program (Debian's 6.12 kernels are zstd) when it
is installed.  If the header cannot be used, the file is scanned for the
compressors' magic numbers instead.

The output is written to a temporary file next to OUTPUT and renamed, so
concurrent runs never see a partial file.  Exit status: 0 on success, 1 if
no ELF image could be extracted (callers then boot the bzImage itself).
"""

import bz2
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ELF_MAGIC = b"\x7fELF"


def decompress_xz(data):
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data)


def decompress_lzma(data):
    return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(data)


def decompress_gzip(data):
    # wbits 16+MAX_WBITS: gzip header; trailing bytes are ignored.
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data)


def decompress_bzip2(data):
    return bz2.BZ2Decompressor().decompress(data)


def decompress_zstd(data):
    # The kernel appends the uncompressed size after the frame, which
    # zstd reports as trailing garbage (non-zero exit) after writing the
    # whole frame: the caller checks the output.
    if shutil.which("zstd") is None:
        raise OSError("no zstd program")
    run = subprocess.run(["zstd", "-dcq"], input=data, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=False)
    return run.stdout


# Magic numbers of the payload formats that can be handled.
FORMATS = [
    (b"\x28\xb5\x2f\xfd", decompress_zstd),
    (b"\xfd7zXZ\x00", decompress_xz),
    (b"\x5d\x00\x00", decompress_lzma),
    (b"\x1f\x8b\x08", decompress_gzip),
    (b"BZh", decompress_bzip2),
]


def try_payload(data):
    """Decompresses data if it starts with a known magic; None otherwise."""
    for magic, func in FORMATS:
        if data.startswith(magic):
            try:
                out = func(data)
            except (lzma.LZMAError, zlib.error, OSError, EOFError, ValueError):
                return None
            if out.startswith(ELF_MAGIC):
                return out
            return None
    return None


def from_header(image):
    """Uses the boot protocol header to find the payload."""
    if len(image) < 0x250 or image[0x202:0x206] != b"HdrS":
        return None
    version = struct.unpack_from("<H", image, 0x206)[0]
    if version < 0x0208:
        return None
    setup_sects = image[0x1F1] or 4
    pm_start = (setup_sects + 1) * 512
    offset, length = struct.unpack_from("<II", image, 0x248)
    start = pm_start + offset
    if length == 0 or start + length > len(image):
        return None
    return try_payload(image[start:start + length])


def by_scanning(image):
    """Tries every occurrence of every known magic number."""
    for magic, _ in FORMATS:
        pos = image.find(magic)
        while pos >= 0:
            out = try_payload(image[pos:])
            if out is not None:
                return out
            pos = image.find(magic, pos + 1)
    return None


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: extract-vmlinux.py BZIMAGE OUTPUT\n")
        return 2
    src, dst = argv[1], argv[2]
    with open(src, "rb") as f:
        image = f.read()
    vmlinux = from_header(image) or by_scanning(image)
    if vmlinux is None:
        sys.stderr.write("extract-vmlinux.py: no ELF payload found in %s\n"
                         % src)
        return 1
    fd, tmp = tempfile.mkstemp(prefix=".vmlinux.",
                               dir=os.path.dirname(os.path.abspath(dst)))
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(vmlinux)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dst)
    except BaseException:
        os.unlink(tmp)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
