"""The plots (matplotlib, no pyplot state): one look at what the tables say.

Every strategy keeps one style (colour, marker, line) in every plot of every mode and workload
(``style``: assigned once from the sorted names of every strategy file, so no two share one);
the colours are Okabe and Ito's colour-blind-safe palette; the answer of a mode is drawn thick;
the swept size is on a log axis, the time an update adds on a linear one, in % of the no-update
step, with the equivalence margin shaded and the series beyond the range named with their values;
every title carries the workload, MindSpore version and run. Every figure is written atomically.

Deterministic: every figure is drawn under matplotlib's default settings whatever a user's
``matplotlibrc`` says (``deterministic``: the bundled DejaVu Sans, the Agg renderer, 100 dpi) and
saved without metadata that changes (no software or date), as a palette PNG (``_save``), so the
same data give the same bytes (matplotlib, its fonts and Pillow are pinned in ``constraints.txt``);
a figure whose bytes are unchanged is not rewritten (``write_bytes_atomic``), so a re-render without
new data changes no file.
"""

from __future__ import annotations

import functools
import io
import math
from pathlib import Path

import numpy as np

from bench.core.io import remove, write_bytes_atomic
from bench.core.schema import Status
from bench.measured.discovery import strategy_names
from bench.measured.modes import label

OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
MARKERS = "osD^vP*Xh<>p"
LINES = ("-", "--", ":")
STATUS_COLOURS = {  # colour-blind safe; the words are the tables' (Status.label)
    Status.WORKS.label: "#009E73",
    "silently wrong": "#D55E00",
    Status.RAISES.label: "#E69F00",
    "crashes": "#CC79A7",
    "hangs": "#56B4E9",
    "n/a": "#DDDDDD",
    "broken file": "#999999",
}
EXTRA = ("control",)


