"""A discrete-event, fluid simulation of one job on a farm (docs/scale.md, "The model").

Work that shares a resource shares it equally: a running shard progresses at the slowest of
its CPU share (at most one core: the engine decodes and encodes a shard on one thread) and
its media share (its worker's link, and the coordinator's or the origin's link, divided
among the shards reading through it); a chunk's upload shares its worker's link and the
coordinator's. The coordinator's event loop is one FIFO server: dispatches and commits wait
for it. Between events every rate is constant, so the simulation jumps from event to event.
"""
from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field

from .model import Costs, Farm, Task

EPSILON = 1e-9


# The coordinator sends the probes workers make at its loop's next tick (docs/architecture.md,
# "Probes by content id").
PROBE_DISPATCH_SECONDS = 0.1


@dataclass
class Attempt:
    task: Task
    worker: int
    number: int
    dispatched: float
    phase: str = "dispatching"      # dispatching → running → uploading → committing → ended
    started: float = 0.0
    remaining: float = 1.0          # running: the fraction of the shard's work left
    fail_at: float = -1.0           # running: the fraction left when its worker dies, or < 0
    upload_left: float = 0.0        # uploading: bytes
    fetched: float = 0.0            # running: media bytes fetched so far


@dataclass
class Worker:
    index: int
    slots: int
    joined: bool = False
    dead: bool = False
    attempts: list = field(default_factory=list)
    busy_seconds: float = 0.0       # slot-seconds holding an attempt
    tick_due: bool = False          # the scheduler will look for a backup copy for it
    held: set = field(default_factory=set)   # tasks whose media it has fetched (its block cache)


@dataclass
class Result:
    wall_seconds: float
    first_chunk_seconds: float
    probe_seconds: float            # submission to the job's creation: its sources probed
    render_seconds: float           # submission to the last chunk stored
    assembly_seconds: float
    coordinator_egress_bytes: float
    coordinator_ingress_bytes: float
    origin_bytes: float
    attempts: int
    backup_copies: int
    failures: int
    worker_slot_utilisation: float
    worker_cpu_utilisation: float
    coordinator_cpu_utilisation: float
    coordinator_out_utilisation: float
    coordinator_in_utilisation: float
    origin_utilisation: float
    longest_task_seconds: float
    ideal_compute_seconds: float
    limit: str = ""
    utilisation: dict = field(default_factory=dict)


