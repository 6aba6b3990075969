#!/usr/bin/env python3
"""Make the bitmap font PNG figures are drawn with (crates/hindsight-report/assets/figure-font.bin).

    .venv/bin/python scripts/make-figure-font.py [REGULAR.ttf BOLD.ttf]

Renders the characters PDF figures can say too (WinAnsi: ASCII 32-126 and the cp1252
letters and marks, the en dash, the middle dot, the multiplication sign...) of DejaVu Sans and DejaVu Sans Bold (default: Debian's
/usr/share/fonts/truetype/dejavu/) once, at one master size, with Pillow; the figure code
scales each glyph down to the size it draws (area-averaged), so one master serves every
--font-size and --scale. Run again only to change the font: the output is deterministic
and committed.

DejaVu's glyphs are Bitstream Vera's with changes in the public domain; Vera's licence
permits embedding and redistribution (see crates/hindsight-report/assets/README.md).

Layout (little-endian), zlib-compressed as a whole:
  b"HSF1", u16 master pixel size, u8 faces (regular, bold), u16 characters,
  per face, per character: u32 code point, u16 advance (1/64 px), i16 x offset of the bitmap from
  the pen, i16 y offset of its top from the baseline (down positive), u16 width, u16
  height, then width*height bytes of 8-bit coverage, row by row.
"""
import struct
import sys
import zlib

from PIL import Image, ImageDraw, ImageFont

MASTER = 48
# WinAnsi's characters, as cp1252 decodes them (five codes of it are unassigned).
CHARS = [chr(c) for c in range(32, 127)] + [bytes([c]).decode("cp1252", "ignore") for c in range(128, 256)]
CHARS = [c for c in CHARS if c]
DEFAULT = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"]
OUT = "crates/hindsight-report/assets/figure-font.bin"


def face(path):
    font = ImageFont.truetype(path, MASTER)
    out = b""
    for ch in CHARS:
        advance = round(font.getlength(ch) * 64)
        left, top, right, bottom = font.getbbox(ch, anchor="ls")
        w, h = max(right - left, 0), max(bottom - top, 0)
        pixels = b""
        if w and h:
            img = Image.new("L", (w, h), 0)
            ImageDraw.Draw(img).text((-left, -top), ch, font=font, fill=255, anchor="ls")
            pixels = img.tobytes()
        out += struct.pack("<IHhhHH", ord(ch), advance, left, top, w, h) + pixels
    return out


def main():
    paths = sys.argv[1:3] or DEFAULT
    data = b"HSF1" + struct.pack("<HBH", MASTER, len(paths), len(CHARS)) + b"".join(face(p) for p in paths)
    with open(OUT, "wb") as f:
        f.write(zlib.compress(data, 9))


if __name__ == "__main__":
    main()
