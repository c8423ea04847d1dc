#!/usr/bin/env bash
# A farm across three "hosts" on one Linux machine: the coordinator and two workers each
# in their own network namespace, joined by a bridge, talking CURVE over real TCP on
# non-loopback addresses. The client submits from the host, watches, fetches, and the
# result must be byte-identical to `reel render --in-process`. Needs root (ip netns).
#
#   cluster/netns-farm.sh [SESSION.json]      (default: examples/multi-segment.json)
#   REEL=path/to/reel cluster/netns-farm.sh   (default: .build/debug/reel)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reel=${REEL:-$root/.build/debug/reel}
session=${1:-$root/examples/multi-segment.json}
[ "$(id -u)" = 0 ] || { echo "netns-farm.sh needs root (ip netns)" >&2; exit 2; }
[ -x "$reel" ] || { echo "no reel at $reel: swift build first" >&2; exit 2; }
if [ "$session" = "$root/examples/multi-segment.json" ] && [ ! -d "$root/examples/media" ]; then
  REEL=$reel "$root/examples/make-media.sh" >/dev/null
fi

work=$(mktemp -d /tmp/reel-netns.XXXXXX)
prefix=rf$$
bridge=${prefix}br
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for host in coord w1 w2; do ip netns del "$prefix-$host" 2>/dev/null || true; done
  ip link del "$bridge" 2>/dev/null || true
}
trap cleanup EXIT

# The network: 10.77.0.0/24 on a bridge; the host itself is .254.
ip link add "$bridge" type bridge
ip addr add 10.77.0.254/24 dev "$bridge"
ip link set "$bridge" up
address=1
for host in coord w1 w2; do
  ns=$prefix-$host
  ip netns add "$ns"
  ip link add "$ns-h" type veth peer name eth0 netns "$ns"
  ip link set "$ns-h" master "$bridge" up
  ip -n "$ns" addr add "10.77.0.$address/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  address=$((address + 1))
done
endpoint=tcp://10.77.0.1:7700

# Keys: one for the coordinator, one shared by the workers, one for this client.
for name in coordinator worker client; do "$reel" keygen "$work/$name" >/dev/null; done
{ printf '%s worker\n' "$(cat "$work/worker.pub")"; printf '%s client\n' "$(cat "$work/client.pub")"; } > "$work/authorized-keys"

ip netns exec "$prefix-coord" "$reel" coordinator --bind "$endpoint" --state-dir "$work/state" \
  --curve-key "$work/coordinator.key" --authorized-keys "$work/authorized-keys" 2>"$work/coordinator.log" &
pids+=($!)
for w in w1 w2; do
  # No shared media root: the workers fetch the media from the coordinator over the wire.
  ip netns exec "$prefix-$w" "$reel" worker --connect "$endpoint" --slots 1 --cache-dir "$work/cache-$w" \
    --curve-key "$work/worker.key" --server-key "$work/coordinator.pub" 2>"$work/worker-$w.log" &
  pids+=($!)
done

export REEL_COORDINATOR=$endpoint REEL_CURVE_KEY=$work/client.key REEL_SERVER_KEY=$work/coordinator.pub
for _ in $(seq 50); do
  [ "$("$reel" workers --json 2>/dev/null | grep -c workerID || true)" = 2 ] && break
  sleep 0.2
done
"$reel" workers
job=$("$reel" submit "$session" --media-root "$(dirname "$session")")
echo "job $job"
"$reel" watch "$job"
"$reel" fetch "$job" -o "$work/farm.mp4"
"$reel" render "$session" -o "$work/local.mp4" --in-process --workers 1 >/dev/null 2>&1
if cmp -s "$work/farm.mp4" "$work/local.mp4"; then
  echo "farm output is byte-identical to the local render ($(stat -c %s "$work/farm.mp4") bytes)"
else
  echo "farm output differs from the local render" >&2
  exit 1
fi
grep -h "fetching sha256" "$work"/worker-*.log | head -2 || true