class Simulation:
    def __init__(self, tasks: list[Task], farm: Farm, costs: Costs, sources: int = 1,
                 probes: str | None = None, assembly_after: bool = False):
        self.tasks = tasks
        # Sources probed at submission (media new to the farm) by "workers" or by the
        # "coordinator"; None: known by content id.
        self.probes = probes
        # The whole file written after the last chunk (before this round); else the lane
        # writes each chunk as the chunks before it are there.
        self.assembly_after = assembly_after
        self.lane_free = 0.0
        self.lane_next = 0
        self.farm = farm
        self.costs = costs
        self.sources = sources
        self.random = random.Random(farm.seed)
        self.now = 0.0
        self.events: list = []          # (time, order, kind, payload)
        self.order = 0
        self.queue = [t.index for t in tasks]
        heapq.heapify(self.queue)
        self.done: set[int] = set()
        self.running: dict[int, list[Attempt]] = {}
        self.durations: list[float] = []
        # Finished attempts' seconds by kind: video per frame (shards differ in length),
        # audio per piece; what a fresh attempt of a task is expected to take.
        self.spent = {"video": [0.0, 0], "audio": [0.0, 0]}
        self.workers = [Worker(i, farm.slots) for i in range(farm.workers)]
        self.coordinator_free = 0.0
        self.coordinator_busy = 0.0
        self.egress = self.ingress = self.origin = 0.0
        self.cpu_used = 0.0
        self.first_chunk = None
        self.last_stored = 0.0
        self.attempt_count = self.backups = self.failures = 0
        self.attempt_numbers: dict[int, int] = {}
        self.finished = None
        # The longest task alone on an idle farm: a bound no number of workers lowers.
        alone = lambda t: max(t.cpu_seconds, t.media_bytes / farm.worker_link_bps) + t.chunk_bytes / farm.worker_link_bps
        longest = max(tasks, key=alone)
        self.longest = alone(longest)
        self.tail_label = "the tail: the audio track" if longest.kind == "audio" else "the tail: one video shard"

    # The event queue.
    def at(self, time: float, kind: str, payload=None):
        self.order += 1
        heapq.heappush(self.events, (time, self.order, kind, payload))

    def coordinator(self, seconds: float, kind: str, payload=None):
        """Runs `seconds` of work on the coordinator's loop after what is already waiting."""
        start = max(self.now, self.coordinator_free)
        self.coordinator_free = start + seconds
        self.coordinator_busy += seconds
        self.at(self.coordinator_free, kind, payload)

    def run(self) -> Result:
        # The submission's probes run before the job exists: on the workers, one at a time
        # on each (its still thread), sent at the loop's next tick (0.1 s); before this
        # round, one per coordinator core. Media the farm has seen were probed when their
        # bytes arrived.
        if self.probes == "workers":
            rounds = math.ceil(self.sources / max(1, self.farm.workers))
            self.probing = PROBE_DISPATCH_SECONDS + self.costs.probe_seconds_per_source * rounds
        elif self.probes == "coordinator":
            rounds = math.ceil(self.sources / max(1, self.farm.coordinator_cores))
            self.probing = self.costs.probe_seconds_per_source * rounds
        else:
            self.probing = 0.0
        start = self.probing + self.costs.job_start_seconds
        for w in self.workers:
            self.at(max(start, self.farm.worker_start_seconds), "join", w.index)
        while self.finished is None:
            self.step()
        return self.result()

    # One step: advance the fluid work to the next completion or event.
    def step(self):
        active = [a for w in self.workers for a in w.attempts if a.phase in ("running", "uploading")]
        rates = self.rates(active)
        next_event = self.events[0][0] if self.events else float("inf")
        dt = next_event - self.now
        for a in active:
            rate = rates[id(a)]
            if rate <= 0:
                continue
            left = (a.remaining - max(a.fail_at, 0.0)) if a.phase == "running" else a.upload_left
            dt = min(dt, left / rate)
        if dt == float("inf"):
            raise RuntimeError("the simulation is stuck: nothing runs and nothing is due")
        dt = max(dt, 0.0)
        self.advance(active, rates, dt)
        self.now += dt
        for a in active:
            if a.phase == "running" and a.remaining - max(a.fail_at, 0.0) <= EPSILON:
                self.ran(a)
            elif a.phase == "uploading" and a.upload_left <= EPSILON * 1e3:
                a.phase = "committing"
                self.at(self.now + self.farm.latency_seconds, "chunk", a)
        while self.events and self.events[0][0] <= self.now + EPSILON:
            _, _, kind, payload = heapq.heappop(self.events)
            getattr(self, "on_" + kind)(payload)

    def rates(self, active: list[Attempt]) -> dict[int, float]:
        f = self.farm
        running = [a for a in active if a.phase == "running"]
        uploading = [a for a in active if a.phase == "uploading"]
        per_worker_running: dict[int, int] = {}
        per_worker_up: dict[int, int] = {}
        for a in running:
            per_worker_running[a.worker] = per_worker_running.get(a.worker, 0) + 1
        for a in uploading:
            per_worker_up[a.worker] = per_worker_up.get(a.worker, 0) + 1
        reading = [a for a in running if a.task.media_bytes > 0]
        readers: dict[int, int] = {}
        for a in reading:
            readers[a.worker] = readers.get(a.worker, 0) + 1
        source_bps = f.coordinator_link_bps if f.media_via == "coordinator" else f.origin_bps
        rates = {}
        for a in running:
            cores, sharing = (f.host_cores, len(running)) if f.host_cores > 0 else (f.cores, per_worker_running[a.worker])
            # Each running shard takes `cpu_per_render_second` cores of its machine, at most
            # one of them on its render thread.
            demand = sharing * self.costs.cpu_per_render_second
            cpu = min(1.0, cores / demand) * self.efficiency(cores, min(sharing, cores))
            rate = cpu / max(a.task.cpu_seconds, EPSILON)
            if a.task.media_bytes > 0:
                net = min(f.worker_link_bps / readers[a.worker], source_bps / len(reading))
                rate = min(rate, net / a.task.media_bytes)
            rates[id(a)] = rate
        for a in uploading:
            rates[id(a)] = min(f.worker_link_bps / per_worker_up[a.worker], f.coordinator_link_bps / len(uploading))
        return rates

    def efficiency(self, cores: float, busy: float) -> float:
        """Each core's speed with `busy` of a machine's `cores` at work: 1 alone, the measured
        `core_efficiency` with all of them, in proportion between."""
        if cores <= 1 or busy <= 1:
            return 1.0
        return 1.0 - (1.0 - self.costs.core_efficiency) * (busy - 1) / (cores - 1)

    def advance(self, active: list[Attempt], rates: dict[int, float], dt: float):
        if dt <= 0:
            return
        f = self.farm
        for a in active:
            rate = rates[id(a)]
            if a.phase == "running":
                a.remaining -= rate * dt
                self.cpu_used += rate * a.task.cpu_seconds * dt
                ahead = f.read_ahead_bytes if a.task.kind == "video" else 0.0
                fetched = min(a.task.media_bytes, (1 - max(0.0, a.remaining)) * a.task.media_bytes + ahead)
                moved, a.fetched = max(0.0, fetched - a.fetched), max(a.fetched, fetched)
                if f.media_via == "coordinator":
                    self.egress += moved
                else:
                    self.origin += moved
            else:
                a.upload_left -= rate * dt
                self.ingress += rate * dt
        for w in self.workers:
            w.busy_seconds += len(w.attempts) * dt

    # Dispatch: a free slot takes the lowest queued task, or near the end a backup copy.
    def fill(self, worker: Worker):
        while worker.joined and not worker.dead and len(worker.attempts) < worker.slots:
            task = self.next_task(worker)
            if task is None:
                return
            number = self.attempt_numbers.get(task.index, 0) + 1
            self.attempt_numbers[task.index] = number
            attempt = Attempt(task, worker.index, number, self.now)
            worker.attempts.append(attempt)
            self.running.setdefault(task.index, []).append(attempt)
            self.attempt_count += 1
            self.coordinator(self.costs.dispatch_seconds, "dispatched", attempt)

    def next_task(self, worker: Worker) -> Task | None:
        while self.queue:
            index = heapq.heappop(self.queue)
            if index not in self.done:
                return self.tasks[index]
        # Nothing queued: a backup copy of the straggler running longest past the threshold.
        if not self.farm.backup_copies:
            return None
        copies = sum(1 for attempts in self.running.values() if sum(a.phase != "ended" for a in attempts) > 1)
        if copies >= max(1, len(self.tasks) // 10):
            return None   # at most a tenth of the job's shards copied at once
        # Only where the copy would finish first (the scheduler's rule, from each worker's
        # reported pace): a straggler whose pace ends it sooner than a fresh attempt of it
        # (its kind's finished attempts: video per frame, audio per piece) is left alone.
        # One with no pace yet (nothing encoded) is copied past the threshold.
        best = None
        for index, attempts in self.running.items():
            live = [a for a in attempts if a.phase != "ended"]
            if len(live) != 1 or live[0].worker == worker.index or index in self.done:
                continue
            attempt = live[0]
            age = self.now - attempt.dispatched
            fresh = self.expected_seconds(attempt.task)
            threshold = (max(self.farm.backup_factor * fresh, self.farm.backup_min_seconds) if fresh is not None
                         else self.farm.backup_first_seconds)
            if age < threshold:
                continue
            if attempt.phase in ("uploading", "committing"):
                continue   # every frame made: nothing a copy could win
            if index not in worker.held and any(
                    index in w.held and w is not worker and w.joined and not w.dead and len(w.attempts) < w.slots
                    for w in self.workers):
                continue   # an idle worker that holds its media takes it
            left = float("inf")
            if attempt.phase == "running" and attempt.remaining < 1.0 and self.now > attempt.started:
                left = attempt.remaining * (self.now - attempt.started) / (1.0 - attempt.remaining)
                if left <= (fresh if fresh is not None else threshold):
                    continue
            if best is None or (left, age) > best[0]:
                best = ((left, age), index)
        if best is None:
            if not worker.tick_due and self.running:
                worker.tick_due = True
                self.at(self.now + 1.0, "tick", worker.index)   # the scheduler looks again each second
            return None
        self.backups += 1
        return self.tasks[best[1]]

    def expected_seconds(self, task: Task) -> float | None:
        """What a fresh attempt of `task` takes, from finished attempts of its kind."""
        kind = "video" if task.kind == "video" else "audio"
        seconds, amount = self.spent[kind]
        if amount == 0:
            return None
        return seconds / amount * (task.frames if kind == "video" else 1)

    # Events.
    def on_join(self, index: int):
        self.workers[index].joined = True
        self.fill(self.workers[index])

    def on_tick(self, index: int):
        self.workers[index].tick_due = False
        self.fill(self.workers[index])

    def on_dispatched(self, attempt: Attempt):
        self.at(self.now + self.farm.latency_seconds + self.costs.handoff_seconds, "start", attempt)

    def on_start(self, attempt: Attempt):
        if attempt.phase == "ended":
            return
        attempt.phase = "running"
        attempt.started = self.now
        worker = self.workers[attempt.worker]
        if attempt.task.index in worker.held:
            attempt.fetched = attempt.task.media_bytes   # in its block cache: nothing to fetch
        worker.held.add(attempt.task.index)
        if self.farm.failure_rate > 0 and self.random.random() < self.farm.failure_rate:
            attempt.fail_at = self.random.random()

    def ran(self, attempt: Attempt):
        if attempt.fail_at >= 0:
            # Its worker died: the coordinator notices after three silent heartbeats.
            self.failures += 1
            worker = self.workers[attempt.worker]
            self.end(attempt)
            worker.dead, worker.joined = True, False
            worker.held = set()   # its replacement is a new machine, its cache empty
            for other in list(worker.attempts):
                self.end(other)
            self.at(self.now + self.farm.failure_detect_seconds, "lost", worker.index)
            return
        attempt.phase = "uploading"
        attempt.upload_left = attempt.task.chunk_bytes

    def on_lost(self, index: int):
        # The dead worker's shards go back to the queue; its replacement joins.
        for task_index, attempts in self.running.items():
            if task_index not in self.done and not any(a.phase != "ended" for a in attempts):
                heapq.heappush(self.queue, task_index)
        worker = self.workers[index]
        worker.dead = False
        self.at(self.now + self.farm.worker_start_seconds, "join", index)
        for w in self.workers:
            self.fill(w)

    def on_chunk(self, attempt: Attempt):
        cost = self.costs.commit_seconds + self.costs.commit_seconds_per_byte * attempt.task.chunk_bytes
        self.coordinator(cost, "stored", attempt)

    def on_stored(self, attempt: Attempt):
        worker = self.workers[attempt.worker]
        task = attempt.task
        if attempt.phase == "ended" or task.index in self.done:
            self.end(attempt)
            self.fill(worker)
            return
        self.done.add(task.index)
        self.durations.append(self.now - attempt.dispatched)
        kind = "video" if attempt.task.kind == "video" else "audio"
        self.spent[kind][0] += self.now - attempt.dispatched
        self.spent[kind][1] += attempt.task.frames if kind == "video" else 1
        if self.first_chunk is None and task.kind == "video":
            self.first_chunk = self.now
        self.end(attempt)
        for other in self.running.pop(task.index, []):
            if other.phase != "ended":
                self.end(other)        # beaten: cancelled, stops within a frame
                self.fill(self.workers[other.worker])
        self.last_stored = self.now
        # The assembly runs on a thread of its own, not on the loop: as the chunks arrive in
        # output order, or all of it after the last one.
        while not self.assembly_after and self.lane_next in self.done:
            task = self.tasks[self.lane_next]
            self.lane_free = max(self.lane_free, self.now) + self.costs.assembly_seconds_per_byte * task.chunk_bytes
            self.lane_next += 1
        if len(self.done) == len(self.tasks):
            if self.assembly_after:
                output = sum(t.chunk_bytes for t in self.tasks)
                seconds = self.costs.assembly_fixed_seconds + self.costs.assembly_after_seconds_per_byte * output
                self.at(self.now + seconds, "assembled")
            else:
                self.at(max(self.lane_free, self.now) + self.costs.assembly_fixed_seconds, "assembled")
        else:
            self.fill(worker)

    def on_assembled(self, _):
        self.finished = self.now

    def end(self, attempt: Attempt):
        attempt.phase = "ended"
        worker = self.workers[attempt.worker]
        if attempt in worker.attempts:
            worker.attempts.remove(attempt)

    def result(self) -> Result:
        f, wall = self.farm, self.finished
        render = self.last_stored
        total_cores = f.host_cores if f.host_cores > 0 else f.cores * f.workers
        slot_seconds = f.workers * f.slots * render
        work = sum(t.cpu_seconds for t in self.tasks)
        r = Result(
            wall_seconds=wall,
            first_chunk_seconds=self.first_chunk or wall,
            probe_seconds=self.probing,
            render_seconds=render,
            assembly_seconds=wall - render,
            coordinator_egress_bytes=self.egress,
            coordinator_ingress_bytes=self.ingress,
            origin_bytes=self.origin,
            attempts=self.attempt_count,
            backup_copies=self.backups,
            failures=self.failures,
            worker_slot_utilisation=sum(w.busy_seconds for w in self.workers) / max(slot_seconds, EPSILON),
            worker_cpu_utilisation=self.cpu_used / max(total_cores * render, EPSILON),
            coordinator_cpu_utilisation=self.coordinator_busy / max(wall, EPSILON),
            coordinator_out_utilisation=self.egress / max(f.coordinator_link_bps * render, EPSILON),
            coordinator_in_utilisation=self.ingress / max(f.coordinator_link_bps * render, EPSILON),
            origin_utilisation=self.origin / max(f.origin_bps * render, EPSILON),
            longest_task_seconds=self.longest,
            # A shard runs on one core, so no more than the slots run at once.
            ideal_compute_seconds=work / min(total_cores, f.workers * f.slots),
        )
        r.utilisation, r.limit = limit_of(r, wall, self.tail_label)
        return r


def limit_of(r: Result, wall: float, tail: str) -> tuple[dict, str]:
    """What bounds the wall time, as shares of it: the resource nearest to full."""
    shares = {
        "workers' CPU": r.worker_cpu_utilisation * r.render_seconds / wall,
        "coordinator's loop": r.coordinator_cpu_utilisation,
        "coordinator's link out (media)": r.coordinator_out_utilisation * r.render_seconds / wall,
        "coordinator's link in (chunks)": r.coordinator_in_utilisation * r.render_seconds / wall,
        "origin": r.origin_utilisation * r.render_seconds / wall,
        tail: r.longest_task_seconds / wall,
        "assembly": r.assembly_seconds / wall,
        "the submission's probes": r.probe_seconds / wall,
    }
    shares = {k: round(v, 4) for k, v in shares.items()}
    return shares, max(shares, key=shares.get)


def simulate(tasks: list[Task], farm: Farm, costs: Costs, sources: int = 1,
             probes: str | None = None, assembly_after: bool = False) -> Result:
    return Simulation(tasks, farm, costs, sources, probes, assembly_after).run()
