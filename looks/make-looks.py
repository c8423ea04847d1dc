#!/usr/bin/env python3
"""Writes ReelFarm's lookup images (docs/filters.md, "Named looks").

Each look is a colour transform written down below as curves; this script samples it
on GPUImage's 512x512 lookup lattice (8x8 tiles of 64x64: red across a tile, green down
it, blue from tile to tile) and writes NAME.png. The nine SDK names get *stand-ins* of
ReelFarm's own design, marked with a PNG text chunk `reelfarm-stand-in` so that every
machine that reads the file knows what it is. Output is byte-for-byte reproducible.

Usage: looks/make-looks.py [DIR] [--only NAME]   (default DIR: this script's directory)
"""
import struct
import sys
import zlib
from pathlib import Path

SIZE = 512


def curve(points):
    """Piecewise-linear tone curve through (x, y) control points on [0, 1]."""
    def f(x):
        x = min(max(x, 0.0), 1.0)
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            if x <= x1:
                return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        return points[-1][1]
    return f


def luma(r, g, b):
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def make(red=((0, 0), (1, 1)), green=((0, 0), (1, 1)), blue=((0, 0), (1, 1)), saturation=1.0, contrast=0.0,
         shadows=(0, 0, 0), highlights=(0, 0, 0), mono=False):
    """A look: an S-curve of strength `contrast`, per-channel curves, a saturation factor,
    and split toning (colour added to shadows and highlights, weighted by luma)."""
    fr, fg, fb = curve(red), curve(green), curve(blue)

    def s_curve(x):
        smooth = x * x * (3 - 2 * x)
        return x + (smooth - x) * contrast

    def look(r, g, b):
        r, g, b = s_curve(r), s_curve(g), s_curve(b)
        r, g, b = fr(r), fg(g), fb(b)
        y = luma(r, g, b)
        if mono:
            r = g = b = y
        else:
            r, g, b = (y + (c - y) * saturation for c in (r, g, b))
        dark, light = (1 - y) ** 2, y ** 2
        r += shadows[0] * dark + highlights[0] * light
        g += shadows[1] * dark + highlights[1] * light
        b += shadows[2] * dark + highlights[2] * light
        return r, g, b
    return look


# The stand-ins for the SDK's nine looks, and ReelFarm's own. Curves are (input, output).
LOOKS = {
    # warm, gently faded blacks, a touch more colour
    "wilshire": (True, make(red=((0, 0.06), (0.5, 0.56), (1, 1)), green=((0, 0.04), (1, 0.98)),
                            blue=((0, 0.05), (1, 0.9)), saturation=1.1, contrast=0.15)),
    # cool and quiet: blue shadows, less colour
    "montana": (True, make(red=((0, 0.02), (1, 0.95)), blue=((0, 0.08), (1, 1)), saturation=0.8,
                           contrast=0.1, shadows=(-0.02, 0.0, 0.05))),
    # bright and airy: lifted mid-tones, soft contrast
    "sanVicente": (True, make(red=((0, 0.05), (0.5, 0.6), (1, 1)), green=((0, 0.05), (0.5, 0.6), (1, 1)),
                              blue=((0, 0.07), (0.5, 0.62), (1, 1)), saturation=0.9)),
    # punchy: strong S-curve, rich colour, warm highlights
    "melrose": (True, make(saturation=1.25, contrast=0.45, highlights=(0.04, 0.01, -0.03))),
    # faded film: lifted blacks, rolled-off whites, green-tinted shadows
    "sepulveda": (True, make(red=((0, 0.1), (1, 0.92)), green=((0, 0.11), (1, 0.93)), blue=((0, 0.1), (1, 0.9)),
                             saturation=0.85, shadows=(0.0, 0.03, 0.0))),
    # teal shadows, orange highlights
    "laCienega": (True, make(saturation=1.05, contrast=0.25, shadows=(-0.04, 0.02, 0.06),
                             highlights=(0.07, 0.02, -0.05))),
    # vintage: warm, faded, muted
    "abbotKinney": (True, make(red=((0, 0.08), (1, 1)), green=((0, 0.06), (1, 0.95)), blue=((0, 0.04), (1, 0.82)),
                               saturation=0.75, contrast=0.1)),
    # black and white with depth
    "mulholland": (True, make(mono=True, contrast=0.35)),
    # golden hour: warm and magenta highlights
    "sunset": (True, make(red=((0, 0.03), (0.5, 0.58), (1, 1)), blue=((0, 0), (1, 0.85)), saturation=1.15,
                          highlights=(0.05, -0.01, 0.02))),
    # ReelFarm's own
    "warm": (False, make(red=((0, 0), (0.5, 0.54), (1, 1)), blue=((0, 0), (0.5, 0.45), (1, 0.95)))),
    "mono": (False, make(mono=True)),
    "identity": (False, make()),
}


def lattice_png(look, stand_in_for=None):
    rows = []
    to8 = lambda v: max(0, min(255, int(v * 255 + 0.5)))
    for py in range(SIZE):
        row = bytearray([0])   # filter: none
        tile_row, g_index = divmod(py, 64)
        for px in range(SIZE):
            tile_col, r_index = divmod(px, 64)
            b_index = tile_row * 8 + tile_col
            r, g, b = look(r_index / 63, g_index / 63, b_index / 63)
            row += bytes((to8(r), to8(g), to8(b)))
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0))
    if stand_in_for:
        png += chunk(b"tEXt", b"reelfarm-stand-in\x00" + stand_in_for.encode())
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
    return png


def main(argv):
    out = Path(__file__).resolve().parent
    only = None
    args = list(argv)
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    if args:
        out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, (stand_in, look) in LOOKS.items():
        if only and name != only:
            continue
        (out / f"{name}.png").write_bytes(lattice_png(look, name if stand_in else None))


if __name__ == "__main__":
    main(sys.argv[1:])
