import Farm

/// The dashboard (docs/api.md, "Dashboard"): one page, no external files, no CDN, so it
/// works offline and ships inside `reel`. It reads only the public API under `/v1` with
/// the token the user enters (kept in the browser's localStorage):
///
/// * `#/` — jobs with live progress bars (from each job's event stream), fps and ETA as the API reports them;
/// * `#/jobs/ID` — the job, its shard map (one cell per shard along the output timeline,
///   coloured by state, worker and time on hover), and a cancel button;
/// * `#/workers` — slots, busy, shards done, last heartbeat.
enum DashboardPage {
    /// The final states as a JS array, from `JobPhase.isFinal`: finality is defined once.
    static let finalStates = "[" + JobPhase.allCases.filter(\.isFinal).map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]"

    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ReelFarm</title>
<style>
  :root { --bg: #f6f7f9; --ink: #1d2330; --muted: #6b7385; --line: #dde1e8; --accent: #2f6fde;
          --queued: #c9ced8; --running: #2f6fde; --done: #2e9e5b; --failed: #d64545; --reused: #7fbf95; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--ink); }
  header { display: flex; flex-wrap: wrap; gap: .6rem 1.5rem; align-items: center; padding: .75rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); }
  header h1 { font-size: 1.05rem; margin: 0; }
  header a { color: var(--muted); text-decoration: none; }
  header a.here { color: var(--ink); font-weight: 600; }
  header .token { margin-left: auto; display: flex; gap: .4rem; }
  header input { width: 18rem; max-width: 100%; min-width: 0; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 4px; }
  main { padding: 1.25rem; max-width: 72rem; overflow-x: auto; }
  @media (max-width: 600px) {
    header { padding: .6rem .75rem; }
    header .token { margin-left: 0; flex: 1 1 100%; }
    header input { flex: 1; width: auto; }
    main { padding: .75rem; }
    td.progress { width: auto; min-width: 5rem; }
    .facts { flex-wrap: wrap; gap: 1rem; }
  }
  table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
  th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { color: var(--muted); font-weight: 500; font-size: .85rem; }
  td.progress { width: 40%; }
  .bar { height: .8rem; background: var(--queued); border-radius: 3px; overflow: hidden; }
  .bar > div { height: 100%; background: var(--running); width: 0; transition: width .3s; }
  .state-done .bar > div { background: var(--done); }
  .state-failed .bar > div, .state-cancelled .bar > div { background: var(--failed); }
  .muted { color: var(--muted); }
  .error { color: var(--failed); }
  button { padding: .35rem .8rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
  button.danger { border-color: var(--failed); color: var(--failed); }
  .map { display: flex; gap: 1px; height: 2.2rem; margin: .75rem 0 .3rem; background: var(--line); border: 1px solid var(--line); }
  .cell { min-width: 3px; }
  .cell.queued { background: var(--queued); } .cell.running { background: var(--running); }
  .cell.done { background: var(--done); } .cell.reused { background: var(--reused); } .cell.failing { background: var(--failed); }
  .legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .3rem 0 .9rem; vertical-align: -1px; }
  .facts { display: flex; gap: 2rem; margin: .5rem 0 1rem; }
  .thumbs { display: flex; gap: .6rem; flex-wrap: wrap; margin: .5rem 0 1rem; }
  .thumbs figure { margin: 0; font-size: .8rem; color: var(--muted); }
  .thumbs img { display: block; height: 90px; background: var(--line); border-radius: 3px; }
  .facts div b { display: block; font-size: 1.2rem; }
  a { color: var(--accent); }
</style>
</head>
<body>
<header>
  <h1>ReelFarm</h1>
  <a href="#/" id="nav-jobs">Jobs</a>
  <a href="#/workers" id="nav-workers">Workers</a>
  <form class="token" id="token-form">
    <input id="token" type="password" placeholder="API token" autocomplete="off">
    <button type="submit">Use</button>
  </form>
