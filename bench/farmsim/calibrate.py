"""Measured costs from a real run: a `--trace` file and the job's plan (`reel inspect --json`).

The run to calibrate from is one worker with one slot (`reel render --workers 1 --trace`),
so that no shard shares a core: each attempt's time is its cost on one core.
"""
from __future__ import annotations

import json
import os
import subprocess
import statistics

from .model import Costs, Export, Segment


def read_trace(path: str) -> dict:
    """The last complete job of a trace: its lines by kind."""
    jobs: dict[str, dict] = {}
    with open(path) as f:
        for raw in f:
            line = json.loads(raw)
            job = jobs.setdefault(line["job"], {"attempts": []})
            if line["event"] == "job":
                job["created"] = line["time"]
                job["shards"] = line["shards"]
            elif line["event"] == "attempt":
                job["attempts"].append(line)
            elif line["event"] == "jobEnded":
                job["ended"] = line["time"]
                job["state"] = line["state"]
    ended = [j for j in jobs.values() if j.get("state") == "done" and "created" in j]
    if not ended:
        raise ValueError(f"{path}: no finished job in the trace")
    return ended[-1]


def measured(trace: dict) -> dict:
    """What a run measured: wall time, first chunk, attempts, backup copies."""
    done = [a for a in trace["attempts"] if a["outcome"] == "done" and a.get("started")]
    video = [a for a in done if a["kind"] == "video"]
    return {
        "wall_seconds": trace["ended"] - trace["created"],
        "first_chunk_seconds": min(a["time"] for a in video) - trace["created"] if video else None,
        "attempts": len([a for a in trace["attempts"] if a.get("started")]),
        "backup_copies": len([a for a in trace["attempts"] if a["outcome"] == "beaten"]),
        "chunk_bytes": sum(a.get("chunkBytes", 0) for a in done),
    }


def idle(trace: dict) -> dict:
    """Where a one-slot worker waits (docs/scale.md, "Idle time between shards"): before the
    first shard, between a chunk stored and the next shard sent, inside an attempt beyond the
    worker's own render time, and after the last chunk."""
    done = sorted((a for a in trace["attempts"] if a["outcome"] == "done" and a.get("started")),
                  key=lambda a: a["started"])
    gaps = [b["started"] - a["time"] for a, b in zip(done, done[1:]) if a["worker"] == b["worker"]]
    inside = [(a["time"] - a["started"]) - a["renderSeconds"] for a in done if "renderSeconds" in a]
    return {
        "before_first_shard": done[0]["started"] - trace["created"] if done else 0.0,
        "between_shards": sum(gaps),
        "between_shards_each": statistics.median(gaps) if gaps else 0.0,
        "inside_attempts": sum(inside),
        "inside_attempts_each": statistics.median(inside) if inside else 0.0,
        "after_last_chunk": trace["ended"] - max(a["time"] for a in done) if done else 0.0,
        "wall": trace["ended"] - trace["created"],
        "render": sum(a["renderSeconds"] for a in done if "renderSeconds" in a),
        "shards": len(done),
    }


