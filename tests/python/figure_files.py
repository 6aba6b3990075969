"""Read PNG and PDF figures as a reader's tools would and print, per file, what the test
checks, as JSON.

    python figure_files.py FILE.png|FILE.pdf...

PNG: decoded by Pillow (`Image.open(...).load()`, which checks every chunk's CRC and the
zlib stream): its size, mode, resolution, and how many pixels are dark (text, axes) or
exactly each colour asked about (`--colors '#0072B2,...'` before the files).

PDF: read structurally, as a viewer does: the header, `startxref` pointing at the
cross-reference table, each object where the table says, `%%EOF`; the page's MediaBox;
the fonts; the text the content stream shows (each `(...) Tj`, decoded from WinAnsi);
the document's title. Where Poppler's pdftoppm is installed, the page is also rendered
and its dark pixels counted.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile

from PIL import Image


def png(path, colors):
    img = Image.open(path)
    img.load()
    rgb = img.convert("RGB")
    counts = {c: 0 for c in colors}
    dark = 0
    wanted = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)): c for c in colors}
    for p, n in rgb.getcolors(maxcolors=1 << 24):
        if sum(n) < 200:
            dark += p
        if n in wanted:
            counts[wanted[n]] += p
    return {"format": img.format, "size": list(img.size), "mode": img.mode, "dpi": [round(d) for d in img.info.get("dpi", (0, 0))], "dark": dark, "colors": counts}


def unescape(s):
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x5C:
            nxt = s[i + 1:i + 2]
            octal = re.match(rb"[0-7]{1,3}", s[i + 1:i + 4])
            if octal:
                out.append(int(octal.group(0), 8))
                i += 1 + len(octal.group(0))
                continue
            out += nxt
            i += 2
            continue
        out.append(c)
        i += 1
    return out.decode("cp1252", "replace")


def pdf(path):
    data = open(path, "rb").read()
    problems = []
    if not data.startswith(b"%PDF-1."):
        problems.append("no %PDF header")
    if not data.rstrip().endswith(b"%%EOF"):
        problems.append("no %%EOF at the end")
    start = int(re.findall(rb"startxref\s+(\d+)\s+%%EOF", data)[-1])
    if not data[start:].startswith(b"xref"):
        problems.append(f"startxref {start} does not point at xref")
    head = re.match(rb"xref\s+0 (\d+)\s+", data[start:])
    count = int(head.group(1))
    entries = re.findall(rb"(\d{10}) (\d{5}) ([nf])", data[start + head.end():start + head.end() + 20 * count])
    if len(entries) != count:
        problems.append(f"{len(entries)} xref entries, {count} said")
    for num, (off, _, kind) in enumerate(entries):
        if kind == b"n" and not data[int(off):].startswith(b"%d 0 obj" % num):
            problems.append(f"object {num} is not at {int(off)}")
    trailer = data[start:]
    size = int(re.search(rb"/Size (\d+)", trailer).group(1))
    if size != count:
        problems.append(f"/Size {size}, {count} entries")
    media = [float(v) for v in re.search(rb"/MediaBox \[([^\]]*)\]", data).group(1).split()]
    shown = [unescape(m) for m in re.findall(rb"\(((?:[^()\\]|\\.)*)\) Tj", data)]
    fonts = sorted(set(m.decode() for m in re.findall(rb"/BaseFont /([A-Za-z-]+)", data)))
    title = re.search(rb"/Title <FEFF([0-9A-F]*)>", data)
    title = bytes.fromhex(title.group(1).decode()).decode("utf-16-be") if title else None
    return {"format": "PDF", "problems": problems, "media_box": media, "text": shown, "fonts": fonts, "title": title, "rendered_dark": rendered(path)}


def rendered(path):
    """Dark pixels of the page as Poppler renders it; None where Poppler is not installed."""
    if not shutil.which("pdftoppm"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-png", "-r", "72", "-singlefile", path, f"{tmp}/page"], check=True)
        img = Image.open(f"{tmp}/page.png").convert("L")
        return sum(n for n, v in img.getcolors(1 << 16) if v < 100)


def main():
    args = sys.argv[1:]
    colors = []
    if args and args[0] == "--colors":
        colors, args = args[1].split(","), args[2:]
    out = {p: (pdf(p) if p.endswith(".pdf") else png(p, colors)) for p in args}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