</header>
<main id="main"></main>
<script>
"use strict";
const api = "/v1";
const main = document.getElementById("main");
let token = localStorage.getItem("reel-token") || "";
document.getElementById("token").value = token;
document.getElementById("token-form").addEventListener("submit", e => {
  e.preventDefault();
  token = document.getElementById("token").value.trim();
  localStorage.setItem("reel-token", token);
  route();
});

function headers() { return token ? { "Authorization": "Bearer " + token } : {}; }
async function call(path, options = {}) {
  const response = await fetch(api + path, { ...options, headers: { ...headers(), ...(options.headers || {}) } });
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error.message || message; } catch (_) {}
    throw new Error(message);
  }
  return response.json();
}
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value; else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "style") node.style.cssText = value;   // CSSOM: allowed by a CSP without 'unsafe-inline'
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}
function clock(seconds) {
  if (!isFinite(seconds) || seconds < 0) return "—";
  seconds = Math.round(seconds);
  const m = Math.floor(seconds / 60), s = seconds % 60;
  return m >= 60 ? Math.floor(m / 60) + ":" + String(m % 60).padStart(2, "0") + ":" + String(s).padStart(2, "0")
                 : m + ":" + String(s).padStart(2, "0");
}
const finalStates = new Set(\#(finalStates));

// Follows a job's Server-Sent Events (fetch, so the token goes in a header) until it ends.
const streams = new Map();
function follow(id, onStatus) {
  if (streams.has(id)) return;
  const controller = new AbortController();
  streams.set(id, controller);
  (async () => {
    try {
      const response = await fetch(api + "/jobs/" + id + "/events", { headers: headers(), signal: controller.signal });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
          const data = block.split("\n").filter(l => l.startsWith("data: ")).map(l => l.slice(6)).join("\n");
          if (data) onStatus(JSON.parse(data));
        }
      }
    } catch (_) { /* closed: the page moved on */ }
    streams.delete(id);
  })();
}
function stopFollowing() { for (const c of streams.values()) c.abort(); streams.clear(); }

// Frames per second and ETA as the farm measures them (the API's framesPerSecond and
// etaSeconds: finished shards over the last 10 s), the same figures a client reads; "—"
// until the farm knows. (Rates computed here from bursts of events read 3000 fps.)
function rate(status) {
  const fps = typeof status.framesPerSecond === "number" ? status.framesPerSecond : NaN;
  const eta = typeof status.etaSeconds === "number" ? status.etaSeconds : NaN;
  return { fps, eta };
}
function fpsText(fps) { return isFinite(fps) ? fps.toFixed(1) : "—"; }
function progressBar(status) {
  const fraction = status.totalFrames ? status.framesDone / status.totalFrames : 0;
  return el("div", { class: "bar", role: "progressbar", "aria-valuenow": String(Math.round(fraction * 100)) },
            el("div", { style: "width:" + (fraction * 100).toFixed(1) + "%" }));
}

// ---- pages ----
async function jobsPage() {
  const body = el("tbody");
  main.replaceChildren(el("table", {}, el("thead", {}, el("tr", {},
    el("th", {}, "job"), el("th", {}, "state"), el("th", {}, "progress"), el("th", {}, "frames"),
    el("th", {}, "fps"), el("th", {}, "ETA"), el("th", {}, "priority"))), body));
  const jobs = await call("/jobs");
  jobs.sort((a, b) => b.created - a.created);
  if (!jobs.length) body.append(el("tr", {}, el("td", { colspan: "7", class: "muted" }, "no jobs")));
  for (const job of jobs) {
    const row = el("tr", { "data-job": job.jobID });
    const draw = status => {
      const { fps, eta } = rate(status);
      row.className = "state-" + status.state;
      row.replaceChildren(
        // A batch's variant says so under its id (docs/api.md, "Batches"): its row is its progress.
        el("td", {}, el("a", { href: "#/jobs/" + status.jobID }, status.jobID),
           ...(status.variant ? [el("div", { class: "muted", title: "batch " + status.batch }, "variant " + status.variant)] : [])),
        el("td", { class: "state" }, status.state),
        el("td", { class: "progress" }, progressBar(status)),
        el("td", {}, status.framesDone + " / " + status.totalFrames),
        el("td", { class: "fps" }, finalStates.has(status.state) ? "—" : fpsText(fps)),
        el("td", { class: "eta" }, finalStates.has(status.state) ? "—" : clock(eta)),
        el("td", {}, String(status.priority)));
    };
    draw(job);
    body.append(row);
    if (!finalStates.has(job.state)) follow(job.jobID, draw);
  }
}

