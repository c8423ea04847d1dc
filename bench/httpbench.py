"""What the HTTP benches share (bench/tenants, bench/fair-share): ports, requests, uploads,
percentiles, and a coordinator with the HTTP API started on loopback."""
import hashlib, http.client, json, os, socket, subprocess, sys, time, urllib.parse


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, token=None, body=None, timeout=600):
    """(status, body, seconds) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if body is not None and not isinstance(body, bytes):
        body = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    started = time.monotonic()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data, time.monotonic() - started


def wait_listening(port, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"the coordinator ended ({process.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing listens on {port}")


def upload(port, token, path):
    data = open(path, "rb").read()
    content_id = "sha256:" + hashlib.sha256(data).hexdigest()
    status, _, _ = request(port, "PUT", "/v1/media/" + urllib.parse.quote(content_id, safe=""), token, data)
    if status not in (200, 201, 204):
        sys.exit(f"upload: {status}")
    return content_id


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Coordinator:
    """`reel coordinator` with the HTTP API and metrics on loopback ports of its own."""

    def __init__(self, reel, work, name, tokens, extra=()):
        self.api, self.metrics, self.farm = free_port(), free_port(), free_port()
        self.endpoint = f"tcp://127.0.0.1:{self.farm}"
        state = os.path.join(work, name)
        os.makedirs(state)
        self.log = open(os.path.join(work, name + ".log"), "w")
        self.process = subprocess.Popen(
            [reel, "coordinator", "--bind", self.endpoint, "--state-dir", state,
             "--http", f"127.0.0.1:{self.api}", "--api-tokens", tokens, "--metrics", f"127.0.0.1:{self.metrics}",
             *extra],
            stdout=self.log, stderr=self.log)
        wait_listening(self.api, self.process)
        wait_listening(self.metrics, self.process)

    def rss(self):
        fields = {}
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

    def cpu_seconds(self):
        """User + system CPU the coordinator has used so far."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
