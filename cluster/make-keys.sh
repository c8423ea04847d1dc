#!/usr/bin/env bash
# Makes the keys a farm needs into DIR: coordinator, worker (shared by the workers) and
# client key pairs, and the coordinator's allow-list (worker + client public keys).
#   cluster/make-keys.sh DIR      (REEL: the reel binary, default reel on PATH)
set -euo pipefail
dir=${1:?usage: make-keys.sh DIR}
reel=${REEL:-reel}
mkdir -p "$dir"
for name in coordinator worker client; do "$reel" keygen "$dir/$name" >/dev/null; done
{ printf '%s worker\n' "$(cat "$dir/worker.pub")"; printf '%s client\n' "$(cat "$dir/client.pub")"; } > "$dir/authorized-keys"
echo "keys in $dir; give workers worker.key + coordinator.pub, clients client.key + coordinator.pub" >&2
