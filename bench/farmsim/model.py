"""The capacity model's inputs as values: the measured costs, the farm, the shard plan.

docs/scale.md says where each number comes from. Units: seconds, bytes, bytes per second.
"""
from __future__ import annotations

import bisect
import json
import math
from dataclasses import asdict, dataclass, field


# The audio track reads only its samples by range (docs/operations.md, "Media"): AAC at about
# 160 kbit/s.
AUDIO_BYTES_PER_SECOND = 20_000.0

# The audio track in pieces (docs/rendering.md, "Audio in pieces"): a piece holds whole
# segments, at least 10 s, and is cut only where the rest of the track holds the join and
# the post-roll; a later piece's encoder warms up on 5.12 s it does not keep, and the piece
# before encodes the same 5.12 s and three frames more past its end.
SAMPLE_RATE = 48_000
AAC_FRAME = 1024
JOIN_GUARD = 240 * AAC_FRAME
POST_ROLL_FRAMES = 3
MINIMUM_PIECE_SAMPLES = 10 * SAMPLE_RATE
# Inside a segment at speed 1 longer than a piece, a cut every 4 s; the piece after reads a
# 0.48-s pre-roll and warms its encoder on the 5.12 s before its first kept packet, and the
# piece before encodes three frames past the cut (`AudioPieces.insidePieceSamples`).
INSIDE_PIECE_SAMPLES = 4 * SAMPLE_RATE
PRE_ROLL_SAMPLES = 12 * 1920

# A job of at least this many video shards starts with a shard of half a keyframe interval
# (the planner's `Plan.leadShardMinimumShards`).
LEAD_SHARD_MINIMUM_SHARDS = 8


def join_packet(boundary: int) -> int:
    return (boundary + JOIN_GUARD + AAC_FRAME - 1) // AAC_FRAME + 1


def post_roll_samples(boundary: int) -> int:
    return (join_packet(boundary) + POST_ROLL_FRAMES) * AAC_FRAME - boundary


def inside_join_packet(cut: int) -> int:
    return (cut + AAC_FRAME - 1) // AAC_FRAME + 1


def inside_post_roll_samples(cut: int) -> int:
    return (inside_join_packet(cut) + POST_ROLL_FRAMES) * AAC_FRAME - cut


