import Farm

/// The dashboard (docs/api.md, "Dashboard"): one page, no external files, no CDN, so it
/// works offline and ships inside `reel`. It reads only the public API under `/v1` with
/// the token the user enters (kept in the browser's localStorage):
///
/// * `#/` — jobs with live progress bars (from each job's event stream), fps and ETA as the API reports them;
/// * `#/jobs/ID` — the job: while it renders, its live preview playing through Media Source
///   Extensions from the preview's fMP4 segments; once done, the output from its signed URL
///   and a filmstrip drawn from it; its shard map (one cell per shard along the output
///   timeline, coloured by state, worker and time on hover), a picture per segment, and a
///   cancel button;
/// * `#/workers` — slots, busy, shards done, last heartbeat, and sparklines of each worker's
///   busy slots, CPU and memory over the last two minutes.
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
  .player { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin: .5rem 0 1rem; }
  .player video { width: 100%; max-width: 40rem; background: #000; border-radius: 4px; aspect-ratio: 16 / 9; }
  .strip { display: flex; gap: 2px; overflow-x: auto; max-width: 100%; margin: .3rem 0 1rem; }
  .strip canvas { height: 54px; width: auto; border-radius: 2px; background: var(--line); }
  svg.spark { width: 7rem; height: 1.6rem; vertical-align: middle; }
  svg.spark polyline { fill: none; stroke: var(--running); stroke-width: 1.5; }
  svg.spark rect { fill: var(--bg); }
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
  const video = el("video", { id: "preview", controls: "", playsinline: "", preload: "auto" });
  video.muted = true;
  const playerNote = el("div", { class: "muted", id: "player-note" });
  const strip = el("div", { class: "strip", id: "filmstrip" });
  const reprioritize = step => async () => {
    try { draw(await call("/jobs/" + id, { method: "PATCH", headers: { "Content-Type": "application/json" },
                                            body: JSON.stringify({ priority: (last ? last.priority : 0) + step }) })); }
    catch (e) { message.textContent = e.message; }
  };
  const up = el("button", { id: "priority-up", title: "higher priority: runs before lower ones", onclick: reprioritize(1) }, "Priority +1");
  const down = el("button", { id: "priority-down", title: "lower priority", onclick: reprioritize(-1) }, "Priority −1");
  main.replaceChildren(title, el("div", { class: "player" }, video, playerNote), strip, facts, bar, map, legend, thumbs, el("p", {}, cancel, " ", up, " ", down), message,
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
    message.textContent = status.error ? status.error.message + " (" + status.error.code + ")"
      : status.paused ? "paused: " + status.paused.message : "";
    workers.replaceChildren(...Object.entries(status.workers || {}).sort().map(([w, n]) =>
      el("tr", {}, el("td", {}, w), el("td", {}, String(n)))));
  }
  async function drawShards() {
    const shards = (await call("/jobs/" + id + "/shards")).filter(s => s.kind !== "audio" && s.kind !== "segmentAudio");
    const total = shards.reduce((sum, s) => sum + s.frames, 0) || 1;
    map.replaceChildren(...shards.map(s => {
      const kind = s.reused ? "reused" : (s.state === "queued" && s.lastError ? "failing" : s.state);
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
      .then(blob => { image.src = URL.createObjectURL(blob); if (segment === segments[0] && !video.poster) video.poster = image.src; })
      .catch(() => { image.alt = "segment " + segment + ": no picture"; });
  }
  // The picture: the live preview while it renders, the output once done.
  if (last.state === "done") playOutput(video, id, strip, playerNote).catch(e => { playerNote.textContent = e.message; });
  else if (!finalStates.has(last.state)) playPreview(video, id, playerNote).catch(e => { playerNote.textContent = "preview: " + e.message; });
  else video.hidden = true;
  const timer = setInterval(() => {
    if (!location.hash.startsWith("#/jobs/" + id)) { clearInterval(timer); return; }
    drawShards().catch(() => {});
    if (last && finalStates.has(last.state)) clearInterval(timer);
  }, 1000);
  if (!finalStates.has(last.state)) follow(id, draw);
}

// ---- pictures ----
// The live preview (docs/api.md, "Live preview"): the playlist read again every second,
// each new segment fetched with the token and appended in order to a Media Source
// Extensions buffer, until the playlist ends.
async function playPreview(video, id, note) {
  if (!window.MediaSource) { note.textContent = "this browser has no Media Source Extensions: no preview"; return; }
  const source = new MediaSource();
  video.src = URL.createObjectURL(source);
  await new Promise(resolve => source.addEventListener("sourceopen", resolve, { once: true }));
  const bytes = async path => {
    const response = await fetch(api + "/jobs/" + id + "/" + path, { headers: headers() });
    if (!response.ok) throw new Error(response.status + " for " + path);
    return response.arrayBuffer();
  };
  let buffer = null, appended = 0;
  const append = data => new Promise((resolve, reject) => {
    buffer.addEventListener("updateend", resolve, { once: true });
    buffer.addEventListener("error", () => reject(new Error("the browser refused a segment")), { once: true });
    buffer.appendBuffer(data);
  });
  note.textContent = "waiting for the first segment";
  while (location.hash === "#/jobs/" + id && source.readyState === "open") {
    const response = await fetch(api + "/jobs/" + id + "/preview.m3u8", { headers: headers() });
    if (!response.ok) { note.textContent = "no preview (" + response.status + ")"; return; }
    const lines = (await response.text()).split("\n");
    const segments = lines.filter(line => line.startsWith("preview/") && line.includes(".m4s"));
    const ended = lines.includes("#EXT-X-ENDLIST");
    if (segments.length && !buffer) {
      const init = await bytes("preview/init.mp4");
      const type = 'video/mp4; codecs="' + codecs(new Uint8Array(init)) + '"';
      if (!MediaSource.isTypeSupported(type)) { note.textContent = "this browser cannot play " + type; return; }
      buffer = source.addSourceBuffer(type);
      await append(init);
    }
    while (buffer && appended < segments.length) {
      await append(await bytes(segments[appended]));
      appended += 1;
      if (appended === 1) video.play().catch(() => {});
    }
    note.textContent = "live preview: " + appended + " segment" + (appended === 1 ? "" : "s") + (ended ? ", all of them" : " rendered so far");
    if (ended) { if (buffer && !buffer.updating) source.endOfStream(); return; }
    await new Promise(resolve => setTimeout(resolve, 1000));
  }
}
// The MSE type's codecs from the init segment: avc1.PPCCLL from the avcC box's profile,
// constraints and level; mp4a.40.2 (AAC-LC) when there is sound.
function codecs(init) {
  const find = name => {
    for (let i = 4; i + 4 <= init.length; i++) {
      if (init[i] === name.charCodeAt(0) && init[i + 1] === name.charCodeAt(1) && init[i + 2] === name.charCodeAt(2) && init[i + 3] === name.charCodeAt(3)) return i + 4;
    }
    return -1;
  };
  const hex = b => b.toString(16).padStart(2, "0");
  const list = [];
  const avc = find("avcC");
  if (avc >= 0) list.push("avc1." + hex(init[avc + 1]) + hex(init[avc + 2]) + hex(init[avc + 3]));
  else if (find("hvcC") >= 0) list.push("hvc1.1.6.L120.90");
  if (find("mp4a") >= 0) list.push("mp4a.40.2");
  return list.join(", ");
}
// A finished job: its output from a signed URL (a <video> sends no token), and a filmstrip
// of eight frames drawn from it by a second, hidden player.
async function playOutput(video, id, strip, note) {
  const signed = await call("/jobs/" + id + "/output-url", { method: "POST", headers: { "Content-Type": "application/json" },
                                                             body: JSON.stringify({ seconds: 3600 }) });
  video.src = signed.url;
  note.textContent = "the output";
  const reader = el("video", { preload: "auto" });
  reader.muted = true;
  reader.src = signed.url;
  const once = (target, name) => new Promise((resolve, reject) => {
    target.addEventListener(name, resolve, { once: true });
    target.addEventListener("error", () => reject(new Error("the output cannot be read")), { once: true });
  });
  await once(reader, "loadeddata");
  const count = 8;
  for (let i = 0; i < count && location.hash === "#/jobs/" + id; i++) {
    reader.currentTime = (i + 0.5) * reader.duration / count;
    await once(reader, "seeked");
    const canvas = el("canvas", { width: "160", height: String(Math.max(1, Math.round(160 * reader.videoHeight / reader.videoWidth))),
                                  title: clock(reader.currentTime) });
    canvas.getContext("2d").drawImage(reader, 0, 0, canvas.width, canvas.height);
    strip.append(canvas);
  }
}
// A sparkline of the last values (an SVG polyline), `top` at the top; the newest value and
// `label` on hover.
function spark(values, top, label, text) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "spark");
  svg.setAttribute("viewBox", "0 0 100 20");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("data-points", String(values.length));
  const back = document.createElementNS(ns, "rect");
  back.setAttribute("width", "100"); back.setAttribute("height", "20");
  const line = document.createElementNS(ns, "polyline");
  const step = 100 / Math.max(1, values.length - 1);   // the points kept so far span the width
  line.setAttribute("points", values.map((v, i) => (i * step).toFixed(1) + "," + (19 - 18 * Math.min(1, v / (top || 1))).toFixed(1)).join(" "));
  const title = document.createElementNS(ns, "title");
  title.textContent = label + ": " + text;
  svg.append(back, line, title);
  return el("span", { class: label.replace(/ /g, "-") }, svg, " " + text);
}
const sparkLength = 60;
const workerHistory = new Map();

async function workersPage() {
  const body = el("tbody");
  main.replaceChildren(el("table", {}, el("thead", {}, el("tr", {},
    el("th", {}, "worker"), el("th", {}, "busy slots"), el("th", {}, "CPU"), el("th", {}, "memory"), el("th", {}, "fps"),
    el("th", {}, "shards done"), el("th", {}, "host"), el("th", {}, "last heartbeat"), el("th", {}, "pools"), el("th", {}, "state"))), body));
  // Each worker's figures every 2 s, the last 2 minutes kept (while the page is open).
  const draw = async () => {
    const workers = await call("/workers");
    const now = Date.now() / 1000;
    for (const w of workers) {
      const points = workerHistory.get(w.workerID) || [];
      points.push({ busy: w.busy, cpu: w.cpuCores || 0, memory: (w.residentKB || 0) / 1024 });
      workerHistory.set(w.workerID, points.slice(-sparkLength));
    }
    body.replaceChildren(...(workers.length ? workers.map(w => {
      const points = workerHistory.get(w.workerID);
      const topMemory = Math.max(256, ...points.map(p => p.memory));
      return el("tr", { "data-worker": w.workerID },
        el("td", {}, w.workerID),
        el("td", {}, spark(points.map(p => p.busy), w.slots, "busy slots", w.busy + " / " + w.slots)),
        el("td", {}, spark(points.map(p => p.cpu), Math.max(1, w.slots), "CPU", w.cpuCores != null ? Math.round(w.cpuCores * 100) + " %" : "—")),
        el("td", {}, spark(points.map(p => p.memory), topMemory, "memory", w.residentKB != null ? (w.residentKB / 1024).toFixed(0) + " MiB" : "—")),
        el("td", {}, (w.framesPerSecond || 0).toFixed(1)),
        el("td", {}, String(w.shardsDone)), el("td", {}, w.host), el("td", {}, Math.max(0, now - w.lastHeartbeat).toFixed(1) + " s ago"),
        el("td", {}, (w.pools || []).join(", ") || "—"),
        el("td", { "data-state": w.state || "ready", title: w.quarantineReason || "" },
          w.state === "quarantined" && w.quarantinedUntil ? "quarantined for " + Math.max(0, w.quarantinedUntil - now).toFixed(0) + " s" : (w.state || "ready")));
    }) : [el("tr", {}, el("td", { colspan: "10", class: "muted" }, "no workers connected"))]));
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