async function jobPage(id) {
  const title = el("h2", {}, "job " + id);
  const facts = el("div", { class: "facts" });
  const bar = el("div");
  const map = el("div", { class: "map", id: "shard-map" });
  const legend = el("div", { class: "legend muted" },
    el("span", { style: "background:var(--queued)" }), "queued", el("span", { style: "background:var(--running)" }), "running",
    el("span", { style: "background:var(--done)" }), "done", el("span", { style: "background:var(--reused)" }), "reused",
    el("span", { style: "background:var(--failed)" }), "failed before");
  const message = el("p", { class: "error", id: "message" });
  const cancel = el("button", { class: "danger", id: "cancel", onclick: async () => {
    cancel.disabled = true;
    try { draw(await call("/jobs/" + id, { method: "DELETE" })); } catch (e) { message.textContent = e.message; cancel.disabled = false; }
  } }, "Cancel job");
  const workers = el("tbody");
  const thumbs = el("div", { class: "thumbs", id: "thumbnails" });
  const reprioritize = step => async () => {
    try { draw(await call("/jobs/" + id, { method: "PATCH", headers: { "Content-Type": "application/json" },
                                            body: JSON.stringify({ priority: (last ? last.priority : 0) + step }) })); }
    catch (e) { message.textContent = e.message; }
  };
  const up = el("button", { id: "priority-up", title: "higher priority: runs before lower ones", onclick: reprioritize(1) }, "Priority +1");
  const down = el("button", { id: "priority-down", title: "lower priority", onclick: reprioritize(-1) }, "Priority −1");
  main.replaceChildren(title, facts, bar, map, legend, thumbs, el("p", {}, cancel, " ", up, " ", down), message,
    el("h3", {}, "shards by worker"), el("table", {}, workers));
  let last = null;
  function draw(status) {
    last = status;
    const { fps, eta } = rate(status);
    const done = finalStates.has(status.state);
    facts.replaceChildren(
      el("div", { id: "job-state" }, el("b", {}, status.state), "state"),
      el("div", {}, el("b", {}, status.framesDone + " / " + status.totalFrames), "frames"),
      el("div", { id: "job-fps" }, el("b", {}, done ? "—" : fpsText(fps)), "fps"),
      el("div", {}, el("b", {}, done ? "—" : clock(eta)), "ETA"),
      el("div", {}, el("b", {}, String(status.priority)), "priority"));
    bar.className = "state-" + status.state;
    bar.replaceChildren(progressBar(status));
    cancel.hidden = done; up.hidden = done; down.hidden = done;
    message.textContent = status.error || "";
    workers.replaceChildren(...Object.entries(status.workers || {}).sort().map(([w, n]) =>
      el("tr", {}, el("td", {}, w), el("td", {}, String(n)))));
  }
  async function drawShards() {
    const shards = (await call("/jobs/" + id + "/shards")).filter(s => s.kind !== "audio" && s.kind !== "segmentAudio");
    const total = shards.reduce((sum, s) => sum + s.frames, 0) || 1;
    map.replaceChildren(...shards.map(s => {
      const kind = s.worker === "reused" ? "reused" : (s.state === "queued" && s.lastError ? "failing" : s.state);
      const tip = "shard " + s.index + " · frames " + s.outputStartFrame + "–" + (s.outputStartFrame + s.frames - 1) +
        " · " + s.state + (s.worker ? " on " + s.worker : "") + (s.seconds != null ? " · " + s.seconds.toFixed(1) + " s" : "") +
        " · " + s.attempts + " attempt(s)" + (s.lastError ? " · last error: " + s.lastError : "");
      return el("div", { class: "cell " + kind, title: tip, "data-shard": String(s.index), "data-segment": String(s.segment),
                         style: "flex:" + s.frames + " 0 0" });
    }));
  }
  draw(await call("/jobs/" + id));
  await drawShards();
  // One picture per segment, at its trim start, through the API (a header carries the token).
  const segments = [...new Set([...map.children].map(c => c.getAttribute("data-segment")))];
  for (const segment of segments) {
    const image = el("img", { alt: "segment " + segment, "data-segment": segment });
    thumbs.append(el("figure", {}, image, el("figcaption", {}, "segment " + segment)));
    fetch(api + "/jobs/" + id + "/segments/" + segment + "/thumbnail?size=160x90", { headers: headers() })
      .then(r => r.ok ? r.blob() : Promise.reject(new Error(r.statusText)))
      .then(blob => { image.src = URL.createObjectURL(blob); })
      .catch(() => { image.alt = "segment " + segment + ": no picture"; });
  }
  const timer = setInterval(() => {
    if (!location.hash.startsWith("#/jobs/" + id)) { clearInterval(timer); return; }
    drawShards().catch(() => {});
    if (last && finalStates.has(last.state)) clearInterval(timer);
  }, 1000);
  if (!finalStates.has(last.state)) follow(id, draw);
}