@dataclass
class Costs:
    """What a shard and the coordinator cost, measured by `farm-sim calibrate`."""
    # A video shard on one core: fixed + per_frame[segment] x frames (the fixed part is opening
    # the media, decoding from the keyframe before the shard's first frame, x264's start).
    shard_fixed_seconds: float = 0.35
    frame_seconds: dict[str, float] = field(default_factory=dict)
    default_frame_seconds: float = 0.070
    # The audio track: seconds of one core per second of output.
    audio_seconds_per_output_second: float = 0.012
    audio_fixed_seconds: float = 0.1
    chunk_bytes_per_frame: float = 13_500.0
    # Coordinator, one event-loop thread: a dispatch, a chunk's commit (LZ4 check, SHA-256,
    # file, store), and per byte of chunk.
    dispatch_seconds: float = 0.0003
    commit_seconds: float = 0.0003
    commit_seconds_per_byte: float = 1.0 / 1.5e9
    # How fast each core runs when every core of a machine is busy, against one core alone
    # (shared caches and memory bandwidth): two renders at once against one, measured.
    core_efficiency: float = 1.0
    # Cores the farm burns per second of a shard's render, beyond the render thread's one:
    # the worker's fetch, LZ4 and hashing, and the coordinator serving media and storing
    # chunks. Measured as the farm's processes' CPU over the renders' seconds (1 = none).
    cpu_per_render_second: float = 1.0
    # Between the coordinator storing a chunk and the worker starting the next shard, beyond
    # the dispatch itself and the link's latency (measured idle on one worker).
    handoff_seconds: float = 0.0
    # From the job's creation to its first dispatch.
    job_start_seconds: float = 0.01
    # Before the job exists the coordinator probes each source once, one after another on its
    # submission thread (header, index, stream info: libavformat decodes a few frames).
    probe_seconds_per_source: float = 0.15
    # The assembly (docs/rendering.md, "Assembly"): the lane writes each chunk as it arrives
    # in output order at `assembly_seconds_per_byte`; after the last chunk only the index is
    # left, `assembly_fixed_seconds`. Before this round the whole file was written after the
    # last chunk, at `assembly_after_seconds_per_byte` (the 4.3 s for 0.73 GB measured then).
    assembly_fixed_seconds: float = 0.05
    assembly_seconds_per_byte: float = 1.0 / 1e9
    assembly_after_seconds_per_byte: float = 1.0 / 170e6

    def frame_cost(self, segment: int) -> float:
        return self.frame_seconds.get(str(segment), self.default_frame_seconds)

    @staticmethod
    def load(path: str) -> "Costs":
        with open(path) as f:
            raw = json.load(f)
        known = {k: v for k, v in raw.items() if k in Costs.__dataclass_fields__}
        return Costs(**known)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Farm:
    """W workers of S slots on C cores each, and the links between them."""
    workers: int = 1
    slots: int = 2
    cores: float = 2.0
    # Every worker (and the coordinator) on one machine of this many cores; 0 = each worker
    # has its own `cores`. The validation runs share one 2-core machine.
    host_cores: float = 0.0
    worker_link_bps: float = 1e9 / 8        # each direction
    coordinator_link_bps: float = 10e9 / 8  # each direction
    origin_bps: float = 10e9 / 8
    latency_seconds: float = 0.0005         # one way, coordinator <-> worker
    coordinator_cores: int = 2              # a submission's probes run one per core
    media_via: str = "coordinator"          # or "origin": read by URL, the coordinator out of the path
    worker_start_seconds: float = 0.0       # a worker joins this long after the job is submitted
    # A video shard's reader asks for the next 16 blocks of 64 KiB beyond the one it waits for
    # (the worker's read-ahead), so an attempt has fetched 1 MiB more than it has decoded: a
    # backup copy cancelled soon after it starts still costs that much egress.
    read_ahead_bytes: float = 16 * 65536
    failure_rate: float = 0.0               # chance that an attempt's worker dies during it
    failure_detect_seconds: float = 3.0     # three missed heartbeats
    seed: int = 1
    # The scheduler's backup copies (docs/operations.md, "Scaling").
    backup_copies: bool = True
    backup_factor: float = 1.5
    backup_min_seconds: float = 2.0
    backup_first_seconds: float = 4.0


@dataclass
class Segment:
    index: int
    frames: int
    speed: float = 1.0
    source_bytes_per_second: float = 2e6
    source_gop_seconds: float = 1.0
    first_source_time: float = 0.0
    # The source's keyframe times, where known (else every `source_gop_seconds` from 0).
    keyframes: list[float] = field(default_factory=list)

    def lead_in(self, source_time: float) -> float:
        """Source seconds decoded before `source_time`: from the keyframe at or before it."""
        if self.keyframes:
            at = bisect.bisect_right(self.keyframes, source_time + 1e-6) - 1
            return source_time - self.keyframes[at] if at >= 0 else source_time
        return source_time % self.source_gop_seconds if self.source_gop_seconds > 0 else 0.0


@dataclass
class Task:
    index: int
    kind: str           # "video" or "audio"
    segment: int
    frames: int
    cpu_seconds: float  # on one core
    media_bytes: float  # source bytes its reader fetches
    chunk_bytes: float


