"""The two figures across workloads: the answer per mode (what each candidate adds, the answer
drawn thick) and correctness by API × mode over every workload."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.core.schema import Status
from bench.measured.modes import MODES, label
from bench.report.plots import STATUS_COLOURS, _figure, _heatmap, _log, _save, added, style

WORST = tuple(
    s.label for s in (Status.INCORRECT, Status.CRASHED, Status.TIMEOUT, Status.RAISES, Status.WORKS)
)


def answer_figure(runs: dict, answers: dict, path: Path) -> Path | None:
    """One panel per mode: the clip's added time per step of every strategy, the answer thick."""
    run = runs.get("clip")
    if run is None:
        return None
    modes = [m for m in MODES if m in run.modes]
    ncols = min(3, len(modes))
    nrows = -(-(len(modes) + 1) // ncols)  # one more panel for the shared legend
    fig, axes = _figure(width=5.4 * ncols, height=4.4 * nrows, ncols=ncols, nrows=nrows)
    styles = style()
    handles: dict[str, object] = {}
    for ax, mode in zip(axes, modes):
        m = run.analysis.get(mode)
        choice = answers.get(mode)
        pick = choice.strategy if choice else None
        by: dict[str, list] = {}
        for c in m.of_role("update") if m else []:
            if c.shows_cost:
                by.setdefault(c.id.strategy, []).append(c)
        for strategy, cs in sorted(by.items()):
            cs.sort(key=lambda c: c.id.size)
            s = styles[strategy]
            x = [c.id.size for c in cs]
            y = np.asarray([c.estimate.added_s for c in cs]) * 1e6
            lo = np.asarray([c.estimate.added_interval[0] for c in cs]) * 1e6
            hi = np.asarray([c.estimate.added_interval[1] for c in cs]) * 1e6
            wide = strategy == pick
            (line,) = ax.plot(
                x,
                y,
                ls=s["ls"],
                marker=s["marker"],
                color=s["color"],
                lw=3 if wide else 1,
                alpha=1 if wide else 0.6,
                zorder=5 if wide else 2,
                label=strategy,
            )
            handles.setdefault(strategy, line)
            if wide:
                ax.annotate(
                    f"answer: {strategy}",
                    (x[-1], y[-1]),
                    xytext=(-6, 8),
                    textcoords="offset points",
                    ha="right",
                    fontsize=8,
                    color=s["color"],
                    fontweight="bold",
                )
                ax.fill_between(x, lo, hi, color=s["color"], alpha=0.25)
        _log(ax, "x")
        ax.set_yscale("symlog", linthresh=10)
        ax.axhline(0, color="black", lw=0.8)
        ax.set(title=label(mode), xlabel="batch size N (samples)")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylabel("time the update adds per step (µs)")
    for ax in axes[len(modes) :]:
        ax.axis("off")
    from matplotlib.lines import Line2D

    axes[len(modes)].legend(
        handles=[
            Line2D([], [], ls=styles[k]["ls"], marker=styles[k]["marker"], color=styles[k]["color"])
            for k in sorted(handles)
        ],
        labels=sorted(handles),
        loc="center",
        fontsize=9,
        ncols=2,
        title="strategy (thick, with its 95 % band: the answer of the mode)",
        title_fontsize=9,
    )
    fig.suptitle(
        "The answer per mode: the clip cell of the original report "
        f"(band: the answer's 95 % interval) · MindSpore "
        f"{run.environment.get('mindspore', '?')} · run {run.manifest.run_id}",
        fontsize=10,
    )
    return _save(fig, path)


def correctness_figure(runs: dict, path: Path) -> Path | None:
    """Strategy × mode: the worst verdict over every shape of every workload, with counts."""
    from matplotlib.patches import Patch

    if not runs:
        return None
    modes = [m for m in MODES if any(m in r.modes for r in runs.values())]
    strategies = sorted({s for r in runs.values() for s in r.verdicts.strategy} - {"control"})
    codes = list(STATUS_COLOURS)
    grid = np.full((len(strategies), len(modes)), np.nan)
    texts = {}
    for i, s in enumerate(strategies):
        for j, mode in enumerate(modes):
            labels = []
            for r in runs.values():
                v = r.verdicts
                labels += list(v[(v.strategy == s) & (v["mode"] == mode)].label)
            labels = [x for x in labels if x not in ("n/a", "broken file")]
            if not labels:
                grid[i, j] = codes.index("n/a")
                continue
            worst = next(w for w in WORST if w in labels)
            grid[i, j] = codes.index(worst)
            texts[(i, j)] = f"{labels.count(Status.WORKS.label)}/{len(labels)}"
    fig, (ax,) = _figure(width=2.0 * len(modes) + 3, height=0.35 * len(strategies) + 2.5)
    _heatmap(
        ax,
        grid,
        strategies,
        [label(m) for m in modes],
        texts,
        "shapes that work / shapes gated, over every workload; colour: the worst verdict",
    )
    handles = [Patch(color=c, label=s) for s, c in STATUS_COLOURS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=8)
    version = next(iter(runs.values())).environment.get("mindspore", "?")
    fig.suptitle(f"Correctness by API × mode, {', '.join(runs)} · MindSpore {version}", fontsize=10)
    return _save(fig, path)


__all__ = ["added", "answer_figure", "correctness_figure"]
