"""Parse SVG files as XML (a standalone figure must be well-formed XML on its own) and
print, per file, what the test checks as JSON: the root's tag and attributes, its title,
the ids it defines, the references (url(#...), href) it makes, the texts of its axis
titles, ticks and legend.

    python svg_figures.py FILE.svg...
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def texts(root, cls):
    return ["".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == cls]


def main():
    out = {}
    for path in sys.argv[1:]:
        root = ET.parse(path).getroot()
        refs = set()
        for e in root.iter():
            for k, v in e.attrib.items():
                refs.update(re.findall(r"url\(([^)]*)\)", v))
                if k.endswith("href"):
                    refs.add(v)
        title = root.find(SVG + "title")
        out[path] = {
            "tag": root.tag,
            "attrib": root.attrib,
            "title": title.text if title is not None else None,
            "ids": sorted(e.get("id") for e in root.iter() if e.get("id")),
            "refs": sorted(refs),
            "axis_titles": texts(root, "axis-title"),
            "ticks": texts(root, "tick"),
            "legend": ["".join(g.itertext()) for g in root.iter(SVG + "g") if g.get("class") == "legend"],
            "ci": [(e.get("data-ci-low"), e.get("data-ci-high")) for e in root.iter(SVG + "path") if e.get("class") == "ci"],
            "n": ["".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == "n"],
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
