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
