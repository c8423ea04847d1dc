#!/usr/bin/env python3
"""Drives the farm through a client generated from docs/api.yaml by openapi-python-client
(PyPI), as a web developer adopting the API would: bundle the spec, generate, import,
upload the media, submit the session, wait for the job, download the output.

    generated-client-check.py BASE_URL TOKEN SESSION.json OUT.mp4

The media are the files SESSION.json names, beside it. Exit 0 when OUT.mp4 was written.
"""
import hashlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def generate(workdir):
    bundled = os.path.join(workdir, "api.json")
    subprocess.run([sys.executable, os.path.join(HERE, "bundle-spec.py"), os.path.join(ROOT, "docs", "api.yaml"), bundled],
                   check=True)
    out = os.path.join(workdir, "reel_api_client")
    made = subprocess.run(["openapi-python-client", "generate", "--path", bundled, "--meta", "none",
                           "--config", os.path.join(HERE, "python-client.yaml"), "--output-path", out],
                          capture_output=True, text=True)
    # A warning means part of the spec could not be turned into code: the spec is not tight enough.
    if made.returncode != 0 or "warning" in (made.stdout + made.stderr).lower():
        sys.exit("openapi-python-client: " + made.stdout + made.stderr)
    sys.path.insert(0, workdir)
    return importlib.import_module("reel_api_client")


def main(base, token, session_path, out_path):
    with tempfile.TemporaryDirectory() as workdir:
        generate(workdir)
        from reel_api_client import AuthenticatedClient
        from reel_api_client.api.default import get_job, get_output, put_media, submit_job
        from reel_api_client.models import JobRequest
        from reel_api_client.types import File

        client = AuthenticatedClient(base_url=base.removesuffix("/v1"), token=token, timeout=120)
        with open(session_path) as f:
            session = json.load(f)
        here = os.path.dirname(os.path.abspath(session_path))
        files = {}
        for segment in session["video"]["videoSegments"]:
            name = segment["source"]
            with open(os.path.join(here, name), "rb") as f:
                data = f.read()
            content_id = "sha256:" + hashlib.sha256(data).hexdigest()
            with open(os.path.join(here, name), "rb") as f:
                uploaded = put_media.sync_detailed(content_id, client=client, body=File(payload=f, file_name=name))
            if uploaded.status_code not in (200, 201):
                sys.exit(f"upload of {name}: {uploaded.status_code} {uploaded.content[:300]!r}")
            files[name] = content_id
        request = JobRequest.from_dict({"session": session, "files": files, "settings": {"keyframeIntervalSeconds": 0.5}})
        created = submit_job.sync_detailed(client=client, body=request)
        if created.status_code != 201:
            sys.exit(f"submit: {created.status_code} {created.content[:500]!r}")
        job = created.parsed.job.job_id
        deadline = time.monotonic() + 120
        while True:
            status = get_job.sync(job, client=client)
            if status.state.value in ("done", "failed", "cancelled"):
                break
            if time.monotonic() > deadline:
                sys.exit(f"job {job} still {status.state.value} after 120 s")
            time.sleep(0.2)
        if status.state.value != "done":
            sys.exit(f"job {job} {status.state.value}")
        output = get_output.sync_detailed(job, client=client)
        if output.status_code != 200:
            sys.exit(f"output: {output.status_code}")
        with open(out_path, "wb") as f:
            f.write(output.content)
        print(json.dumps({"job": job, "bytes": len(output.content)}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