async function workersPage() {
  const body = el("tbody");
  main.replaceChildren(el("table", {}, el("thead", {}, el("tr", {},
    el("th", {}, "worker"), el("th", {}, "host"), el("th", {}, "slots"), el("th", {}, "busy"), el("th", {}, "fps"),
    el("th", {}, "memory"), el("th", {}, "shards done"), el("th", {}, "last heartbeat"))), body));
  const draw = async () => {
    const workers = await call("/workers");
    const now = Date.now() / 1000;
    body.replaceChildren(...(workers.length ? workers.map(w => el("tr", {},
      el("td", {}, w.workerID), el("td", {}, w.host), el("td", {}, String(w.slots)), el("td", {}, String(w.busy)),
      el("td", {}, (w.framesPerSecond || 0).toFixed(1)),
      el("td", {}, w.residentKB != null ? (w.residentKB / 1024).toFixed(0) + " MiB" : "—"),
      el("td", {}, String(w.shardsDone)), el("td", {}, Math.max(0, now - w.lastHeartbeat).toFixed(1) + " s ago")))
      : [el("tr", {}, el("td", { colspan: "8", class: "muted" }, "no workers connected"))]));
  };
  await draw();
  const timer = setInterval(() => { if (location.hash !== "#/workers") clearInterval(timer); else draw().catch(() => {}); }, 2000);
}

async function route() {
  stopFollowing();
  const hash = location.hash || "#/";
  document.getElementById("nav-jobs").className = hash === "#/" || hash.startsWith("#/jobs") ? "here" : "";
  document.getElementById("nav-workers").className = hash === "#/workers" ? "here" : "";
  try {
    if (hash.startsWith("#/jobs/")) await jobPage(decodeURIComponent(hash.slice(7)));
    else if (hash === "#/workers") await workersPage();
    else await jobsPage();
  } catch (e) {
    main.replaceChildren(el("p", { class: "error" }, e.message), el("p", { class: "muted" }, "Enter an API token above if the farm needs one."));
  }
}
window.addEventListener("hashchange", route);
route();
</script>
</body>
</html>
"""#
}
