#!/usr/bin/env python3
"""Draws docs/images/modules.svg from Package.swift: the project's modules in layers, each
above the modules it depends on, with the packages it uses named in its box. The picture
is made, not drawn by hand, so it cannot drift from the manifest.

    swift package describe --type json | docs/images/modules.py > docs/images/modules.svg
    swift package describe --type json | docs/images/modules.py --check docs/images/modules.svg

`--check` exits 1 if the file is not what the manifest draws (run by `make test`).
"""
import json
import sys
from html import escape

package = json.load(sys.stdin)
# The modules of the product: no tests, no benchmarks.
targets = {t["name"]: t for t in package["targets"]
           if t["type"] in ("library", "executable", "system-target") and not t["path"].startswith("bench")
           and t["name"] != "ReelTestSupport"}
deps = {name: [d for d in (t.get("target_dependencies") or []) if d in targets] for name, t in targets.items()}
products = {name: sorted(set(t.get("product_dependencies") or [])) for name, t in targets.items()}

depth: dict[str, int] = {}
def level(name: str) -> int:
    if name not in depth:
        depth[name] = 1 + max((level(d) for d in deps[name]), default=-1)
    return depth[name]
for name in targets:
    level(name)
rows = max(depth.values()) + 1
layers = [sorted((n for n in targets if depth[n] == r), key=lambda n: (targets[n]["type"] == "system-target", n))
          for r in range(rows)]

BOX_H, ROW_GAP, MARGIN, CHAR_W, GAP = 46, 46, 16, 7.2, 14
def width(name: str) -> float:
    extra = ", ".join(products[name])
    return max(len(name) * 8.2, len(extra) * 6.2, 70) + 20
row_widths = [sum(width(n) for n in layer) + GAP * (len(layer) - 1) for layer in layers]
total_w = max(row_widths) + 2 * MARGIN
total_h = rows * (BOX_H + ROW_GAP) + 20
position = {}
for r, layer in enumerate(layers):
    y = total_h - (r + 1) * (BOX_H + ROW_GAP) + ROW_GAP / 2
    x = MARGIN + (total_w - 2 * MARGIN - row_widths[r]) / 2
    for name in layer:
        position[name] = (x, y, width(name))
        x += width(name) + GAP

out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
       f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
       '  <defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
       '<path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
       '  <text x="10" y="16" fill="#666">drawn from Package.swift by docs/images/modules.py: each module imports only '
       'the modules below it that an arrow reaches; grey: system libraries</text>']
for name in sorted(targets):
    x, y, w = position[name]
    for d in deps[name]:
        dx, dy, dw = position[d]
        out.append(f'  <line x1="{x + w / 2:.1f}" y1="{y + BOX_H:.1f}" x2="{dx + dw / 2:.1f}" y2="{dy:.1f}" '
                   'stroke="#99a" stroke-width="1" marker-end="url(#a)"/>')
for name in sorted(targets):
    x, y, w = position[name]
    system = targets[name]["type"] == "system-target"
    fill = "#eee" if system else "#fff"
    out.append(f'  <rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{BOX_H}" rx="8" fill="{fill}" stroke="#678"/>')
    label = name + (" (reel)" if name == "ReelCLI" else "")
    out.append(f'  <text x="{x + 10:.1f}" y="{y + 19:.1f}" font-weight="bold">{escape(label)}</text>')
    if products[name]:
        out.append(f'  <text x="{x + 10:.1f}" y="{y + 36:.1f}" font-size="10" fill="#555">{escape(", ".join(products[name]))}</text>')
out.append("</svg>")
svg = "\n".join(out) + "\n"

if len(sys.argv) == 3 and sys.argv[1] == "--check":
    with open(sys.argv[2]) as f:
        if f.read() != svg:
            sys.exit(f"{sys.argv[2]} is not what Package.swift draws: run docs/images/modules.py (its docstring says how)")
    print(f"{sys.argv[2]} matches Package.swift ({len(targets)} modules)")
else:
    sys.stdout.write(svg)