def calibrate(trace_path: str, plan: dict, media_dir: str | None = None,
              audio_traces: tuple[str, ...] = ()) -> tuple[Costs, Export]:
    """Costs fitted to a one-worker, one-slot trace, and the export its plan describes."""
    trace = read_trace(trace_path)
    done = [a for a in trace["attempts"] if a["outcome"] == "done" and a.get("started")]
    video = [a for a in done if a["kind"] == "video"]
    audio = [a for a in done if a["kind"] != "video"]
    if not video:
        raise ValueError(f"{trace_path}: no finished video attempt to measure")

    def cost(a):  # the worker's own time where the trace has it, else the coordinator's
        return a.get("renderSeconds", a["time"] - a["started"])

    costs = Costs()
    fixed, slope = fit_line([a["frames"] for a in video], [cost(a) for a in video])
    costs.shard_fixed_seconds = fixed
    costs.default_frame_seconds = slope
    by_segment: dict[int, list] = {}
    for a in video:
        by_segment.setdefault(a["segment"], []).append(a)
    costs.frame_seconds = {
        str(s): max(1e-4, sum(cost(a) - fixed for a in shards) / sum(a["frames"] for a in shards))
        for s, shards in by_segment.items()
    }
    export = export_of(plan, media_dir)
    # The audio track's pieces, each by the seconds it encodes (its own, its warm-up and its
    # post-roll); further traces of longer one-segment jobs (`--audio-trace`) give the line
    # through its cost by encoded seconds. Such a job's sound is cut inside its segment
    # into pieces of equal length (docs/rendering.md, "Audio in pieces"): each encodes its
    # own share, and every one after the first the 5.12 s of warm-up before it.
    def encoded(a):
        shard = plan["shards"][a["shard"]]
        start = shard["outputStartFrame"]
        return export.audio_encoded_seconds((start, start + shard.get("audioFrames", export.total_frames)))
    points = [(encoded(a), cost(a)) for a in audio]
    for extra in audio_traces:
        other = read_trace(extra)
        done_other = [a for a in other["attempts"] if a["outcome"] == "done" and a.get("started")]
        seconds = sum(a["frames"] for a in done_other if a["kind"] == "video") / export.fps
        pieces = sorted((a for a in done_other if a["kind"] == "audio"), key=lambda a: a["shard"])
        points += [(seconds / len(pieces) + (INSIDE_WARM_UP_SECONDS if i else 0.0), cost(a)) for i, a in enumerate(pieces)]
    if len(points) > 1:
        costs.audio_fixed_seconds, costs.audio_seconds_per_output_second = fit_line(*zip(*points))
    elif points:
        costs.audio_fixed_seconds = 0.0
        costs.audio_seconds_per_output_second = points[0][1] / points[0][0]
    costs.chunk_bytes_per_frame = sum(a.get("chunkBytes", 0) for a in video) / sum(a["frames"] for a in video)
    where = idle(trace)
    costs.job_start_seconds = where["before_first_shard"]
    costs.handoff_seconds = where["between_shards_each"] + where["inside_attempts_each"]
    # The file is written as the chunks arrive: after the last one only the index is left
    # (its writing speed while they arrive is bench/assembly's, in the defaults).
    costs.assembly_fixed_seconds = where["after_last_chunk"]
    return costs, export


# The warm-up a piece cut inside a segment encodes before its own first packet.
INSIDE_WARM_UP_SECONDS = 5.12


def fit_line(xs, ys) -> tuple[float, float]:
    """Least squares y = a + b x, with a kept within [0, min y]."""
    xs, ys = list(xs), list(ys)
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0, my / mx
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = min(max(0.0, my - b * mx), min(ys))
    b = sum(y - a for y in ys) / sum(xs)
    return a, b


def export_of(plan: dict, media_dir: str | None) -> Export:
    """The segments of `reel inspect --json`, with each source's bit rate and keyframe
    interval read by ffprobe where the media are at hand."""
    segments = []
    for i, s in enumerate(plan["segments"]):
        rate, keys = 2e6, []
        if media_dir:
            rate, keys = probe(os.path.join(media_dir, s["source"]))
        segments.append(Segment(i, s["frameCount"], s["speed"], rate, keyframes=keys,
                                first_source_time=s["firstSourceTime"]))
    audio = any(t["kind"] == "audio" for t in plan["shards"])
    sources = len({s["source"] for s in plan["segments"]})
    return Export(segments, fps=plan["frameRate"], audio=audio, sources=sources)


def probe(path: str) -> tuple[float, list[float]]:
    """A file's bytes per second and its video keyframes' times."""
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration,size",
                          "-of", "json", path], capture_output=True, text=True, check=True).stdout
    fmt = json.loads(out)["format"]
    duration = float(fmt["duration"])
    keys = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-skip_frame", "nokey",
                           "-show_entries", "frame=pts_time", "-of", "csv=p=0", path],
                          capture_output=True, text=True, check=True).stdout.split()
    return int(fmt["size"]) / duration, sorted(float(k.strip(",")) for k in keys if k.strip(","))