def style(names=None) -> dict[str, dict]:
    """One style per strategy for the whole suite: by position in the sorted strategy names."""
    every = sorted(set(strategy_names()) | set(names or ()) | set(EXTRA))
    out = {}
    for i, n in enumerate(every):
        out[n] = {
            "color": OKABE_ITO[i % len(OKABE_ITO)],
            # colour and line repeat every 24 names: the marker moves on by one then, so
            # styles stay distinct up to 8 x 3 x 12 names
            "marker": MARKERS[(i + i // (len(OKABE_ITO) * len(LINES))) % len(MARKERS)],
            "ls": LINES[(i // len(OKABE_ITO)) % len(LINES)],
        }
    return out


def settings() -> dict:
    """The matplotlib settings every figure is drawn with: the defaults, not a user's
    ``matplotlibrc``, with the font named (the one matplotlib bundles)."""
    import matplotlib

    skip = ("backend", "backend_fallback", "interactive", "webagg.", "savefig.directory")
    out = {k: v for k, v in matplotlib.rcParamsDefault.items() if not k.startswith(skip)}
    out.update(
        {
            "font.family": ["sans-serif"],
            "font.sans-serif": ["DejaVu Sans"],
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "svg.hashsalt": "bench",
            "path.simplify": True,
        }
    )
    return out


def deterministic(draw):
    """``draw`` runs under ``settings()``, whatever the process's matplotlib settings are."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context(settings()):
            return draw(*args, **kwargs)

    return wrapper


def _figure(width=8.0, height=5.0, ncols=1, nrows=1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False).ravel()


def _log(ax, *axes: str) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator

    for axis in axes:
        getattr(ax, f"set_{axis}scale")("log")
        a = getattr(ax, f"{axis}axis")
        a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        a.set_minor_formatter(FuncFormatter(lambda *_: ""))


def _save(fig, path: Path) -> Path:
    """The figure as a 256-colour palette PNG (Pillow, which matplotlib renders with): the 37
    committed plots took 4.8 MB as matplotlib's RGBA and 1.2 MB so (2026-12-07); a plot has a
    few flat colours and their anti-aliased edges, drawn the same to the eye. Deterministic: the
    same figure gives the same bytes."""
    from PIL import Image

    rgba = io.BytesIO()
    fig.savefig(rgba, format="png", dpi=100, metadata={"Software": None})
    rgba.seek(0)
    with Image.open(rgba) as image:
        palette = image.convert("RGBA").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    buffer = io.BytesIO()
    palette.save(buffer, format="png", optimize=True)
    return write_bytes_atomic(path, buffer.getvalue())


def provenance(run) -> str:
    return (
        f"{run.workload} · MindSpore {run.environment.get('mindspore', '?')} · run "
        f"{run.manifest.run_id} · {run.tier} tier"
    )


def size_axis(run) -> str:
    w = run.work
    unit = f" ({w.size_unit})" if w.size_unit else ""
    return f"{w.size_label}{unit}" if w.size_label != "batch size" else "batch size N (samples)"


BAND_INTERVAL = "95 % intervals"
BAND_QUARTILES = "rounds' quartiles"
ADDED_AXIS = "added time per step, % of the no-update step"


def band(cells, mode: str) -> str:
    """What a plot's bands are: the rounds' quartiles in a distribution mode (PYNATIVE as users
    run it) when every cell has enough rounds to have them, else the 95 % intervals."""
    from bench.report.phrases import QUARTILE_ROUNDS, distribution

    enough = cells and all(c.rounds >= QUARTILE_ROUNDS for c in cells)
    return BAND_QUARTILES if distribution(mode) and enough else BAND_INTERVAL


def points(cs, kind: str):
    """(y, low, high) of cells sorted by size, in % of each cell's no-update step: the median and
    quartiles of the rounds, or the added time and its 95 % interval (``kind``: ``band``). A share
    of the step keeps every size on one linear axis (issue 51: a symlog axis in µs turned noise
    into features)."""
    if kind == BAND_QUARTILES:
        q = np.asarray([np.asarray(c.added_quartiles()) / c.control_step_s for c in cs]) * 100
        return q[:, 1], q[:, 0], q[:, 2]
    y = (np.asarray([c.estimate.ratio for c in cs]) - 1) * 100
    lo = (np.asarray([c.estimate.ratio_interval[0] for c in cs]) - 1) * 100
    hi = (np.asarray([c.estimate.ratio_interval[1] for c in cs]) - 1) * 100
    return y, lo, hi


def margin_pct(cs, margin) -> list[float]:
    """The equivalence margin at each cell's step, in % of its no-update step."""
    return [100 * margin.at(c.estimate.step_s) / c.control_step_s for c in cs]


def linear_limits(series: list[dict], floor: float = 5.0) -> tuple[float, float, list[str]]:
    """A linear y range (in % of the step) that shows the answer's band, or every series when
    none is the answer, and the series that leave it (named on the plot with their values, not
    drawn to a scale that squeezes the rest): each side at least ``floor`` % from 0, else 1.5
    times the farthest value it must show on that side."""
    shown = [s for s in series if s["answer"]] or series
    ends = [v for s in shown for v in (*s["lo"], *s["hi"], *s["y"]) if math.isfinite(v)]
    low = min([-floor, *(1.5 * e for e in ends)])
    high = max([floor, *(1.5 * e for e in ends)])
    off = []
    for s in series:
        ys = [v for v in s["y"] if math.isfinite(v)]
        if ys and (max(ys) > high or min(ys) < low):
            far = max(ys) if max(ys) > high else min(ys)
            off.append(f"{s['strategy']}: {far:+.0f} %")
    return low, high, off


def _draw_linear(ax, series: list[dict], fontsize: int = 8) -> None:
    """The linear axis of an added-time plot: 0, the margin band of the answer (or of the first
    series), the limits of ``linear_limits`` and a box naming the series beyond them."""
    low, high, off = linear_limits(series)
    ref = next((s for s in series if s["answer"]), series[0] if series else None)
    if ref is not None and ref.get("margin"):
        ax.fill_between(ref["x"], [-m for m in ref["margin"]], ref["margin"], color="0.88",
                        zorder=0, label="equivalence margin")  # fmt: skip
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylim(low, high)
    if off:
        ax.text(0.99, 0.02, "off the scale:\n" + "\n".join(off), transform=ax.transAxes,
                ha="right", va="bottom", fontsize=fontsize - 1,
                bbox={"facecolor": "white", "edgecolor": "0.6", "alpha": 0.9})  # fmt: skip


def not_drawn(run, mode: str, strategy: str | None) -> str:
    """Why the answer's cost is not drawn in this mode ("" when it is)."""
    if strategy is None:
        return ""
    m = run.analysis.get(mode)
    cells = [c for c in (m.of_role("update") if m else []) if c.id.strategy == strategy]
    if not cells:
        return f"the answer, {strategy}, was not timed here"
    if any(c.twin_invalid for c in cells):
        return f"the answer's cost cannot be drawn: {strategy}'s twin is invalid in this mode"
    if not any(c.shows_cost for c in cells):
        return f"the answer, {strategy}, has no cost to draw here"
    return ""


def added_series(
    run, mode: str, answer: str | None = None, slower_in: list[str] | None = None
) -> dict | None:
    """What ``added`` draws, as data (the pages' consistency test reads the labels): only the
    strategies correct in every in-scope shape (``answer.outcomes``), each cell against a valid
    twin; ``answer``: the kind's answer, labelled as such, with the workloads where it is slower
    than another candidate at some size (``slower_in``: decided across the kind's workloads; by
    default ``run``'s own, where its outcomes say so); bands named by what they are."""
    from bench.decide import answer as answers

    m = run.analysis.get(mode)
    said = answers.outcomes(run, mode)
    cells = [
        c
        for c in (m.of_role("update") if m else [])
        if c.shows_cost and said.get(c.id.strategy) in answers.TIMED
    ]
    if not cells:
        return None
    kind = band(cells, mode)
    by: dict[str, list] = {}
    for c in cells:
        by.setdefault(c.id.strategy, []).append(c)
    series = []
    for strategy, cs in sorted(by.items()):
        cs.sort(key=lambda c: c.id.size)
        y, lo, hi = points(cs, kind)
        mark = strategy == answer
        tag = " — the answer" if mark else ""
        where = slower_in
        if where is None:  # the cheaper one depends on the size
            where = [run.workload] if said.get(strategy) == answers.SLOWER else []
        if mark and where:
            tag += f" ({answers.SLOWER_SOMEWHERE} in {', '.join(where)})"
        series.append(
            {
                "strategy": strategy,
                "x": [c.id.size for c in cs],
                "y": y,
                "lo": lo,
                "hi": hi,
                "margin": margin_pct(cs, m.margin),
                "answer": mark,
                "label": f"{strategy} ({cs[0].id.shape}){tag}",
            }
        )
    drawn = any(x["answer"] for x in series)
    bands = f"band: the answer's {kind.removesuffix('s')}" if drawn else f"bands: {kind}"
    title = f"Time the update adds per step, {label(mode)}\n({bands})"
    return {"title": title, "band": kind, "series": series, "note": not_drawn(run, mode, answer)}


@deterministic
def added(run, mode: str, path: Path, answer: str | None = None) -> Path | None:
    """Added time per step against the size, per strategy correct in every in-scope shape, with
    its band (``added_series``); the kind's answer thick and labelled."""
    data = added_series(run, mode, answer)
    if data is None:
        return None
    styles = style()
    fig, (ax,) = _figure()
    for s in data["series"]:
        st = styles[s["strategy"]]
        wide = s["answer"]
        ax.plot(
            s["x"],
            s["y"],
            ls=st["ls"],
            marker=st["marker"],
            color=st["color"],
            lw=3 if wide else 1.3,
            zorder=5 if wide else 2,
            label=s["label"],
        )
        if wide or not any(x["answer"] for x in data["series"]):  # the answer's band, or all
            ax.fill_between(
                s["x"], s["lo"], s["hi"], color=st["color"], alpha=0.25 if wide else 0.1
            )
    _log(ax, "x")
    _draw_linear(ax, data["series"])
    if data["note"]:
        ax.text(0.5, 0.97, data["note"], transform=ax.transAxes, ha="center", va="top",
                fontsize=8, color="#D55E00")  # fmt: skip
    ax.set(
        title=f"{data['title']}\n{provenance(run)}",
        xlabel=size_axis(run),
        ylabel=ADDED_AXIS,
    )
    ax.grid(True, which="both", alpha=0.3)
    if data["note"]:  # the note spans the top of the axes: the legend goes below them, where it
        fig.legend(loc="outside lower center", fontsize=7, ncols=4)  # cannot cover the note
    else:
        ax.legend(fontsize=7, ncols=2)
    return _save(fig, path)


def _heatmap(ax, grid, rows, cols, texts, title):
    from matplotlib.colors import ListedColormap

    colours = list(STATUS_COLOURS.values())
    ax.imshow(
        grid,
        cmap=ListedColormap(colours),
        vmin=-0.5,
        vmax=len(colours) - 0.5,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_xticks(range(len(cols)), cols, rotation=50, ha="right", fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    for (i, j), t in texts.items():
        ax.text(j, i, t, ha="center", va="center", fontsize=6)
    ax.set_title(title, fontsize=9)


@deterministic
def support(run, path: Path) -> Path:
    """Per mode, every strategy × shape, coloured by verdict (words as in the tables)."""
    from matplotlib.patches import Patch

    v = run.verdicts[run.verdicts.strategy != "control"]
    strategies = sorted(set(v.strategy))
    shapes = sorted(set(v["shape"]))
    codes = list(STATUS_COLOURS)
    fig, axes = _figure(
        width=3.0 * len(run.modes) + 2, height=0.2 * len(shapes) + 3, ncols=len(run.modes)
    )
    for ax, mode in zip(axes, run.modes):
        grid = np.full((len(shapes), len(strategies)), np.nan)
        for r in v[v["mode"] == mode].itertuples():
            grid[shapes.index(r.shape), strategies.index(r.strategy)] = codes.index(r.label)
        _heatmap(
            ax, grid, shapes if ax is axes[0] else [""] * len(shapes), strategies, {}, label(mode)
        )
    handles = [Patch(color=c, label=s) for s, c in STATUS_COLOURS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8)
    fig.suptitle(
        f"Verdict of every strategy × code shape (white: not a shape of its layout)\n"
        f"{provenance(run)}",
        fontsize=10,
    )
    return _save(fig, path)


@deterministic
def layout(run, path: Path) -> Path | None:
    modes = [m for m in run.modes if run.analysis.get(m) and run.analysis[m].of_role("layout")]
    if not modes:
        return None
    fig, axes = _figure(width=4 * len(modes), height=4, ncols=len(modes))
    palette = {}
    for ax, mode in zip(axes, modes):
        by: dict[str, list] = {}
        for c in run.analysis[mode].of_role("layout"):
            by.setdefault(c.id.shape, []).append(c)
        for shape, cs in sorted(by.items()):
            colour = palette.setdefault(shape, OKABE_ITO[len(palette) % len(OKABE_ITO)])
            cs.sort(key=lambda c: c.id.size)
            x = [c.id.size for c in cs]
            ax.plot(
                x,
                [c.estimate.ratio for c in cs],
                marker=MARKERS[list(palette).index(shape)],
                color=colour,
                label=shape,
            )
        _log(ax, "x", "y")
        ax.axhline(1.0, color="black", lw=1)
        ax.set(title=label(mode), xlabel=size_axis(run))
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("twin's step / base twin's step")
    axes[0].legend(fontsize=7)
    fig.suptitle(
        f"What the state's layout and read cost, no update at all\n{provenance(run)}", fontsize=10
    )
    return _save(fig, path)


@deterministic
def cost_vs_size(run, rows, mode: str, path: Path) -> Path | None:
    mine = rows[rows["mode"] == mode]
    if mine.empty:
        return None
    styles = style()
    fig, (ax,) = _figure()
    for (strategy, shape), group in mine.groupby(["strategy", "shape"]):
        g = group.sort_values("size", kind="stable")
        s = styles[strategy]
        ax.plot(
            g["size"],
            g.step_s * 1e3,
            ls=s["ls"],
            marker=s["marker"],
            color=s["color"],
            label=f"{strategy} ({shape})",
        )
        ax.plot(g["size"], g.floor_s * 1e3, ":", color=s["color"], lw=1)
    _log(ax, "x", "y")
    # A floor far below every step (a one-row write) would squash the steps into the top of the
    # axis: show two decades below the fastest step; lower floors are cut off.
    ax.set_ylim(bottom=max(float(mine.floor_s.min()), float(mine.step_s.min()) / 100) * 1e3 / 1.5)
    ax.set(
        title=f"Time per step vs state size (dotted: memory-bandwidth floor), {label(mode)}\n"
        f"{provenance(run)}",
        xlabel=size_axis(run),
        ylabel="ms per step",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncols=2)
    return _save(fig, path)


def write_all(run, plots_dir: Path, answers: dict) -> list[Path]:
    """Every plot of one workload's report; ``answers``: {mode: the answer's strategy}."""
    from bench.decide.calibration import floors

    plots_dir = Path(plots_dir)
    out = [support(run, plots_dir / "support.png")]
    for mode in run.modes:
        out.append(added(run, mode, plots_dir / f"added-{mode}.png", answers.get(mode)))
    out.append(layout(run, plots_dir / "layout.png"))
    rows = floors(run)
    for mode in run.modes if len(rows) else []:
        out.append(cost_vs_size(run, rows, mode, plots_dir / f"cost_vs_size-{mode}.png"))
    written = [p for p in out if p is not None]
    for old in stale(plots_dir, written):
        remove(old)  # a plot this run does not draw (say, no valid twin in a mode) is not kept
    return written


# step_time-*.png: drawn until issue 51 (every strategy's whole step over its twin's on log axes:
# one overlapping line); still owned, so an old one is removed
OWNED = ("support.png", "layout.png", "added-*.png", "step_time-*.png", "cost_vs_size-*.png")


def stale(plots_dir: Path, written) -> list[Path]:
    """The plots in ``plots_dir`` that ``write_all`` draws by name (``OWNED``) but did not draw
    this time: left from an earlier run, they would show another run's numbers. Any other file
    is left alone."""
    keep = {Path(p).resolve() for p in written}
    found = {p for pattern in OWNED for p in Path(plots_dir).glob(pattern)}
    return sorted(p for p in found if p.resolve() not in keep)
