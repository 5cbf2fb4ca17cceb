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
    """One row per kind of state (``answers``: ``readme.kind_answers``), one panel per mode users
    run: what each strategy adds to the step of the kind's shown workload, drawn only where it is
    correct in every shape of that workload (``answer.outcomes``: a silently wrong strategy has
    no cost to draw); the kind's answer thick and labelled, with its band: the 95 % interval, or
    the rounds' quartiles in a distribution mode (PYNATIVE)."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter

    from bench.report import answer
    from bench.report.readme import SNIPPET_FROM

    rows = []
    for kind, per_mode in answers.items():
        mine = {w: r for w, r in runs.items() if answer.kind_of(r.work) == kind}
        w = SNIPPET_FROM.get(kind) if SNIPPET_FROM.get(kind) in mine else next(iter(mine))
        modes = [m for m in per_mode if not MODES[m].diagnostic and m in mine[w].modes]
        rows.append((kind, w, mine[w], modes, per_mode))
    if not rows:
        return None
    ncols = max(len(r[3]) for r in rows)
    fig, axes = _figure(width=4.6 * ncols, height=3.9 * len(rows), ncols=ncols, nrows=len(rows))
    styles = style()
    handles: dict[str, object] = {}
    for i, (kind, w, run, modes, per_mode) in enumerate(rows):
        for j in range(ncols):
            ax = axes[i * ncols + j]
            if j >= len(modes):
                ax.axis("off")
                continue
            mode = modes[j]
            pick = per_mode[mode][0].strategy
            said = answer.outcomes(run, mode)
            dist = MODES[mode].distribution
            m = run.analysis.get(mode)
            by: dict[str, list] = {}
            for c in m.of_role("update") if m else []:
                if c.shows_cost and said.get(c.id.strategy) in answer.TIMED:
                    by.setdefault(c.id.strategy, []).append(c)
            for strategy, cs in sorted(by.items()):
                cs.sort(key=lambda c: c.id.size)
                st = styles[strategy]
                x = [c.id.size for c in cs]
                if dist:
                    q = np.asarray([c.added_quartiles() for c in cs]) * 1e6
                    y, lo, hi = q[:, 1], q[:, 0], q[:, 2]
                else:
                    y = np.asarray([c.estimate.added_s for c in cs]) * 1e6
                    lo = np.asarray([c.estimate.added_interval[0] for c in cs]) * 1e6
                    hi = np.asarray([c.estimate.added_interval[1] for c in cs]) * 1e6
                wide = strategy == pick
                (line,) = ax.plot(
                    x,
                    y,
                    ls=st["ls"],
                    marker=st["marker"],
                    color=st["color"],
                    lw=3 if wide else 1,
                    alpha=1 if wide else 0.6,
                    zorder=5 if wide else 2,
                )
                handles.setdefault(strategy, line)
                if wide:
                    ax.annotate(
                        f"the answer: {strategy}",
                        (x[-1], y[-1]),
                        xytext=(-6, 8),
                        textcoords="offset points",
                        ha="right",
                        fontsize=8,
                        color=st["color"],
                        fontweight="bold",
                    )
                    band = "rounds' quartiles" if dist else "95 % interval"
                    ax.fill_between(x, lo, hi, color=st["color"], alpha=0.25, label=band)
                    ax.legend(loc="upper left", fontsize=7)
            _log(ax, "x")
            ax.xaxis.set_minor_formatter(NullFormatter())  # a decade's labels only: no overlap
            ax.set_yscale("symlog", linthresh=10)
            ax.axhspan(-10, 10, color="0.92", zorder=0)
            ax.axhline(0, color="black", lw=0.8)
            title = f"{answer.KINDS[kind]}\n{label(mode)} ({w})"
            if pick is None:
                title += ": no answer"
            ax.set(title=title, xlabel=f"size {run.symbol}")
            ax.title.set_fontsize(9)
            ax.grid(True, which="both", alpha=0.3)
            ax.set_ylabel("added per step (µs; linear inside the grey ±10)", fontsize=8)
    fig.legend(
        handles=[
            Line2D([], [], ls=styles[k]["ls"], marker=styles[k]["marker"], color=styles[k]["color"])
            for k in sorted(handles)
        ],
        labels=sorted(handles),
        loc="outside lower center",
        fontsize=8,
        ncols=min(8, len(handles)) or 1,
        title="strategies correct in every shape of the workload (the answer thick)",
        title_fontsize=8,
    )
    run0 = rows[0][2]
    fig.suptitle(
        "The answer per kind of state and mode · MindSpore "
        f"{run0.environment.get('mindspore', '?')}",
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
