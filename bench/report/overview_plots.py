"""The two figures across workloads: the answer per mode (what each candidate adds, the answer
drawn thick) and correctness by API × mode over every workload (the fraction of shapes that
work)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from bench.core.schema import Status
from bench.measured.modes import MODES, label
from bench.report.plots import (
    ADDED_AXIS,
    _draw_linear,
    _figure,
    _log,
    _save,
    added,
    added_series,
    deterministic,
    not_drawn,
    style,
)


def answer_panels(runs: dict, answers: dict) -> list[list[dict]]:
    """What ``answer_figure`` draws, as data (the pages' consistency test reads it): one row per
    kind of state (``answers``: ``readme.kind_answers``), one panel per mode users run, each with
    the kind's answer (``pick``), the strategies drawn (correct in every shape of the kind's shown
    workload: ``plots.added_series``), the band and why the answer is not drawn if it is not."""
    from bench.decide import answer
    from bench.decide.decisions import SNIPPET_FROM

    rows = []
    for kind, per_mode in answers.items():
        mine = {w: r for w, r in runs.items() if answer.kind_of(r.work) == kind}
        w = SNIPPET_FROM.get(kind) if SNIPPET_FROM.get(kind) in mine else next(iter(mine))
        run = mine[w]
        panels = []
        for mode in (m for m in per_mode if not MODES[m].diagnostic and m in run.modes):
            pick, table = per_mode[mode][0].strategy, per_mode[mode][1]
            # the answer's label admits every workload of the kind where it is slower, not only
            # the one drawn: the pages say so (its outcome in each workload, from ``table``)
            slower_in = [x for x in mine if table.get(pick, {}).get(x) == answer.SLOWER]
            data = added_series(run, mode, pick, slower_in) or {
                "series": [],
                "band": "",
                "note": "",
            }
            note = data["note"] or (not_drawn(run, mode, pick) if not data["series"] else "")
            panels.append(
                {
                    "kind": kind,
                    "workload": w,
                    "run": run,
                    "mode": mode,
                    "pick": pick,
                    "series": data["series"],
                    "band": data["band"],
                    "note": note,
                }
            )
        rows.append(panels)
    return [r for r in rows if r]


@deterministic
def answer_figure(runs: dict, answers: dict, path: Path) -> Path | None:
    """One row per kind of state, one panel per mode users run (``answer_panels``): what each
    strategy correct in every shape adds to the step of the kind's shown workload, the kind's
    answer thick and labelled with its band (the 95 % interval, or the rounds' quartiles in a
    distribution mode), and a note where the answer's cost cannot be drawn."""
    from matplotlib.ticker import LogLocator, NullFormatter

    from bench.decide import answer

    rows = answer_panels(runs, answers)
    if not rows:
        return None
    ncols = max(len(r) for r in rows)
    fig, axes = _figure(width=4.6 * ncols, height=3.9 * len(rows), ncols=ncols, nrows=len(rows))
    styles = style()
    handles: dict[str, object] = {}
    for i, panels in enumerate(rows):
        for j in range(ncols):
            ax = axes[i * ncols + j]
            if j >= len(panels):
                ax.axis("off")
                continue
            p = panels[j]
            for s in p["series"]:
                st = styles[s["strategy"]]
                wide = s["answer"]
                (line,) = ax.plot(
                    s["x"],
                    s["y"],
                    ls=st["ls"],
                    marker=st["marker"],
                    color=st["color"],
                    lw=3 if wide else 1,
                    alpha=1 if wide else 0.6,
                    zorder=5 if wide else 2,
                )
                handles.setdefault(s["strategy"], line)
                if wide:
                    admits = answer.SLOWER_SOMEWHERE in s["label"]  # crossover: say so
                    ax.annotate(
                        f"the answer: {s['strategy']}"
                        + (f"\n({answer.SLOWER_SOMEWHERE})" if admits else ""),
                        (s["x"][-1], s["y"][-1]),
                        xytext=(-6, -34) if admits else (-6, 8),  # two lines: below the title
                        textcoords="offset points",
                        ha="right",
                        fontsize=8,
                        fontweight="bold",
                        bbox={"facecolor": "white", "edgecolor": st["color"], "alpha": 0.85},
                    )
                    ax.fill_between(s["x"], s["lo"], s["hi"], color=st["color"], alpha=0.25,
                                    label=p["band"])  # fmt: skip
                    ax.legend(loc="upper left", fontsize=7)
            if p["note"]:
                ax.text(0.5, 0.5, "\n".join(textwrap.wrap(p["note"], 40)), transform=ax.transAxes,
                        ha="center", va="center", fontsize=8, color="#D55E00",
                        bbox={"facecolor": "white", "edgecolor": "#D55E00"})  # fmt: skip
            _log(ax, "x")
            ax.xaxis.set_major_locator(LogLocator(base=10))  # a decade's labels only: no overlap
            ax.xaxis.set_minor_formatter(NullFormatter())
            _draw_linear(ax, p["series"], fontsize=7)
            title = f"{answer.KINDS[p['kind']]}\n{label(p['mode'])} ({p['workload']})"
            if p["pick"] is None:
                title += ": no answer"
            ax.set(title=title, xlabel=f"size {p['run'].symbol}")
            ax.title.set_fontsize(9)
            ax.grid(True, which="both", alpha=0.3)
            ax.set_ylabel(ADDED_AXIS, fontsize=8)
    if not handles:  # no timed series anywhere (gate-only runs): each panel says why in words
        print(f"report: {path.name}: no timed series in any panel: drawn without a legend")
    else:
        _strategies_legend(fig, handles, styles)
    run0 = rows[0][0]["run"]
    fig.suptitle(
        "The answer per kind of state and mode · MindSpore "
        f"{run0.environment.get('mindspore', '?')}",
        fontsize=10,
    )
    return _save(fig, path)


