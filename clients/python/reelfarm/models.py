"""The HTTP API's models (docs/api.yaml, components/schemas), as the client reads them.

`SCHEMA_FIELDS` names the schema each class reads and the JSON properties it maps;
tests/check_spec.py holds them against docs/api.yaml, so the spec and the client cannot
drift apart.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Mapping, Optional


class JobState(str, Enum):
    QUEUED = "queued"
    RENDERING = "rendering"
    ASSEMBLING = "assembling"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def is_final(self) -> bool:
        return self in (JobState.DONE, JobState.FAILED, JobState.CANCELLED)


class FarmErrorCode(str, Enum):
    """docs/api.yaml, ErrorCode: what went wrong, as a program acts on it."""

    INVALID_INPUT = "invalidInput"
    MALFORMED = "malformed"
    VERSION_MISMATCH = "versionMismatch"
    ENGINE_MISMATCH = "engineMismatch"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_OWNER = "notOwner"
    NO_SUCH_JOB = "noSuchJob"
    NOT_FOUND = "notFound"
    METHOD_NOT_ALLOWED = "methodNotAllowed"
    ALREADY_ENDED = "alreadyEnded"
    NOT_ENDED = "notEnded"
    UPLOAD_IN_PROGRESS = "uploadInProgress"
    OFFSET_MISMATCH = "offsetMismatch"
    RESULT_GONE = "resultGone"
    TOO_LARGE = "tooLarge"
    UNSUPPORTED_MEDIA_TYPE = "unsupportedMediaType"
    RANGE_NOT_SATISFIABLE = "rangeNotSatisfiable"
    UNKNOWN_WORKER = "unknownWorker"
    MISSING_MEDIA = "missingMedia"
    STORAGE_FULL = "storageFull"
    MEDIA_CHANGED = "mediaChanged"
    ORIGIN_REFUSED = "originRefused"
    IO_FAILED = "ioFailed"
    CANCELLED = "cancelled"
    HANDED_BACK = "handedBack"
    RENDER_FAILED = "renderFailed"
    TOO_MANY_REQUESTS = "tooManyRequests"
    UNAVAILABLE = "unavailable"
    NO_ANSWER = "noAnswer"
    MEDIA_LOST = "mediaLost"
    NOT_LEADER = "notLeader"
    HANDSHAKE_FAILED = "handshakeFailed"
    INTERNAL = "internal"

    @classmethod
    def parse(cls, text: Any) -> "FarmErrorCode":
        """A code this client does not know (a newer farm's) reads as INTERNAL."""
        try:
            return cls(text)
        except ValueError:
            return cls.INTERNAL


@dataclass(frozen=True)
class FarmError:
    """docs/api.yaml, FarmError: a code a program acts on, and a message for people."""

    code: FarmErrorCode
    message: str

    @classmethod
    def from_json(cls, o: Mapping[str, Any]) -> "FarmError":
        return cls(FarmErrorCode.parse(o["code"]), str(o["message"]))


@dataclass(frozen=True)
class ShardCounts:
    queued: int
    running: int
    done: int
    abandoned: int


@dataclass(frozen=True)
class JobStatus:
    job_id: str
    state: JobState
    priority: int
    frames_done: int
    total_frames: int
    shards: ShardCounts
    created: float
    finished: Optional[float] = None
    video_shards: Optional[ShardCounts] = None
    frames_in_progress: Optional[int] = None
    frames_per_second: Optional[float] = None
    eta_seconds: Optional[float] = None
    error: Optional[FarmError] = None
    owner: Optional[str] = None
    batch: Optional[str] = None
    variant: Optional[str] = None

    @property
    def fraction_done(self) -> float:
        return self.frames_done / self.total_frames if self.total_frames else 0.0

    @classmethod
    def from_json(cls, o: Mapping[str, Any]) -> "JobStatus":
        s = o["shards"]
        v = o.get("videoShards")
        error = o.get("error")
        return cls(job_id=str(o["jobID"]), state=JobState(o["state"]), priority=int(o["priority"]),
                   frames_done=int(o["framesDone"]), total_frames=int(o["totalFrames"]),
                   shards=ShardCounts(int(s["queued"]), int(s["running"]), int(s["done"]), int(s["abandoned"])),
                   created=float(o["created"]), finished=_number(o.get("finished")),
                   video_shards=ShardCounts(int(v["queued"]), int(v["running"]), int(v["done"]), int(v["abandoned"]))
                   if isinstance(v, Mapping) else None,
                   frames_in_progress=int(o["framesInProgress"]) if o.get("framesInProgress") is not None else None,
                   frames_per_second=_number(o.get("framesPerSecond")), eta_seconds=_number(o.get("etaSeconds")),
                   error=FarmError.from_json(error) if isinstance(error, Mapping) else None,
                   owner=o.get("owner"), batch=o.get("batch"), variant=o.get("variant"))


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    state: str
    frames_done: int
    total_frames: int
    variants: tuple[JobStatus, ...]

    @classmethod
    def from_json(cls, o: Mapping[str, Any]) -> "BatchStatus":
        return cls(batch_id=str(o["batchID"]), state=str(o["state"]), frames_done=int(o["framesDone"]),
                   total_frames=int(o["totalFrames"]), variants=tuple(JobStatus.from_json(v) for v in o["variants"]))


def _number(value: Any) -> Optional[float]:
    return float(value) if value is not None else None


# Each class: the schema it reads in docs/api.yaml, and its fields' JSON names.
SCHEMA_FIELDS: dict[str, tuple[str, dict[str, str]]] = {
    "JobStatus": ("JobStatus", {
        "job_id": "jobID", "state": "state", "priority": "priority", "frames_done": "framesDone",
        "total_frames": "totalFrames", "shards": "shards", "created": "created", "finished": "finished",
        "video_shards": "videoShards", "frames_in_progress": "framesInProgress",
        "frames_per_second": "framesPerSecond", "eta_seconds": "etaSeconds", "error": "error",
        "owner": "owner", "batch": "batch", "variant": "variant"}),
    "BatchStatus": ("BatchStatus", {"batch_id": "batchID", "state": "state", "frames_done": "framesDone",
                                    "total_frames": "totalFrames", "variants": "variants"}),
    "FarmError": ("FarmError", {"code": "code", "message": "message"}),
    "ShardCounts": ("ShardCounts", {"queued": "queued", "running": "running", "done": "done", "abandoned": "abandoned"}),
}
