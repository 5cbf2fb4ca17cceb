"""The plots (matplotlib, no pyplot state): one look at what the tables say.

A distinct colour *and* marker per strategy (tab20 and a marker cycle, so no two lines look
alike), labelled log ticks, the CPU model in every title, and no colour that calls an invalid
ratio "best". Every figure is written atomically.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd

from bench.core.io import write_bytes_atomic
from bench.report import fmt
from bench.report.matrix import not_applicable

MARKERS = "osD^v<>pPX*hH8d"
STATUS_COLOURS = {  # support heatmap: a colour per outcome
    "works": "#4daf4a",
    "incorrect": "#e41a1c",
    "raises": "#ff7f00",
    "crashed": "#984ea3",
    "timeout": "#a65628",
    "inexpressible": "#dddddd",
    "broken": "#999999",
}
STATUS_CODES = {
    "works": "ok",
    "incorrect": "SILENT",
    "raises": "raises",
    "crashed": "crash",
    "timeout": "hang",
    "inexpressible": "–",
    "broken": "broken",
}


def _style(names: list[str]) -> dict[str, dict]:
    from matplotlib import colormaps

    cmap = colormaps["tab20"]
    return {
        n: {"color": cmap(i % 20), "marker": MARKERS[i % len(MARKERS)]}
        for i, n in enumerate(sorted(names))
    }


def _figure(width=8.0, height=5.0, ncols=1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(1, ncols, squeeze=False)[0]


def _log(ax, *axes: str) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator

    for axis in axes:
        getattr(ax, f"set_{axis}scale")("log")
        a = getattr(ax, f"{axis}axis")
        a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        a.set_minor_formatter(FuncFormatter(lambda *_: ""))


def _save(fig, path: Path) -> Path:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return write_bytes_atomic(path, buffer.getvalue())


def _timed_working(cells: pd.DataFrame) -> pd.Series:
    """Cells with numbers that belong on a plot: timed, and right in every timing process."""
    return (cells.processes > 0) & (cells.status == "works")


def overhead(cells: pd.DataFrame, mode: str, cpu: str, path: Path) -> Path:
    rows = cells[(cells["mode"] == mode) & (cells.role == "update") & _timed_working(cells)]
    fig, (ax,) = _figure()
    style = _style(list(rows.strategy.unique()))
    ax.axhline(1.0, color="black", lw=1, label="no overhead")
    for strategy, group in rows.groupby("strategy"):
        g = group.sort_values("batch_size")
        s = style[strategy]
        label = f"{strategy} ({g['shape'].iloc[0]})"
        ax.plot(g.batch_size, g.ratio, "-", marker=s["marker"], color=s["color"], label=label)
        ax.fill_between(g.batch_size, g.ratio_low, g.ratio_high, color=s["color"], alpha=0.15)
        bad = g[g.control_invalid]
        ax.scatter(bad.batch_size, bad.ratio, marker="x", s=80, color="red", zorder=5)
    _log(ax, "x")
    ax.set(
        title=f"Update overhead vs no-update twin, {fmt.mode_label(mode)}\n{cpu}",
        xlabel="batch size",
        ylabel="strategy / control per step (95 % CI)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncols=2)
    return _save(fig, path)


def step_time(cells: pd.DataFrame, mode: str, cpu: str, path: Path) -> Path:
    rows = cells[(cells["mode"] == mode) & _timed_working(cells)]
    fig, (ax,) = _figure()
    style = _style([f"{r.strategy}/{r.shape}" for r in rows.itertuples()])
    for (strategy, shape, role), group in rows.groupby(["strategy", "shape", "role"]):
        g = group.sort_values("batch_size")
        s = style[f"{strategy}/{shape}"]
        dashed = role == "layout"
        err = [g.step_s - g.process_min_s, g.process_max_s - g.step_s]
        ax.errorbar(
            g.batch_size,
            g.step_s * 1e3,
            yerr=np.array(err) * 1e3,
            capsize=2,
            ls="--" if dashed else "-",
            marker=s["marker"],
            color=s["color"],
            label=f"{strategy} ({shape})" + (" [control]" if dashed else ""),
        )
    _log(ax, "x", "y")
    ax.set(
        title=f"Time per step (bars: min–max over processes), {fmt.mode_label(mode)}\n{cpu}",
        xlabel="batch size",
        ylabel="ms per step",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncols=2)
    return _save(fig, path)


def support(verdicts: pd.DataFrame, modes: list[str], cpu: str, path: Path) -> Path:
    """Strategy × mode panels of shapes coloured by verdict."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    v = verdicts[verdicts.strategy != "control"]
    v = v[~v.strategy.isin(not_applicable(v))]  # strategies for other workloads only
    strategies = sorted(v.strategy.unique())
    shapes = sorted(v["shape"].unique())
    codes = list(STATUS_COLOURS)
    fig, axes = _figure(
        width=3.2 * len(modes) + 2, height=0.22 * len(shapes) + 2.5, ncols=len(modes)
    )
    for ax, mode in zip(axes, modes):
        grid = np.full((len(shapes), len(strategies)), np.nan)
        for r in v[v["mode"] == mode].itertuples():
            grid[shapes.index(r.shape), strategies.index(r.strategy)] = codes.index(r.status)
        ax.imshow(
            grid,
            cmap=ListedColormap(list(STATUS_COLOURS.values())),
            vmin=-0.5,
            vmax=len(codes) - 0.5,
            aspect="auto",
            interpolation="nearest",
        )
        ax.set_xticks(range(len(strategies)), strategies, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(
            range(len(shapes)), shapes if ax is axes[0] else [""] * len(shapes), fontsize=6
        )
        ax.set_title(fmt.mode_label(mode), fontsize=9)
    handles = [Patch(color=c, label=STATUS_CODES[s]) for s, c in STATUS_COLOURS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8)
    fig.suptitle(
        "Verdict of every strategy × shape (grey: cannot be written in this shape; white: not a "
        f"shape of its layout) — {cpu}",
        fontsize=10,
    )
    return _save(fig, path)


def layout(cells: pd.DataFrame, modes: list[str], cpu: str, path: Path) -> Path:
    rows = cells[(cells.role == "layout") & (cells.processes > 0)]
    fig, axes = _figure(width=4 * len(modes), height=4, ncols=len(modes))
    style = _style(list(rows["shape"].unique()))
    for ax, mode in zip(axes, modes):
        for shape, group in rows[rows["mode"] == mode].groupby("shape"):
            g = group.sort_values("batch_size")
            s = style[shape]
            ax.plot(g.batch_size, g.ratio, "-", marker=s["marker"], color=s["color"], label=shape)
            ax.fill_between(g.batch_size, g.ratio_low, g.ratio_high, color=s["color"], alpha=0.15)
        _log(ax, "x", "y")
        ax.axhline(1.0, color="black", lw=1)
        ax.set(title=fmt.mode_label(mode), xlabel="batch size")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("control / base control per step")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Cost of the state's layout and read (no update) — {cpu}", fontsize=10)
    return _save(fig, path)


def cost_vs_size(rows: pd.DataFrame, mode: str, cpu: str, symbol: str, path: Path) -> Path:
    """Time per step against state size, log-log, with each cell's memory-bandwidth floor."""
    mine = rows[rows["mode"] == mode]
    fig, (ax,) = _figure()
    style = _style([f"{r.strategy}/{r.shape}" for r in mine.itertuples()])
    for (strategy, shape), group in mine.groupby(["strategy", "shape"]):
        g = group.sort_values("batch_size")
        s = style[f"{strategy}/{shape}"]
        ax.plot(g.batch_size, g.step_s * 1e3, "-", marker=s["marker"], color=s["color"],
                label=f"{strategy} ({shape})")  # fmt: skip
        ax.plot(g.batch_size, g.floor_s * 1e3, ":", color=s["color"], lw=1)
    _log(ax, "x", "y")
    ax.set(title=f"Time per step vs state size (dotted: memory-bandwidth floor), "
           f"{fmt.mode_label(mode)}\n{cpu}", xlabel=symbol, ylabel="ms per step")  # fmt: skip
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncols=2)
    return _save(fig, path)


def write_all(run, plots_dir: Path) -> list[Path]:
    plots_dir = Path(plots_dir)
    cpu = run.environment.get("cpu") or "?"
    modes = list(run.plan.get("modes", []))
    paths = [support(run.verdicts, modes, cpu, plots_dir / "support.png")]
    cells = run.cells
    if len(cells) and (cells.processes > 0).any():
        for mode in modes:
            if ((cells["mode"] == mode) & (cells.processes > 0)).any():
                paths.append(overhead(cells, mode, cpu, plots_dir / f"overhead-{mode}.png"))
                paths.append(step_time(cells, mode, cpu, plots_dir / f"step_time-{mode}.png"))
        if (cells.role == "layout").any():
            paths.append(layout(cells, modes, cpu, plots_dir / "layout.png"))
        from bench.report.costs import floors

        rows = floors(run)
        for mode in modes if len(rows) else []:
            if (rows["mode"] == mode).any():
                path = plots_dir / f"cost_vs_size-{mode}.png"
                paths.append(cost_vs_size(rows, mode, cpu, run.symbol, path))
    return paths
