"""A client of a ReelFarm's HTTP API (docs/api.md, "Clients"), on the standard library."""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

from .models import BatchStatus, FarmErrorCode, JobStatus, Problem

Progress = Callable[[JobStatus], None]

class ReelFarmError(Exception):
    """A refusal or failure of the farm: its code, the HTTP status and the farm's message;
    `problems` (each at its JSON path) for an invalid request, `missing` content ids for
    media the farm lacks. Decide by `code`, never by the message's words nor the status:
    every refusal of the API names its code (docs/api.md, "Errors"). `code` is None for an
    answer that is not the farm's (a proxy's page, a cut body)."""

    def __init__(self, code: Optional[FarmErrorCode], status: int, message: str, problems: Sequence[Problem] = (),
                 missing: Sequence[str] = (), job: Optional[JobStatus] = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.problems = tuple(problems)
        self.missing = tuple(missing)
        self.job = job

    @classmethod
    def from_answer(cls, status: int, body: bytes) -> "ReelFarmError":
        try:
            decoded: Any = json.loads(body) if body else {}
        except ValueError:
            decoded = {}
        if not isinstance(decoded, dict):
            decoded = {}
        error = decoded.get("error")
        if not isinstance(error, dict) or "code" not in error:
            return cls(None, status, f"not the farm's answer (HTTP {status}): {body[:200]!r}")
        code = FarmErrorCode.parse(error["code"])
        message = str(error.get("message") or "")
        if code is FarmErrorCode.INVALID_INPUT and isinstance(decoded.get("problems"), list):
            problems = [Problem(str(p["path"]), str(p["message"])) for p in decoded["problems"]]
            return cls(code, status, "; ".join(map(str, problems)), problems=problems)
        if code is FarmErrorCode.MISSING_MEDIA and isinstance(decoded.get("missing"), list):
            missing = [str(m) for m in decoded["missing"]]
            return cls(code, status, "the farm lacks " + ", ".join(missing), missing=missing)
        return cls(code, status, message)


class Client:
    """One farm's API (`http://HOST:PORT/v1`) with a bearer token. No global state: each call
    opens its own connection."""

    def __init__(self, api: str, token: Optional[str] = None, *, timeout: float = 120.0,
                 upload_part_bytes: int = 8 << 20, retries: int = 5) -> None:
        parsed = urllib.parse.urlsplit(api.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"{api!r} is not an http(s) URL of the API")
        self.api = api.rstrip("/")
        self._scheme, self._host, self._port, self._base = parsed.scheme, parsed.hostname, parsed.port, parsed.path
        self.token = token
        self.timeout = timeout
        self.upload_part_bytes = upload_part_bytes
        self.retries = retries

    # ---- exporting ----

    def export(self, session: Mapping[str, Any], media: Mapping[str, Path], *, settings: Optional[Mapping[str, Any]] = None,
               priority: Optional[int] = None, callback: Optional[str] = None, progress: Optional[Progress] = None) -> JobStatus:
        """Uploads what the farm lacks of `media` (reference → file), submits `session` (the
        SDK's JSON as a dict), follows it to its end and returns its final status; raises
        ReelFarmError (with `.job`) if it failed or was cancelled."""
        files = {reference: self.upload(path) for reference, path in sorted(media.items())}
        job = self.submit(session, files, settings=settings, priority=priority, callback=callback)
        last = job
        for status in self.events(job.job_id):
            last = status
            if progress is not None:
                progress(status)
        if last.state.value != "done":
            raise ReelFarmError(last.error.code if last.error else FarmErrorCode.RENDER_FAILED, 200,
                                f"job {last.job_id} ended {last.state.value}: {last.error.message if last.error else ''}", job=last)
        return last

    def submit(self, session: Mapping[str, Any], files: Mapping[str, str], *, settings: Optional[Mapping[str, Any]] = None,
               priority: Optional[int] = None, callback: Optional[str] = None,
               idempotency_key: Optional[str] = None) -> JobStatus:
        body = self._request_body(session, files, settings, priority, callback)
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return JobStatus.from_json(self._json("POST", "jobs", body, headers)["job"])

    def submit_batch(self, session: Mapping[str, Any], files: Mapping[str, str], variants: Sequence[Mapping[str, Any]], *,
                     settings: Optional[Mapping[str, Any]] = None, priority: Optional[int] = None) -> BatchStatus:
        body = self._request_body(session, files, settings, priority, None)
        body["variants"] = [dict(v) for v in variants]
        return BatchStatus.from_json(self._json("POST", "batches", body)["batch"])

    def status(self, job: str) -> JobStatus:
        return JobStatus.from_json(self._json("GET", f"jobs/{_segment(job)}"))

    def batch(self, batch: str) -> BatchStatus:
        return BatchStatus.from_json(self._json("GET", f"batches/{_segment(batch)}"))

    def cancel(self, job: str) -> JobStatus:
        return JobStatus.from_json(self._json("DELETE", f"jobs/{_segment(job)}"))

    def events(self, job: str) -> Iterator[JobStatus]:
        """The job's statuses as they change, the last one final (docs/api.md, "Events"). A
        dropped stream is opened again with Last-Event-ID: no status is repeated."""
        last_id: Optional[str] = None
        drops = 0
        while True:
            headers = {"Accept": "text/event-stream"}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            connection = self._connection()
            try:
                connection.request("GET", self._path(f"jobs/{_segment(job)}/events"), headers=self._headers(headers))
                response = connection.getresponse()
                if response.status != 200:
                    raise ReelFarmError.from_answer(response.status, response.read())
                event_id: Optional[str] = None
                data: list[str] = []
                for raw in response:
                    line = raw.decode("utf-8").rstrip("\r\n")
                    if line.startswith("id:"):
                        event_id = line[3:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].lstrip(" "))
                    elif not line and data:
                        status = JobStatus.from_json(json.loads("\n".join(data)))
                        data = []
                        if event_id is not None:
                            last_id = event_id
                        event_id = None
                        yield status
                        if status.state.is_final:
                            return
            except (OSError, http.client.HTTPException):
                pass   # dropped: opened again below
            finally:
                connection.close()
            drops += 1
            if drops > self.retries:
                raise ReelFarmError(FarmErrorCode.NO_ANSWER, 0, f"the event stream of {job} ended {drops} times before the job did")

    # ---- media ----

    def upload(self, path: Path) -> str:
        """Uploads a file by its content id and returns the id: nothing is sent if the farm
        has it for this client; a dropped connection is resumed from the farm's
        Upload-Offset, so only the bytes it lacks are sent again."""
        content_id = content_id_of(path)
        size = path.stat().st_size
        failures = 0
        offset: Optional[int] = None
        with path.open("rb") as f:
            while True:
                try:
                    if offset is None:
                        offset = self._upload_offset(content_id)
                        if offset is None:
                            return content_id
                    offset = self._send_part(content_id, f, offset if offset < size else 0, size)
                    if offset is None:
                        return content_id
                except (OSError, http.client.HTTPException):
                    failures += 1
                    if failures > self.retries:
                        raise
                    offset = None

    def _upload_offset(self, content_id: str) -> Optional[int]:
        status, headers, body = self._exchange("HEAD", f"media/{content_id}")
        if status == 200:
            return None
        if status == 404:
            return int(headers.get("upload-offset", "0"))
        raise ReelFarmError.from_answer(status, body)

    def _send_part(self, content_id: str, f: Any, start: int, size: int) -> Optional[int]:
        f.seek(start)
        part = f.read(self.upload_part_bytes)
        headers = {"Content-Type": "application/octet-stream"}
        if size > self.upload_part_bytes or start > 0:
            headers["Content-Range"] = f"bytes {start}-{start + len(part) - 1}/{size}"
        status, answer, body = self._exchange("PUT", f"media/{content_id}", part, headers)
        if status in (200, 201):
            return None
        if status in (202, 409) and "upload-offset" in answer:
            following = int(answer["upload-offset"])
            if status == 409 and following == start:
                raise ReelFarmError.from_answer(status, body)
            return following
        raise ReelFarmError.from_answer(status, body)

    # ---- results ----

    def output_url(self, job: str, seconds: int = 3600, part: str = "output") -> str:
        """A URL of the finished output (or its sidecar) anyone may load until it expires."""
        return self._signed(f"jobs/{_segment(job)}/output-url", {"seconds": seconds, "part": part})

    def preview_url(self, job: str, seconds: int = 3600) -> str:
        """A URL of the job's live preview playlist (HLS), while it renders and after."""
        return self._signed(f"jobs/{_segment(job)}/preview-url", {"seconds": seconds})

    def download(self, job: str, path: Path) -> None:
        """Writes the finished output to `path`: complete, or not at all."""
        connection = self._connection()
        try:
            connection.request("GET", self._path(f"jobs/{_segment(job)}/output"), headers=self._headers({}))
            response = connection.getresponse()
            if response.status != 200:
                raise ReelFarmError.from_answer(response.status, response.read())
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix="." + path.name, suffix=".part")
            try:
                with os.fdopen(descriptor, "wb") as out:
                    while block := response.read(1 << 20):
                        out.write(block)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        finally:
            connection.close()

    def picture(self, kind: str, job: str, segment: int, *, time: Optional[float] = None, size: Optional[str] = None,
                format: str = "jpeg") -> bytes:
        """Segment `segment`'s `thumbnail` or `frame` at `time` s of its media, in `size` ("320x180")."""
        if kind not in ("thumbnail", "frame"):
            raise ValueError("kind is thumbnail or frame")
        query = {"format": format, **({"time": str(time)} if time is not None else {}), **({"size": size} if size else {})}
        status, _, body = self._exchange("GET", f"jobs/{_segment(job)}/segments/{int(segment)}/{kind}?" + urllib.parse.urlencode(query))
        if status != 200:
            raise ReelFarmError.from_answer(status, body)
        return body

    # ---- plumbing ----

    def _connection(self) -> http.client.HTTPConnection:
        if self._scheme == "https":
            return http.client.HTTPSConnection(self._host, self._port, timeout=self.timeout)
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def _path(self, path: str) -> str:
        return f"{self._base}/{path}"

    def _headers(self, extra: Mapping[str, str]) -> dict[str, str]:
        headers = dict(extra)
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def _exchange(self, method: str, path: str, body: Optional[bytes] = None,
                  headers: Optional[Mapping[str, str]] = None) -> tuple[int, dict[str, str], bytes]:
        connection = self._connection()
        try:
            connection.request(method, self._path(path), body=body, headers=self._headers(headers or {}))
            response = connection.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            connection.close()

    def _json(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None,
              headers: Optional[Mapping[str, str]] = None) -> Any:
        all_headers = dict(headers or {})
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        status, _, data = self._exchange(method, path, payload, all_headers)
        if not 200 <= status < 300:
            raise ReelFarmError.from_answer(status, data)
        return json.loads(data)

    def _signed(self, path: str, fields: Mapping[str, Any]) -> str:
        url = str(self._json("POST", path, fields)["url"])
        origin = f"{self._scheme}://{self._host}" + (f":{self._port}" if self._port else "")
        return origin + url

    @staticmethod
    def _request_body(session: Mapping[str, Any], files: Mapping[str, str], settings: Optional[Mapping[str, Any]],
                      priority: Optional[int], callback: Optional[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"session": dict(session), "files": dict(files)}
        if settings:
            body["settings"] = dict(settings)
        if priority is not None:
            body["priority"] = priority
        if callback is not None:
            body["callback"] = callback
        return body


def content_id_of(path: Path) -> str:
    """`sha256:` and the file's SHA-256 in hex: how the farm names media."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def _segment(identifier: str) -> str:
    if not identifier or len(identifier) > 128 or not all(c.isascii() and (c.isalnum() or c in "-_") for c in identifier):
        raise ValueError(f"{identifier[:40]!r} is not a job or batch id")
    return identifier