@dataclass
class Export:
    """A timeline to cut: its segments, frame rate and the output's keyframe interval."""
    segments: list[Segment]
    fps: float = 30.0
    keyframe_seconds: float = 2.0
    audio: bool = True
    # Bytes read beyond a shard's own source range: the blocks that straddle its ends and the
    # header and index blocks its reader reads (64 KiB blocks); a worker's block cache keeps
    # what its earlier shards of the same file read (measured: docs/scale.md).
    read_overhead: float = 1.0
    blocks_per_shard: int = 2
    block_bytes: int = 65536
    # Distinct media files; 0 = one per segment.
    sources: int = 0
    # How the audio track is cut: "pieces" (the farm), or "one-task" (before this round).
    audio_plan: str = "pieces"
    # Media the farm has seen (probed when their bytes arrived: the submission probes
    # nothing), "new" (each source probed at submission by a worker, one at a time on
    # each), or "new-on-coordinator" (one per coordinator core, before this round).
    media: str = "known"
    # The assembly: "overlapped" with the render (the farm), or "after" the last chunk.
    assembly: str = "overlapped"

    @property
    def source_count(self) -> int:
        return self.sources or len(self.segments)

    @property
    def total_frames(self) -> int:
        return sum(s.frames for s in self.segments)

    def sample(self, frame: int) -> int:
        return math.floor(frame * SAMPLE_RATE / self.fps + 0.5)

    def audio_pieces(self) -> list[tuple[int, int]]:
        """The planner's pieces of the audio track as output frame ranges (docs/rendering.md,
        "Audio in pieces"), or the whole track as one task."""
        total = self.total_frames
        if self.audio_plan == "one-task":
            return [(0, total)]
        pieces, opening, inside, start = [], 0, False, 0
        end_sample = self.sample(total)
        for s in self.segments:
            if s.frames == 0:
                continue
            if start > opening:
                boundary = self.sample(start)
                if boundary - self.sample(opening) >= MINIMUM_PIECE_SAMPLES and end_sample - boundary >= post_roll_samples(boundary):
                    pieces.append((opening, start))
                    opening, inside = start, False
            end = start + s.frames
            if s.speed == 1.0 and self.sample(end) - self.sample(start) > MINIMUM_PIECE_SAMPLES:
                kept = self.sample(opening) if inside or opening == 0 else (join_packet(self.sample(opening)) - 1) * AAC_FRAME
                cut = self.frame_at_or_after(max(kept, self.sample(start)) + INSIDE_PIECE_SAMPLES)
                while cut < end and end_sample - self.sample(cut) >= max(inside_post_roll_samples(self.sample(cut)), INSIDE_PIECE_SAMPLES // 2):
                    pieces.append((opening, cut))
                    opening, inside = cut, True
                    cut = self.frame_at_or_after(self.sample(cut) + INSIDE_PIECE_SAMPLES)
            start = end
        pieces.append((opening, total))
        return pieces

    def frame_at_or_after(self, sample: int) -> int:
        frame = math.floor(sample * self.fps / SAMPLE_RATE)
        while self.sample(frame) < sample:
            frame += 1
        return frame

    def segment_starts(self) -> set[int]:
        starts, start = set(), 0
        for s in self.segments:
            if s.frames > 0:
                starts.add(start)
            start += s.frames
        return starts

    def audio_encoded_seconds(self, frames: tuple[int, int]) -> float:
        """The seconds a piece encodes: its own, the warm-up it does not keep and the post-roll
        (a piece that begins inside a segment also decodes its pre-roll: counted with it)."""
        first, end = self.sample(frames[0]), self.sample(frames[1])
        starts = self.segment_starts()
        if first == 0:
            encode_from = 0
        elif frames[0] in starts:
            encode_from = first // AAC_FRAME * AAC_FRAME
        else:
            encode_from = max(0, (inside_join_packet(first) - 1) * AAC_FRAME - JOIN_GUARD) - PRE_ROLL_SAMPLES
        if frames[1] >= self.total_frames:
            encode_to = self.sample(self.total_frames)
        elif frames[1] in starts:
            encode_to = (join_packet(end) + POST_ROLL_FRAMES) * AAC_FRAME
        else:
            encode_to = (inside_join_packet(end) + POST_ROLL_FRAMES) * AAC_FRAME
        return (encode_to - max(0, encode_from)) / SAMPLE_RATE

    def audio_task(self, index: int, frames: tuple[int, int], costs: Costs) -> Task:
        seconds = self.audio_encoded_seconds(frames)
        return Task(index, "audio", 0, 0, costs.audio_fixed_seconds + costs.audio_seconds_per_output_second * seconds,
                    seconds * AUDIO_BYTES_PER_SECOND, 0.0)

    def plan(self, shard_gops: int, costs: Costs) -> list[Task]:
        """The planner's cut (docs/rendering.md, "Pipeline"): the pieces of the audio track
        first (the whole track as one, before this round), then each segment in shards of
        `shard_gops` keyframe intervals, a tail under half a GOP joined to the shard before it."""
        gop = max(1, round(self.keyframe_seconds * self.fps))
        longest = gop * max(1, shard_gops)
        tasks: list[Task] = []
        for piece in (self.audio_pieces() if self.audio else []):
            tasks.append(self.audio_task(len(tasks), piece, costs))
        cuts: list[tuple[Segment, int, int]] = []
        for s in self.segments:
            start = 0
            while start < s.frames:
                end = min(s.frames, start + longest)
                if s.frames - end < gop // 2:
                    end = s.frames
                cuts.append((s, start, end - start))
                start = end
        # The lead shard (docs/rendering.md, "The lead shard"): a job of 8 shards or more cuts
        # its first shard at half a keyframe interval.
        if len(cuts) >= LEAD_SHARD_MINIMUM_SHARDS and gop >= 2 and cuts[0][2] >= gop:
            s, start, frames = cuts[0]
            cuts[0:1] = [(s, start, gop // 2), (s, start + gop // 2, frames - gop // 2)]
        for s, start, frames in cuts:
            tasks.append(self._video_task(len(tasks), s, start, frames, costs))
        return tasks

    def auto_shard_gops(self, slots: int) -> int:
        """The coordinator's `--planned-slots` rule (docs/scale.md, "Shard length"): 1 when
        shards of 2 would be fewer than the slots, else 2."""
        video = sum(1 for t in self.plan(2, Costs()) if t.kind == "video")
        return 1 if video < slots else 2

    def tasks_from(self, shards: list[dict], costs: Costs) -> list[Task]:
        """Tasks for a plan given as `reel inspect --json`'s `shards`."""
        tasks = []
        by_index = {s.index: s for s in self.segments}
        for i, shard in enumerate(shards):
            if shard["kind"] == "video":
                s = by_index[shard["segment"]]
                start = shard["outputStartFrame"] - sum(x.frames for x in self.segments[:s.index])
                tasks.append(self._video_task(i, s, start, shard["frames"], costs))
            else:
                start = shard["outputStartFrame"]
                tasks.append(self.audio_task(i, (start, start + shard.get("audioFrames", self.total_frames)), costs))
        return tasks

    def _media(self, s: Segment, start: int, frames: int) -> float:
        # The shard's source seconds, from the source keyframe before its first frame (keyframes
        # every `source_gop_seconds` from 0), plus the blocks around them.
        first = s.first_source_time + start / self.fps * s.speed
        seconds = frames / self.fps * s.speed + s.lead_in(first)
        return seconds * s.source_bytes_per_second * self.read_overhead + self.blocks_per_shard * self.block_bytes

    def _video_task(self, index: int, s: Segment, start: int, frames: int, costs: Costs) -> Task:
        return Task(index, "video", s.index, frames,
                    costs.shard_fixed_seconds + costs.frame_cost(s.index) * frames,
                    self._media(s, start, frames), costs.chunk_bytes_per_frame * frames)

    @staticmethod
    def phone_clips(clips: int, seconds: float, fps: float = 30.0, mbps: float = 16.0,
                    source_gop_seconds: float = 1.0, keyframe_seconds: float = 2.0) -> "Export":
        """`clips` phone clips of `seconds` each, rendered at `fps`."""
        frames = round(seconds * fps)
        return Export([Segment(i, frames, 1.0, mbps * 1e6 / 8, source_gop_seconds) for i in range(clips)],
                      fps=fps, keyframe_seconds=keyframe_seconds)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    k = (len(ordered) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)
