#!/usr/bin/env bash
# The Compose farm in real containers (docs/operations.md, "Compose"):
#   - installs docker.io and docker-compose if missing, starts dockerd if none answers
#     (and stops the one it started, by pid, on exit);
#   - builds the image (cluster/make-image.sh), brings up a coordinator (volume, health
#     check) and 2 workers, renders a session through the published port with this
#     machine's `reel submit`/`watch`/`fetch`, kills a worker container mid-job, checks
#     the output is byte-identical to a local render, scales to 3 workers, renders again;
#   - tears everything down (`down -v -t 5`) and prints "N passed, N failed".
# A machine that cannot run a Docker daemon fails here with the reason; it is not skipped.
#
#   sudo cluster/test-compose.sh
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
passed=0 failed=0
check() {   # check NAME COMMAND...: one line per check
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok    $name"
  else failed=$((failed + 1)); echo "FAIL  $name"; fi
}
die() {
  echo "test-compose: $*" >&2
  if [ -n "${work:-}" ] && docker info >/dev/null 2>&1; then   # what the containers said
    compose ps >&2 2>&1; compose logs --tail 15 >&2 2>&1
  fi
  echo "$passed passed, $((failed + 1)) failed"
  exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (apt-get, dockerd, debootstrap)"
export DEBIAN_FRONTEND=noninteractive
missing=$(for p in docker.io docker-compose debootstrap; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "test-compose: installing" $missing >&2
  { apt-get update -qq && apt-get install -y -qq $missing >/dev/null; } || die "cannot install $missing"
fi

work=$(mktemp -d)
started_dockerd=
project=reelfarm-compose-test
compose() { docker-compose -p "$project" -f "$root/cluster/compose.yaml" --project-directory "$work" "$@"; }
cleanup() {
  compose down -v -t 5 >/dev/null 2>&1
  if [ -n "$started_dockerd" ]; then
    kill "$started_dockerd" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$started_dockerd" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if ! docker info >/dev/null 2>&1; then
  echo "test-compose: starting dockerd" >&2
  dockerd --storage-driver=overlay2 >"$work/dockerd.log" 2>&1 &
  started_dockerd=$!
  for _ in $(seq 150); do docker info >/dev/null 2>&1 && break; kill -0 "$started_dockerd" 2>/dev/null || break; sleep 0.2; done
  docker info >/dev/null 2>&1 || die "dockerd did not start: $(tail -n 3 "$work/dockerd.log" | tr '\n' ' ')"
fi

cluster/make-image.sh || die "the image did not build"
reel=$(swift build -c release --product reel --static-swift-stdlib -Xlinker -lcurl --show-bin-path)/reel
[ -x "$reel" ] || die "no $reel"

# Keys: the containers run as uid 10001 and must read theirs.
REEL=$reel cluster/make-keys.sh "$work/keys" 2>/dev/null || die "make-keys failed"
chown 10001 "$work"/keys/*.key
export REEL_COORDINATOR=tcp://127.0.0.1:7700 REEL_CURVE_KEY=$work/keys/client.key REEL_SERVER_KEY=$work/keys/coordinator.pub

# Media and a session with many short shards, and the local reference render.
# Long enough (about 30 s of 640x360 output) that a worker is surely busy when it is killed.
"$reel" sample "$work/a.mp4" --duration 21 --size 640x360 >/dev/null
"$reel" sample "$work/b.mp4" --duration 5 --size 640x360 --rotate 90 --tone 660 >/dev/null
cat > "$work/s.json" <<'JSON'
{"video": {"renderSize": [640, 360], "videoSegments": [
  {"source": "a.mp4", "trimDuration": 16, "filters": [{"type": "warmth", "normalizedIntensity": 0.4}]},
  {"source": "b.mp4", "speedMultiplier": 0.5, "trimDuration": 2, "filters": [{"type": "saturation", "normalizedIntensity": 0.5}]},
  {"source": "a.mp4", "speedMultiplier": 2, "trimStartTime": 0.5, "trimDuration": 20}
]}}
JSON
gop=(--keyframe-interval 0.5)
(cd "$work" && "$reel" render s.json -o reference.mp4 --in-process --workers 1 "${gop[@]}" 2>/dev/null) || die "local reference render failed"
# The second job differs in its encoder settings, so no chunk of the first is reused.
(cd "$work" && "$reel" render s.json -o reference2.mp4 --in-process --workers 1 "${gop[@]}" --crf 24 2>/dev/null) || die "second reference failed"

compose up -d --scale worker=2 >"$work/up.log" 2>&1 || die "compose up failed: $(tail -n 5 "$work/up.log" | tr '\n' ' ')"
coordinator=$(compose ps -q coordinator)
healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$coordinator" 2>/dev/null)" = healthy ]; }
wait_for() {   # wait_for SECONDS COMMAND...: polls an observable state, never a fixed pause
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do [ $SECONDS -ge $deadline ] && return 1; sleep 0.5; done
}
workers_connected() { [ "$("$reel" workers --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' 2>/dev/null)" = "$1" ]; }
quietly() { "$@" >/dev/null 2>&1; }
check "coordinator healthy" wait_for 60 healthy
check "2 workers joined" wait_for 60 workers_connected 2

job=$(cd "$work" && "$reel" submit s.json "${gop[@]}") || die "submit failed"
shards() { "$reel" status "$job" --json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['shards'].get('$1', 0))" 2>/dev/null; }
some_done() { [ "$(shards done)" -ge 1 ] 2>/dev/null; }
check "shards finish in the containers" wait_for 120 some_done
# The victim: a worker holding a running shard (its container's id starts its host name).
busy_worker() {
  victim=$("$reel" workers --json 2>/dev/null | python3 -c 'import json,sys; print(next((w["host"] for w in json.load(sys.stdin) if w["busy"] > 0), ""))')
  [ -n "$victim" ]
}
wait_for 60 busy_worker || victim=$(compose ps -q worker | head -n 1)
docker kill "$victim" >/dev/null
state_at_kill=$("$reel" status "$job" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
check "a worker container killed mid-job ($state_at_kill)" test "$state_at_kill" = rendering
check "the job ends done" quietly "$reel" watch "$job"
check "fetched" quietly "$reel" fetch "$job" -o "$work/farm.mp4"
check "byte-identical to the local render" cmp -s "$work/farm.mp4" "$work/reference.mp4"
# Read whole, then searched: `curl | grep -q` under pipefail fails when grep stops reading
# at its match before curl has written the rest ("curl: (23) Failed writing body").
metrics_show() { local text; text=$(curl -fsS http://127.0.0.1:9464/metrics) && grep -q "^reelfarm_frames_rendered_total [1-9]" <<<"$text"; }
check "metrics through the published port" metrics_show

compose up -d --scale worker=3 >>"$work/up.log" 2>&1 || die "scaling failed"
check "3 workers after scaling" wait_for 60 workers_connected 3
job2=$(cd "$work" && "$reel" submit s.json "${gop[@]}" --crf 24) || die "second submit failed"
check "a second job on 3 workers ends done" quietly "$reel" watch "$job2"
check "fetched again" quietly "$reel" fetch "$job2" -o "$work/farm2.mp4"
check "byte-identical again" cmp -s "$work/farm2.mp4" "$work/reference2.mp4"
rendered_by=$("$reel" status "$job2" --json | python3 -c 'import json,sys; print(len([w for w, n in json.load(sys.stdin)["workers"].items() if n > 0]))')
check "the second job rendered on $rendered_by worker(s)" test "$rendered_by" -ge 2

compose down -v -t 5 >/dev/null 2>&1
check "torn down" test -z "$(docker ps -q --filter "label=com.docker.compose.project=$project")"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
