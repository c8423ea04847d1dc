#!/usr/bin/env python3
"""Drives a real farm through the reelfarm package, as a back end would (the test starts
the coordinator, the worker and a connection-dropping proxy; docs/api.md, "Clients").

    farm_check.py PROXIED_API API ALICE BOB SESSION_JSON A_MP4 B_MP4 OUT_MP4 EVENTS_JSON

Exports the session with two clips through PROXIED_API (the proxy drops an upload part and
the event stream once), downloads the output to OUT_MP4 and writes each status it saw to
EVENTS_JSON; then, straight to API: a refused session raises ReelFarmError with the JSON
path, Bob gets the media as missing and Alice's job as unknown. Prints one line per
step; exits 1 with the reason on the first failure.
"""
import json
import sys
from pathlib import Path

import reelfarm

proxied, api, alice_token, bob_token, session_path, a, b, out, events_path = sys.argv[1:10]
session = json.loads(Path(session_path).read_text())
media = {"a.mp4": Path(a), "b.mp4": Path(b)}

alice = reelfarm.Client(proxied, alice_token, upload_part_bytes=32 << 10)
seen: list[reelfarm.JobStatus] = []
done = alice.export(session, media, settings={"keyframeIntervalSeconds": 0.5}, progress=seen.append)
assert done.state is reelfarm.JobState.DONE and done.frames_done == done.total_frames, done
alice.download(done.job_id, Path(out))
Path(events_path).write_text(json.dumps([[s.state.value, s.frames_done, s.shards.done] for s in seen]))
print(f"exported {done.job_id}: {len(seen)} statuses, output {Path(out).stat().st_size} bytes")

direct = reelfarm.Client(api, alice_token)
files = {name: reelfarm.content_id_of(path) for name, path in media.items()}
broken = json.loads(json.dumps(session))
broken["video"]["videoSegments"][0]["trimDuration"] = 100
try:
    direct.submit(broken, files)
    sys.exit("a trim past the clip was accepted")
except reelfarm.ReelFarmError as error:
    assert error.code is reelfarm.FarmErrorCode.INVALID_INPUT and error.status == 422, error
    assert any(p.path.startswith("video.videoSegments[0]") for p in error.problems), error.problems
    print("refused session:", error.problems[0])

bob = reelfarm.Client(api, bob_token)
try:
    bob.submit(session, files)
    sys.exit("another client's media were confirmed")
except reelfarm.ReelFarmError as error:
    assert error.code is reelfarm.FarmErrorCode.MISSING_MEDIA and set(error.missing) == set(files.values()), error
    print("bob's submission: media missing")
try:
    bob.status(done.job_id)
    sys.exit("another tenant read the job")
except reelfarm.ReelFarmError as error:
    assert error.code is reelfarm.FarmErrorCode.NO_SUCH_JOB and error.status == 404, error
    print("bob reading alice's job:", error.code.value)
png = direct.picture("thumbnail", done.job_id, 0, size="80x48", format="png")
assert png.startswith(b"\x89PNG"), png[:8]
jpeg = direct.picture("frame", done.job_id, 1, time=0.5)
assert jpeg.startswith(b"\xff\xd8"), jpeg[:8]
batch = direct.submit_batch(session, files, [{"name": "same", "replace": {}}], settings={"keyframeIntervalSeconds": 0.5})
assert len(batch.variants) == 1 and batch.variants[0].variant == "same" and direct.batch(batch.batch_id).batch_id == batch.batch_id, batch
print("pictures and a batch of one variant")
url = direct.output_url(done.job_id, seconds=60)
assert url.startswith(api.rsplit("/v1", 1)[0] + "/v1/jobs/" + done.job_id + "/output?"), url
print("signed output URL:", url.split("?")[0])
