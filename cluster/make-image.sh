#!/usr/bin/env bash
# Builds the `reelfarm` image without a registry (docs/operations.md, "Images"):
#   1. a Debian bookworm base made with debootstrap from the apt mirror this machine uses,
#      imported as reelfarm-base:bookworm (once; reused while it exists);
#   2. `reel` built here with --static-swift-stdlib;
#   3. cluster/Dockerfile.local: Debian's FFmpeg, libzmq, liblz4, SQLite, libpq, libheif from the
#      mirror, the binary and the shipped looks.
#
#   cluster/make-image.sh [--tag reelfarm] [--rebuild-base]
#
# Needs root (debootstrap) and a Docker daemon that answers.
set -euo pipefail
cd "$(dirname "$0")/.."
TAG=reelfarm
BASE=reelfarm-base:bookworm
REBUILD_BASE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) TAG=$2; shift 2 ;;
    --rebuild-base) REBUILD_BASE=1; shift ;;
    *) echo "usage: cluster/make-image.sh [--tag NAME] [--rebuild-base]" >&2; exit 2 ;;
  esac
done
DOCKER=${DOCKER:-docker}
$DOCKER info >/dev/null 2>&1 || { echo "make-image: no Docker daemon answers ($DOCKER info failed)" >&2; exit 1; }

if [ "$REBUILD_BASE" = 1 ] || ! $DOCKER image inspect "$BASE" >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "make-image: debootstrap needs root" >&2; exit 1; }
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  # The mirror apt already uses here: deb822 sources first, then the one-line format.
  mirror=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2; exit}')
  [ -n "$mirror" ] || mirror=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2; exit}')
  [ -n "$mirror" ] || { echo "make-image: no apt mirror found in /etc/apt/sources.list*" >&2; exit 1; }
  rootfs=$(mktemp -d)
  trap 'rm -rf "$rootfs"' EXIT
  echo "make-image: debootstrap bookworm from $mirror" >&2
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
  tar -C "$rootfs" -c . | $DOCKER import - "$BASE" >/dev/null
fi

echo "make-image: building reel (release, static Swift runtime)" >&2
# The static Foundation's URLSession (webhooks) calls libcurl, which is linked from Debian.
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4-openssl-dev >/dev/null
static=(-c release --product reel --static-swift-stdlib -Xlinker -lcurl)
build_log=$(mktemp)
if ! swift build "${static[@]}" >"$build_log" 2>&1; then
  grep -E 'error' "$build_log" >&2; rm -f "$build_log"; exit 1
fi
rm -f "$build_log"
binary=$(swift build "${static[@]}" --show-bin-path)/reel
[ -x "$binary" ] || { echo "make-image: the build did not produce $binary" >&2; exit 1; }

context=$(mktemp -d)
trap 'rm -rf "$context" ${rootfs:+"$rootfs"}' EXIT
cp "$binary" "$context/reel"
mkdir -p "$context/looks" && cp looks/*.png looks/*.json "$context/looks/"
$DOCKER build -q -f cluster/Dockerfile.local --build-arg BASE="$BASE" -t "$TAG" "$context" >/dev/null
echo "make-image: $TAG: $($DOCKER run --rm "$TAG" --version)" >&2
