"""Wall time against workers, one curve per value of the varied knob, each point marked by
what limits it (docs/scale.md)."""
from __future__ import annotations

MARKERS = {
    "workers' CPU": "o",
    "the tail: one video shard": "s",
    "the tail: the audio track": "*",
    "coordinator's loop": "^",
    "coordinator's link out (media)": "v",
    "coordinator's link in (chunks)": "<",
    "origin": "D",
    "assembly": "P",
    "the submission's probes": "X",
}


def draw(report: dict, path: str, title: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(7.5, 4.6), dpi=110)
    seen = set()
    for curve in report["curves"]:
        xs = [p["workers"] for p in curve["points"]]
        ys = [p["wall_seconds"] for p in curve["points"]]
        label = curve["label"] or "wall time"
        line, = ax.plot(xs, ys, "-", label=label)
        for p in curve["points"]:
            limit = p["limit"]
            ax.plot(p["workers"], p["wall_seconds"], MARKERS.get(limit, "x"), color=line.get_color(),
                    markersize=7, markeredgecolor="black")
            seen.add(limit)
    for limit in sorted(seen):
        ax.plot([], [], MARKERS.get(limit, "x"), color="grey", markeredgecolor="black", label=f"limit: {limit}")
    ax.axhline(30, color="grey", linestyle=":", linewidth=1)
    ax.text(report["sizes"][0], 31, "30 s goal", color="grey", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("two-core workers (2 slots each)")
    ax.set_ylabel("predicted wall time, s")
    ax.set_xticks(report["sizes"])
    ax.set_xticklabels([str(s) for s in report["sizes"]])
    walls = [p["wall_seconds"] for c in report["curves"] for p in c["points"]]
    ticks = [t for t in (5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600) if min(walls) * 0.8 <= t <= max(walls) * 1.2]
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(t) for t in ticks])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
