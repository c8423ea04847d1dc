#!/usr/bin/env bash
# Makes the media the example sessions refer to, with `reel sample` (nothing downloaded).
# Usage: examples/make-media.sh [DIR]   (default: the examples directory itself)
# REEL may name the reel binary (default: .build/debug/reel, then reel on PATH).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here}
reel=${REEL:-}
if [ -z "$reel" ]; then
  if [ -x "$here/../.build/debug/reel" ]; then reel="$here/../.build/debug/reel"; else reel=reel; fi
fi
mkdir -p "$dir/media"
"$reel" sample "$dir/media/landscape.mp4" --duration 4 --size 640x360 --fps 30
"$reel" sample "$dir/media/portrait.mp4" --duration 3 --size 640x360 --fps 30 --rotate 90 --tone 660
"$reel" sample "$dir/media/action-60fps.mp4" --duration 2 --size 640x360 --fps 60 --tone 550
"$reel" sample "$dir/media/silent-24fps.mp4" --duration 2 --size 480x270 --fps 24 --no-audio --pattern frame-index
"$reel" sample "$dir/media/photo.jpg" --size 800x600 --pattern quadrants

# Media as phones and cameras write it (docs/rendering.md), made with ffmpeg: an HLG HEVC
# clip (phone-mix.json turns it portrait with preferredTransform: ffmpeg 5.1 cannot write
# a display matrix), a 10-bit 4:2:2 ProRes clip, a variable-frame-rate clip, 5.1 sound.
ff() { ffmpeg -v error -y "$@"; }
ff -f lavfi -i "testsrc2=size=640x360:rate=30:duration=3" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=3" \
  -vf "format=yuv420p10le,lutyuv=y='64+(val-64)*0.6'" -c:v libx265 -tag:v hvc1 \
  -x265-params "colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:log-level=error" \
  -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc \
  -c:a aac "$dir/media/phone-hlg-portrait.mov"
ff -f lavfi -i "testsrc2=size=640x360:rate=25:duration=2" -f lavfi -i "sine=frequency=330:sample_rate=48000:duration=2" \
  -c:v prores_ks -profile:v 3 -pix_fmt yuv422p10le -c:a pcm_s24le "$dir/media/camera-prores.mov"
ff -f lavfi -i "testsrc2=size=640x360:rate=30:duration=2" -f lavfi -i "sine=frequency=550:sample_rate=44100:duration=2" \
  -vf "select='not(between(n,20,34))'" -fps_mode vfr -c:v libx264 -ac 1 -c:a aac "$dir/media/phone-vfr.mp4"
ff -f lavfi -i "testsrc2=size=640x360:rate=30:duration=2" \
  -f lavfi -i "aevalsrc='0.3*sin(2*PI*440*t)|0.3*sin(2*PI*660*t)|0.3*sin(2*PI*880*t)|0|0.2*sin(2*PI*220*t)|0.2*sin(2*PI*330*t)':s=48000:d=2:c=5.1" \
  -c:v libx264 -c:a aac "$dir/media/surround-51.mp4"
