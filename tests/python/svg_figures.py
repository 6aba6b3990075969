"""Parse SVG files as XML (a standalone figure must be well-formed XML on its own) and
print, per file, what the test checks as JSON: the root's tag and attributes, its title,
the ids it defines, the references (url(#...), href) it makes, the texts of its axis
titles, ticks and legend; a step curve's vertices, a band's outline, and the gridlines with
the values they mark (so a test maps the drawing back to hours and shares).

    python svg_figures.py FILE.svg...
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def texts(root, cls):
    return ["".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == cls]


def points(e):
    return [[float(v) for v in p.split(",")] for p in e.get("points").split()]


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
            # Step curves: each polyline of class "step", its series, time scale and vertices.
            "steps": [{"series": e.get("data-series"), "scale": e.get("data-scale"), "points": points(e)} for e in root.iter(SVG + "polyline") if e.get("class") == "step"],
            "bands": [points(e) for e in root.iter(SVG + "polygon") if e.get("class") == "band"],
            # Gridlines with the value they mark: (value, x1, y1) per axis.
            "grid_x": [(float(e.get("data-value")), float(e.get("x1")), float(e.get("y1"))) for e in root.iter(SVG + "line") if e.get("class") == "grid-x"],
            "grid_y": [(float(e.get("data-value")), float(e.get("x1")), float(e.get("y1"))) for e in root.iter(SVG + "line") if e.get("class") == "grid-y"],
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
