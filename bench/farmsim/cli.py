"""`bench/farm-sim`: calibrate from a traced run, predict one farm, or sweep farm sizes."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from .calibrate import calibrate, export_of, idle, measured, read_trace
from .engine import simulate
from .model import Costs, Export, Farm


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="farm-sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser("calibrate", help="measured costs from a one-worker, one-slot --trace run")
    c.add_argument("--trace", required=True)
    c.add_argument("--plan", required=True, help="`reel inspect --json` of the session")
    c.add_argument("--media-dir", help="where the session's media are (ffprobe reads bit rates)")
    c.add_argument("--audio-trace", action="append", default=[],
                   help="a trace of a longer job: its audio track's cost gives the line by output seconds")
    c.add_argument("--probe-seconds", type=float,
                   help="seconds to probe one source (`reel inspect` of the session, divided by its sources)")
    c.add_argument("--core-efficiency", type=float,
                   help="each core's speed with all cores busy against one alone (two renders at once)")
    c.add_argument("--farm-cpu-seconds", type=float,
                   help="CPU seconds of the traced run's coordinator and workers together (from /proc)")
    c.add_argument("-o", "--output", required=True, help="costs JSON to write")

    p = sub.add_parser("predict", help="one farm: wall time, first chunk, traffic, what limits")
    add_farm(p)
    p.add_argument("--measured", help="a --trace of the same job on this farm: print the prediction's error")
    p.add_argument("--exclude-probes", action="store_true",
                   help="start the clock at the job's creation, after its probes (as a trace's wall time does)")
    p.add_argument("--replay", action="store_true",
                   help="with --measured: each shard costs what that run's worker measured (checks the farm's "
                        "scheduling and overheads, not the costs)")

    s = sub.add_parser("sweep", help="several farm sizes (and a second knob): JSON and a plot")
    add_farm(s)
    s.add_argument("--sizes", default="10,30,100,300,1000")
    s.add_argument("--vary", help="KNOB=V1,V2,… one curve each: shard-gops, keyframe-interval, media-via, "
                                  "coordinator-mbps, coordinator-cores, chunk-scale, audio, media, assembly")
    s.add_argument("--curve", action="append", default=[],
                   help="LABEL|KNOB=V;KNOB=V — a curve of its own with those knobs set (repeatable; instead of --vary)")
    s.add_argument("--plot", help="PNG to draw (needs matplotlib)")
    s.add_argument("--title", default="")

    args = parser.parse_args(argv)
    try:
        if args.command == "calibrate":
            with open(args.plan) as f:
                plan = json.load(f)
            costs, _ = calibrate(args.trace, plan, args.media_dir, tuple(args.audio_trace))
            if args.probe_seconds is not None:
                costs.probe_seconds_per_source = args.probe_seconds
            if args.core_efficiency is not None:
                costs.core_efficiency = args.core_efficiency
            if args.farm_cpu_seconds is not None:
                rendered = idle(read_trace(args.trace))["render"]
                costs.cpu_per_render_second = max(1.0, args.farm_cpu_seconds / rendered)
            with open(args.output, "w") as f:
                json.dump(costs.to_json(), f, indent=2)
            print(json.dumps({"costs": costs.to_json(), "idle": idle(read_trace(args.trace))}, indent=2))
        elif args.command == "predict":
            result, farm = predict(args, {})
            report = {"farm": asdict(farm), "prediction": asdict(result)}
            if args.measured:
                real = measured(read_trace(args.measured))
                report["measured"] = real
                report["error"] = {
                    "wall": result.wall_seconds / real["wall_seconds"] - 1,
                }
            emit(report, args.json)
        else:
            emit(sweep(args), args.json)
    except (OSError, ValueError, KeyError) as error:
        print(f"farm-sim: error: {error}", file=sys.stderr)
        return 2
    return 0


def add_farm(p: argparse.ArgumentParser):
    p.add_argument("--costs", required=True, help="from `farm-sim calibrate`")
    p.add_argument("--plan", help="`reel inspect --json` of a session (its plan is re-cut with --shard-gops)")
    p.add_argument("--media-dir")
    p.add_argument("--export", help="a synthetic export: CLIPS,SECONDS[,MBPS] phone clips at 30 fps")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--slots", type=int, default=2)
    p.add_argument("--cores", type=float, default=2.0)
    p.add_argument("--host-cores", type=float, default=0.0, help="all workers share one machine of N cores")
    p.add_argument("--shard-gops", default="2",
                   help="keyframe intervals per shard: a number, or auto (the coordinator's --planned-slots rule "
                        "for this farm's workers × slots)")
    p.add_argument("--keyframe-interval", type=float, default=2.0)
    p.add_argument("--worker-mbps", type=float, default=1000.0)
    p.add_argument("--coordinator-mbps", type=float, default=10000.0)
    p.add_argument("--origin-mbps", type=float, default=10000.0)
    p.add_argument("--latency-ms", type=float, default=0.5)
    p.add_argument("--coordinator-cores", type=int, default=2, help="cores probing a submission's sources at once")
    p.add_argument("--media-via", choices=["coordinator", "origin"], default="coordinator")
    p.add_argument("--worker-start", type=float, default=0.0, help="seconds after submission a worker joins")
    p.add_argument("--failure-rate", type=float, default=0.0)
    p.add_argument("--audio", choices=["pieces", "one-task"], default="pieces",
                   help="the audio track in pieces as the farm plans it, or as one task (before this round)")
    p.add_argument("--media", choices=["known", "new", "new-on-coordinator"], default="known",
                   help="media the farm has seen (probed on arrival); new: probed at submission by the workers, "
                        "one each at a time; new-on-coordinator: by the coordinator's cores (before this round)")
    p.add_argument("--assembly", choices=["overlapped", "after"], default="overlapped",
                   help="the file written as the chunks arrive, or after the last one (before this round)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-backup-copies", action="store_true", help="the scheduler's backup copies off")
    p.add_argument("--json", help="write the report here too")


def farm_of(args, overrides: dict) -> tuple[Farm, Export, Costs, int]:
    get = lambda name: overrides.get(name, getattr(args, name.replace("-", "_")))
    costs = Costs.load(args.costs)
    scale = float(overrides.get("chunk-scale", 1.0))
    costs.chunk_bytes_per_frame *= scale
    if overrides.get("export") or args.export:
        parts = [float(x) for x in str(overrides.get("export") or args.export).split(",")]
        export = Export.phone_clips(int(parts[0]), parts[1], mbps=parts[2] if len(parts) > 2 else 16.0)
        # Every clip of a synthetic export costs the calibration's mean a frame: its
        # segments are not the calibration session's, whose own costs are by index.
        costs.frame_seconds = {}
    elif args.plan:
        with open(args.plan) as f:
            export = export_of(json.load(f), args.media_dir)
    else:
        raise ValueError("give --plan or --export")
    export.keyframe_seconds = float(get("keyframe-interval"))
    export.audio_plan = str(get("audio"))
    export.media = str(get("media"))
    export.assembly = str(get("assembly"))
    mbps = lambda v: float(v) * 1e6 / 8
    farm = Farm(workers=int(get("workers")), slots=args.slots, cores=args.cores, host_cores=args.host_cores,
                worker_link_bps=mbps(get("worker-mbps")), coordinator_link_bps=mbps(get("coordinator-mbps")),
                origin_bps=mbps(get("origin-mbps")), latency_seconds=args.latency_ms / 1000,
                coordinator_cores=int(get("coordinator-cores")),
                media_via=str(get("media-via")), worker_start_seconds=args.worker_start,
                failure_rate=args.failure_rate, seed=args.seed, backup_copies=not args.no_backup_copies)
    for name, value in [("--workers", farm.workers), ("--slots", farm.slots), ("--cores", farm.cores),
                        ("--worker-mbps", farm.worker_link_bps), ("--coordinator-mbps", farm.coordinator_link_bps),
                        ("--origin-mbps", farm.origin_bps), ("--coordinator-cores", farm.coordinator_cores)]:
        if not value > 0:
            raise ValueError(f"{name} {value} must be above 0")
    if not 0 <= farm.failure_rate < 1:
        raise ValueError(f"--failure-rate {farm.failure_rate} is outside 0 … <1")
    gops = str(get("shard-gops"))
    if gops == "auto":
        gops = export.auto_shard_gops(farm.workers * farm.slots)
    if not str(gops).isdigit() or int(gops) < 1:
        raise ValueError(f"--shard-gops {gops} is not auto or a whole number from 1")
    return farm, export, costs, int(gops)


def predict(args, overrides: dict):
    farm, export, costs, gops = farm_of(args, overrides)
    if getattr(args, "exclude_probes", False):
        costs.probe_seconds_per_source = 0.0
    tasks = export.plan(gops, costs)
    if getattr(args, "replay", False) and args.measured:
        for attempt in read_trace(args.measured)["attempts"]:
            if attempt["outcome"] == "done" and "renderSeconds" in attempt and attempt["shard"] < len(tasks):
                tasks[attempt["shard"]].cpu_seconds = attempt["renderSeconds"]
    probes = {"known": None, "new": "workers", "new-on-coordinator": "coordinator"}[export.media]
    return simulate(tasks, farm, costs, export.source_count, probes=probes,
                    assembly_after=export.assembly == "after"), farm


def sweep(args) -> dict:
    sizes = [int(x) for x in args.sizes.split(",")]
    # Each curve: a label and the knobs it sets.
    if args.curve:
        specs = []
        for text in args.curve:
            label, _, knobs = text.partition("|")
            specs.append((label, dict(k.split("=", 1) for k in knobs.split(";") if k)))
    elif args.vary:
        knob, values = args.vary.split("=", 1)
        specs = [(f"{knob} = {v}", {knob: v}) for v in values.split(",")]
    else:
        specs = [("", {})]
    curves = []
    for label, knobs in specs:
        points = []
        for w in sizes:
            result, _ = predict(args, {**knobs, "workers": w})
            points.append({"workers": w, **asdict(result)})
            print(f"{label or 'farm':>24} workers {w:>5}: wall {result.wall_seconds:7.1f} s, "
                  f"first chunk {result.first_chunk_seconds:5.1f} s, limit: {result.limit}", file=sys.stderr)
        curves.append({"label": label, "knobs": knobs, "points": points})
    report = {"sizes": sizes, "curves": curves}
    if args.plot:
        from .plot import draw
        draw(report, args.plot, args.title)
    return report


def emit(report: dict, path: str | None):
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