def _strategies_legend(fig, handles: dict, styles: dict) -> None:
    from matplotlib.lines import Line2D

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


def correctness_cells(runs: dict) -> tuple[list[str], list[str], dict]:
    """(strategies, modes, {(strategy, mode): (shapes that work, shapes gated)}) over every
    shape of every workload (shapes that cannot be written there do not count)."""
    modes = [m for m in MODES if any(m in r.modes for r in runs.values())]
    strategies = sorted({s for r in runs.values() for s in r.verdicts.strategy} - {"control"})
    counts = {}
    for s in strategies:
        for mode in modes:
            labels = []
            for r in runs.values():
                v = r.verdicts
                labels += list(v[(v.strategy == s) & (v["mode"] == mode)].label)
            labels = [x for x in labels if x not in ("n/a", "broken file")]
            if labels:
                counts[(s, mode)] = (labels.count(Status.WORKS.label), len(labels))
    return strategies, modes, counts


@deterministic
def correctness_figure(runs: dict, path: Path) -> Path | None:
    """Strategy × mode: coloured by the fraction of shapes that work over every shape of every
    workload (62/71 and 2/32 look different), the counts written in."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    if not runs:
        return None
    strategies, modes, counts = correctness_cells(runs)
    grid = np.full((len(strategies), len(modes)), np.nan)
    for (s, mode), (works, gated) in counts.items():
        grid[strategies.index(s), modes.index(mode)] = works / gated
    fig, (ax,) = _figure(width=2.0 * len(modes) + 3, height=0.35 * len(strategies) + 2.5)
    cmap = colormaps["cividis"].with_extremes(bad="#DDDDDD")  # colour-blind safe, light = works
    image = ax.imshow(grid, cmap=cmap, norm=Normalize(0, 1), aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(modes)), [label(m) for m in modes], rotation=50, ha="right", fontsize=7)
    ax.set_yticks(range(len(strategies)), strategies, fontsize=7)
    for (s, mode), (works, gated) in counts.items():
        i, j = strategies.index(s), modes.index(mode)
        ax.text(j, i, f"{works}/{gated}", ha="center", va="center", fontsize=6,
                color="black" if works / gated > 0.5 else "white")  # fmt: skip
    for i, s in enumerate(strategies):
        for j, mode in enumerate(modes):
            if (s, mode) not in counts:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=6, color="#555555")
    ax.set_title("shapes that work / shapes gated, over every workload (n/a: none can be written)",
                 fontsize=9)  # fmt: skip
    bar = fig.colorbar(image, ax=ax, shrink=0.6)
    bar.set_label("fraction of shapes that work", fontsize=8)
    version = next(iter(runs.values())).environment.get("mindspore", "?")
    fig.suptitle(f"Correctness by API × mode, {', '.join(runs)} · MindSpore {version}", fontsize=10)
    return _save(fig, path)


__all__ = ["added", "answer_figure", "answer_panels", "correctness_cells", "correctness_figure"]
