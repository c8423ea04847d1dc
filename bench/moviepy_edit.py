"""The benchmark edit in MoviePy (bench/run): what a Python user would write.

Same trims, speeds, rotation, crops, scale and colour math as the ReelFarm session.
Where MoviePy cannot do the same thing, it is said here and in docs/benchmarks.md:
  * speed changes resample the audio (pitch shifts); MoviePy has no pitch-preserving stretch;
  * the .cube LUT is applied nearest-neighbour with numpy (MoviePy has no 3D LUT);
  * frames are picked at t·fps by MoviePy's own rule, not the frame on screen (docs/timeline.md).
usage: python moviepy_edit.py Q OUT.mp4   (Q: output seconds per segment)
"""
import sys

import numpy as np
from moviepy import VideoFileClip, concatenate_videoclips, vfx

q = float(sys.argv[1])
out = sys.argv[2]
B, C, S, LUT_MIX = 0.06, 1.15, 1.4, 0.8


def read_cube(path):
    size, rows = 0, []
    for line in open(path):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if parts[0] == "LUT_3D_SIZE":
            size = int(parts[1])
        elif len(parts) == 3:
            try:
                rows.append([float(p) for p in parts])
            except ValueError:
                pass
    # .cube order: red fastest, then green, then blue.
    return size, np.array(rows, dtype=np.float32).reshape(size, size, size, 3)


size, table = read_cube("look.cube")
weights = np.array([0.2125, 0.7154, 0.0721], dtype=np.float32)


def colour(frame):
    x = frame.astype(np.float32) / 255
    x = np.clip((np.clip(x + B, 0, 1) - 0.5) * C + 0.5, 0, 1)          # brightness, contrast
    luma = (x @ weights)[..., None]
    x = np.clip(luma + (x - luma) * S, 0, 1)                              # saturation
    i = np.rint(x * (size - 1)).astype(np.intp)
    looked = table[i[..., 2], i[..., 1], i[..., 0]]                      # LUT, nearest
    x = x * (1 - LUT_MIX) + looked * LUT_MIX
    return (x * 255 + 0.5).astype(np.uint8)


def finish(clip):
    return clip.resized((1920, 1080)).image_transform(colour)


land = VideoFileClip("land.mp4")
port = VideoFileClip("port.mp4")   # ffmpeg decodes with the display matrix applied: 1080x1920
clips = [
    finish(land.subclipped(1, 1 + q / 2).with_effects([vfx.MultiplySpeed(0.5)])),
    finish(port.subclipped(0.5, 0.5 + q).cropped(x1=0, y1=656, width=1080, height=607)),
    finish(land.subclipped(0, 2 * q).with_effects([vfx.MultiplySpeed(2)]).cropped(x1=160, y1=90, width=1600, height=900)),
    finish(land.subclipped(2, 2 + q).rotated(-90).cropped(x1=0, y1=656, width=1080, height=607)),
]
concatenate_videoclips(clips).write_videofile(
    out, fps=30, codec="libx264", preset="veryfast", audio_codec="aac", audio_bitrate="160k",
    ffmpeg_params=["-crf", "20", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p"],
    logger=None)
