"""Turn a run folder into results.csv, summary.md and plots (no MindSpore needed).

``python -m bench.report [RUN_ID ...] [--results-dir results] [--plots-dir plots]``. Every planned
strategy × mode × batch size gets a row, measured or not: a cell that failed the gate, crashed or
was never reached (an interrupted run) is a result with its status, not a hole. Step times pool the
raw per-round timings of every worker process (divided by the steps per round); the update
overhead is the median of the per-round ratios strategy block / paired same-layout control block,
with a hierarchical bootstrap interval over processes, then rounds (``bench.stats``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from bench import stats
from bench.gate import STATUSES
from bench.modes import MODES

ROOT = Path(__file__).resolve().parent.parent
CONTROL_OF_LAYOUT = {"scalar": "control_scalar", "vector": "control_vector"}
EXTRA_STATUSES = {"skipped": "not timed: its same-layout control did not pass the gate"}
LAYOUT_NOTABLE_FACTOR = 1.2  # a vector control this much slower than the scalar one is reported
RAW_COLUMNS = ("step_groups", "ratio_groups")  # per-process samples: in memory, not in the CSV
COLUMNS = (
    "run_id strategy mode batch_size status detail description layout is_control control "
    "processes processes_planned rounds steps_per_round step_median_s step_iqr_s noisy "
    "control_step_median_s ratio ratio_low ratio_high first_call_s control_first_call_s "
    "samples_per_s peak_rss_mb final_state_ok"
).split() + list(RAW_COLUMNS)


# -- loading ----------------------------------------------------------------------------------
def _read_json(path: Path, problems: list[str]):
    """Parsed JSON of ``path``, or None with the reason appended to ``problems``."""
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{path.name}: unreadable JSON, skipped ({exc})")
        return None


def load_run(run_dir) -> tuple[dict, list[dict], list[str]]:
    """(manifest, result documents, problems) of a run folder; bad files are skipped, not raised."""
    run_dir, problems, docs = Path(run_dir), [], []
    manifest = _read_json(run_dir / "manifest.json", problems)
    for path in sorted(run_dir.glob("*.json")):
        doc = None if path.name == "manifest.json" else _read_json(path, problems)
        if doc is not None and not (isinstance(doc, dict) and isinstance(doc.get("suite"), dict)):
            problems.append(f"{path.name}: no 'suite' object, skipped")
        elif doc is not None:
            docs.append({**doc, "_file": path.name})
    return (manifest if isinstance(manifest, dict) else {}), docs, problems


# -- tidy frame -------------------------------------------------------------------------------
def _measurement(bench: dict) -> dict:
    """The samples of one pytest-benchmark entry (one process, one batch size)."""
    info = bench["extra_info"]
    k = int(info["steps_per_round"])
    return {
        "k": k,
        "step": np.asarray(bench["stats"]["data"], float) / k,
        "control_step": np.asarray(info.get("control_data", []), float) / k,
        "ratio": np.asarray(info.get("ratio_data", []), float),
        "first_call_s": info.get("first_call_s", np.nan),
        "control_first_call_s": info.get("control_first_call_s", np.nan),
        "peak_rss_bytes": info.get("peak_rss_bytes", np.nan),
        "final_state_ok": info.get("final_state_ok", info.get("final_limit_ok", True)),
    }


def _index_docs(docs: list[dict], problems: list[str]):
    """Gate suites by (strategy, mode); time-cell statuses and measurements by (s, m, n)."""
    gates, cells, measured = {}, {}, {}
    for doc in docs:
        suite = doc["suite"]
        key = (suite.get("strategy"), suite.get("mode"))
        if suite.get("kind") == "gate":
            gates[key] = suite
            continue
        for cell in suite.get("cells", []):
            entry = (suite.get("process"), cell["status"], cell.get("detail", ""))
            cells.setdefault((*key, cell["batch_size"]), []).append(entry)
        for bench in doc.get("benchmarks", []):
            try:
                n = int(bench["extra_info"]["batch_size"])
                measured.setdefault((*key, n), []).append(_measurement(bench))
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(
                    f"{doc['_file']}: benchmark {bench.get('name')!r} unusable: {exc!r}"
                )
    return gates, cells, measured


def _cell_status(gate, cells, measured, control_gate, planned: int, gate_only: bool):
    """(status, detail) of one cell from its gate verdict and its worker processes."""
    if gate is None and not cells:
        return "missing", "no gate result: the run ended before this cell"
    verdict = (gate or {}).get("verdict", {"status": "works"})
    if verdict["status"] != "works":
        declared = verdict.get("declared") and verdict["status"] == "incorrect"
        return verdict["status"], verdict.get("detail", "") + (" (declared)" if declared else "")
    failed = [c for c in cells if c[1] != "works"]
    if failed:
        return failed[0][1], "; ".join(f"p{p}: {detail}" for p, _, detail in failed)
    if measured:
        partial = len(measured) < planned
        return "works", f"measured in {len(measured)} of {planned} processes" if partial else ""
    if control_gate is not None and control_gate["verdict"]["status"] != "works":
        return "skipped", EXTRA_STATUSES["skipped"]
    why = "a --gate-only run" if gate_only else "the run ended before this cell"
    return "missing", f"not timed: {why}"


def _numbers(measured: list[dict], batch_size: int, n_boot: int) -> dict:
    """Pooled statistics of one cell over its worker processes."""
    if not measured:
        return {"processes": 0, "rounds": 0, "noisy": False, "step_groups": [], "ratio_groups": []}
    steps = np.concatenate([m["step"] for m in measured])
    controls = np.concatenate([m["control_step"] for m in measured])
    ratio_groups = [m["ratio"].tolist() for m in measured]
    ratio, low, high = (  # n_boot=0: point estimates only (bench.compare needs no interval)
        stats.hierarchical_bootstrap(ratio_groups, n_boot=n_boot)
        if n_boot
        else (float(np.median(np.concatenate([m["ratio"] for m in measured]))), np.nan, np.nan)
    )
    median, spread = float(np.median(steps)), stats.iqr(steps)
    return {
        "processes": len(measured),
        "rounds": int(steps.size),
        "steps_per_round": "/".join(map(str, sorted({m["k"] for m in measured}))),  # per process
        "step_median_s": median,
        "step_iqr_s": spread,
        "noisy": bool(spread / median > stats.NOISY_IQR_FRACTION),
        "control_step_median_s": float(np.median(controls)) if controls.size else np.nan,
        **{"ratio": ratio, "ratio_low": low, "ratio_high": high},
        "first_call_s": float(np.median([m["first_call_s"] for m in measured])),
        "control_first_call_s": float(np.median([m["control_first_call_s"] for m in measured])),
        "samples_per_s": batch_size / median,
        "peak_rss_mb": float(np.max([m["peak_rss_bytes"] for m in measured])) / 2**20,
        "final_state_ok": all(m["final_state_ok"] for m in measured),
        "step_groups": [m["step"].tolist() for m in measured],
        "ratio_groups": ratio_groups,
    }


def tidy(manifest: dict, docs: list[dict], problems=None, n_boot: int = stats.N_BOOTSTRAP):
    """One row per planned strategy × mode × batch size, measured or not (columns ``COLUMNS``)."""
    problems = [] if problems is None else problems
    plan = manifest.get("plan", {})
    gates, cells, measured = _index_docs(docs, problems)
    meta = {}  # description, layout, control flag: the same in every mode (a crash has none)
    for suite in (d["suite"] for d in docs if "layout" in d["suite"]):
        meta.setdefault(suite.get("strategy"), suite)
    seen = {key[:2] for key in [*cells, *measured]} | (
        set() if plan.get("strategies") else {*gates}
    )
    strategies = list(dict.fromkeys([*plan.get("strategies", []), *sorted(s for s, _ in seen)]))
    modes = list(dict.fromkeys([*plan.get("modes", []), *sorted(m for _, m in seen)]))
    sizes = sorted({*plan.get("batch_sizes", []), *(key[2] for key in [*cells, *measured])})
    planned = plan.get("precision", {}).get("processes", 1)
    gate_only = "--gate-only" in manifest.get("argv", [])
    rows = []
    for mode in modes:
        for strategy in strategies:
            info = meta.get(strategy, {})
            control = CONTROL_OF_LAYOUT.get(info.get("layout"))
            is_control = bool(info.get("control", strategy.startswith("control")))
            for n in sizes:
                got = measured.get((strategy, mode, n), [])
                found = (gates.get((strategy, mode)), cells.get((strategy, mode, n), []), got)
                status, detail = _cell_status(
                    *found, gates.get((control, mode)), planned, gate_only
                )
                rows.append(
                    {
                        **{"run_id": manifest.get("run_id"), "strategy": strategy, "mode": mode},
                        **{"batch_size": n, "status": status, "detail": detail},
                        **{"description": info.get("description", ""), "control": control},
                        **{"layout": info.get("layout"), "is_control": is_control},
                        **{"processes_planned": planned, **_numbers(got, n, n_boot)},
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS).astype({"rounds": int, "processes": int})


def environment(docs: list[dict]) -> dict:
    """Machine, versions, threads, date and commit, from the first documents that carry them."""
    env = {}
    for doc in docs:
        suite, commit = doc["suite"], doc.get("commit_info", {})
        for key, value in suite.get("environment", {}).items():
            env.setdefault(key, value)
        if "threads" in suite:
            env.setdefault("threads", suite["threads"])
        if "machine_info" in doc:
            env.setdefault("cpu", doc["machine_info"].get("cpu", {}).get("brand_raw"))
            env.setdefault("commit", commit.get("id"))
            env.setdefault("dirty", commit.get("dirty"))
            env.setdefault("date", doc.get("datetime"))
    return env


# -- formatting -------------------------------------------------------------------------------
def mode_label(mode: str) -> str:
    """``GRAPH`` for ``graph``: how the summary names a mode."""
    return mode.upper()


def fmt_ratio(ratio: float, low: float, high: float) -> str:
    """An overhead ratio with its interval, e.g. ``1.02 [0.99, 1.05]``."""
    return f"{ratio:.2f} [{low:.2f}, {high:.2f}]"


def fmt_num(value: float) -> str:
    """Three significant digits (more above 1000), without scientific notation."""
    if not np.isfinite(value):
        return "–"
    digits = 0 if abs(value) >= 99.95 else 1 if abs(value) >= 9.995 else 2
    return f"{value:,.{digits}f}"


def time_unit(values) -> tuple[str, float]:
    """One unit for a table of seconds: µs when the median is below a millisecond, else ms."""
    values = [v for v in values if np.isfinite(v)]
    return ("µs", 1e6) if not values or np.median(values) < 1e-3 else ("ms", 1e3)


def first_line(text: str) -> str:
    return (str(text).strip().splitlines() or [""])[0]


def markdown_table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return [*lines, *("| " + " | ".join(map(str, row)) + " |" for row in rows), ""]


def _ordered(frame: pd.DataFrame) -> list[str]:
    """Strategies of ``frame``: update strategies first, controls last."""
    first = frame.drop_duplicates("strategy")
    return [*first[~first.is_control].strategy, *first[first.is_control].strategy]


def _name(strategy: str, frame: pd.DataFrame) -> str:
    control = frame[frame.strategy == strategy].is_control.any()
    return f"`{strategy}` (control)" if control else f"`{strategy}`"


def geomean(values) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(values, float)))))


def ranking(df: pd.DataFrame, mode: str) -> pd.Series:
    """Geometric-mean step time of each update that works at every batch size, fastest first."""
    rows = df[(df["mode"] == mode) & ~df.is_control]
    working = rows.groupby("strategy").filter(lambda g: (g.status == "works").all())
    if working.empty:
        return pd.Series(dtype=float)
    return working.groupby("strategy").step_median_s.apply(geomean).sort_values()


def recommend(df: pd.DataFrame, mode: str):
    """(strategy, geometric-mean step time) of the fastest update that works at every batch size."""
    means = ranking(df, mode)
    return (means.index[0], float(means.iloc[0])) if len(means) else (None, np.nan)


def _cell(df: pd.DataFrame, strategy: str, n: int):
    return df[(df.strategy == strategy) & (df.batch_size == n)].iloc[0]


# -- summary sections -------------------------------------------------------------------------
def _answer_row(r, scale: float) -> list:
    step, control = fmt_num(r.step_median_s * scale), fmt_num(r.control_step_median_s * scale)
    overhead = fmt_ratio(r.ratio, r.ratio_low, r.ratio_high)
    return [r.batch_size, step, control, overhead, fmt_num(r.samples_per_s)]


def _silent_failures(df: pd.DataFrame) -> list[str]:
    """The headline: combinations that run without an error but compute the wrong thing."""
    rows = df[df.status == "incorrect"].drop_duplicates(["strategy", "mode"])
    if rows.empty:
        return ["No silent failure: every combination either works or raises an error.", ""]
    out = [
        f"**{len(rows)} strategy × mode combinations run without any error but leave the Parameter "
        "or the output wrong** (caught by checking every step against the NumPy reference):",
        "",
    ]
    out += [f"- `{r.strategy}` in {mode_label(r.mode)}: {r.detail}" for r in rows.itertuples()]
    return [*out, ""]


def _tie_note(df: pd.DataFrame, mode: str, best: str, runner_up: str, n_boot: int) -> str:
    """At how many batch sizes the best is significantly faster than the runner-up."""
    sizes, faster = 0, 0
    for n in sorted(df.batch_size.unique()):
        a, b = _cell(df[df["mode"] == mode], best, n), _cell(df[df["mode"] == mode], runner_up, n)
        if not (a.step_groups and b.step_groups):
            continue
        sizes += 1
        _, low, _ = stats.bootstrap_difference(b.step_groups, a.step_groups, n_boot=n_boot)
        faster += low > 0
    return f" `{best}` is significantly faster at {faster} of {sizes} batch sizes."


def _answer(df: pd.DataFrame, n_boot: int = stats.N_BOOTSTRAP) -> list[str]:
    out = ["## 1. The answer", "", *_silent_failures(df)]
    for mode in df["mode"].unique():
        means, label = ranking(df, mode), mode_label(mode)
        how = f" ({MODES[mode].description})" if mode in MODES else ""
        if means.empty:
            out += [f"**{label}{how}: no update strategy works at every batch size.**", ""]
            continue
        best, rows = means.index[0], df[(df["mode"] == mode) & (df.strategy == means.index[0])]
        unit, scale = time_unit(rows.step_median_s)
        updates = df[(df["mode"] == mode) & ~df.is_control].strategy.nunique()
        text = (
            f"**{label}{how}: use `{best}`** ({rows.description.iloc[0]}): the lowest "
            f"geometric-mean step time ({fmt_num(means.iloc[0] * scale)} {unit}) over batch sizes "
            f"{', '.join(map(str, rows.batch_size))}; {len(means)} of {updates} update strategies "
            f"work at every batch size in this mode."
        )
        if len(means) > 1:
            text += f" Runner-up: `{means.index[1]}`, ×{means.iloc[1] / means.iloc[0]:.2f} slower."
            text += _tie_note(df, mode, best, means.index[1], n_boot)
        head = ["batch size", f"`{best}` ({unit}/step)", f"`{rows.control.iloc[0]}` ({unit}/step)"]
        head += ["update overhead × control [95 % CI]", "samples/s"]
        out += [text, "", *markdown_table(head, [_answer_row(r, scale) for r in rows.itertuples()])]
    out += [
        "The control column is the paired no-update block of the same Parameter layout, timed "
        "in alternation with the strategy (overhead 1.00 = the update is free).",
        "",
    ]
    return out + _unsupported_advice(df) + _layout_note(df)


def _unsupported_advice(df: pd.DataFrame) -> list[str]:
    """What to do about each strategy × mode that raises its declared error (e.g. set_data)."""
    out = []
    for r in df[df.status == "unsupported"].drop_duplicates(["strategy", "mode"]).itertuples():
        means, mode = ranking(df, r.mode), mode_label(r.mode)
        works = df[(df.strategy == r.strategy) & (df.status == "works")]["mode"].unique()
        text = f"**`{r.strategy}` cannot be used in {mode}** (`{first_line(r.detail)}`)."
        text += f" It works in {', '.join(map(mode_label, works))}." if len(works) else ""
        if len(means):
            text += f" In {mode} use `{means.index[0]}` instead."
        if len(means) > 1:
            options = ", ".join(f"`{k}` (×{v / means.iloc[0]:.2f})" for k, v in means.items())
            text += f" All that work in {mode}, by step time: {options}."
        out += [text, ""]
    return out


def _layout_note(df: pd.DataFrame) -> list[str]:
    out = []
    for mode in df["mode"].unique():
        rows = df[(df["mode"] == mode) & df.is_control & (df.status == "works")]
        by_layout = {k: g.set_index("batch_size").step_median_s for k, g in rows.groupby("layout")}
        if not {"scalar", "vector"} <= set(by_layout):
            continue
        factor = (by_layout["vector"] / by_layout["scalar"]).dropna()
        spread = f"×{factor.min():.2f}–×{factor.max():.2f}"
        if not factor.empty and factor.median() >= LAYOUT_NOTABLE_FACTOR:
            out.append(
                f"In {mode_label(mode)} the vector-layout control (no update at all) takes "
                f"{spread} the step time of the scalar control across batch sizes: the Parameter "
                f"layout changes the cost of the forward computation, so each strategy is compared "
                f"with the control of its own layout."
            )
        elif not factor.empty:
            out.append(
                f"In {mode_label(mode)} the vector-layout control takes {spread} the step "
                f"time of the scalar control: the layout barely changes the forward computation."
            )
    return [line for note in out for line in (note, "")]


def _mode_cell(rows: pd.DataFrame) -> str:
    """One strategy × mode of the support matrix: a status, with the first line of the reason."""
    statuses = list(rows.status.unique())
    if statuses == ["works"]:
        return "works"
    if len(statuses) == 1:
        detail = first_line(rows.detail.iloc[0])
        return f"{statuses[0]}: {detail}" if detail else statuses[0]
    sizes = {s: ",".join(map(str, rows[rows.status == s].batch_size)) for s in statuses}
    return "; ".join(f"{s} (N={sizes[s]})" for s in statuses)


def _support(df: pd.DataFrame) -> list[str]:
    modes = list(df["mode"].unique())
    rows = [
        [_name(s, df), df[df.strategy == s].layout.iloc[0] or "?"]
        + [_mode_cell(df[(df.strategy == s) & (df["mode"] == m)]) for m in modes]
        for s in _ordered(df)
    ]
    statuses = {**STATUSES, **EXTRA_STATUSES}
    legend = [f"- **{k}**: {v}" for k, v in statuses.items() if k in set(df.status)]
    return [
        "## 2. Support matrix",
        "",
        *markdown_table(["strategy", "layout", *map(mode_label, modes)], rows),
        *legend,
        "",
    ]


def _grid(df: pd.DataFrame, mode: str, show, title: str) -> list[str]:
    """A per-mode table: rows strategies, columns batch sizes, cells ``show(row)``."""
    rows = df[df["mode"] == mode]
    sizes = sorted(rows.batch_size.unique())
    body = [[_name(s, rows), *(show(_cell(rows, s, n)) for n in sizes)] for s in _ordered(rows)]
    return [f"### {title}", "", *markdown_table(["strategy", *(f"N={n}" for n in sizes)], body)]


def _step_times(df: pd.DataFrame) -> list[str]:
    out = [
        "## 3. Step time",
        "",
        "Median time per step, pooled over processes and rounds; **bold** = the fastest update "
        "strategy at that batch size; `(! 12%)` = a noisy cell (its IQR is above "
        f"{stats.NOISY_IQR_FRACTION:.0%} of the median).",
        "",
    ]
    for mode in df["mode"].unique():
        rows = df[df["mode"] == mode]
        unit, scale = time_unit(rows.step_median_s)
        update = rows[~rows.is_control & (rows.status == "works")]
        best = update.groupby("batch_size").step_median_s.min()

        def show(r, best=best, scale=scale):
            if not r.processes:
                return r.status
            text = fmt_num(r.step_median_s * scale)
            text = f"**{text}**" if r.step_median_s == best.get(r.batch_size) else text
            noisy = f" (! {r.step_iqr_s / r.step_median_s:.0%})" if r.noisy else ""
            return text + noisy + ("" if r.status == "works" else f" ({r.status})")

        out += _grid(df, mode, show, f"{mode_label(mode)} ({unit} per step)")
    return out


def _overhead(df: pd.DataFrame, n_boot: int) -> list[str]:
    out = [
        "## 4. Update overhead",
        "",
        "Median of the per-round ratios strategy block / paired same-layout control block "
        "(1.00 = the update is free), with its 95 % hierarchical-bootstrap interval.",
        "",
    ]
    for mode in df["mode"].unique():

        def show(r):
            return fmt_ratio(r.ratio, r.ratio_low, r.ratio_high) if r.processes else r.status

        out += _grid(df, mode, show, mode_label(mode))
        out += _significance(df[df["mode"] == mode], mode, n_boot)
    return out


def _significance(rows: pd.DataFrame, mode: str, n_boot: int) -> list[str]:
    """Bootstrap CI of each update's overhead minus the recommended one's, per batch size."""
    best, _ = recommend(rows, mode)
    sizes = sorted(rows.batch_size.unique())
    table = []
    for s in [s for s in _ordered(rows[~rows.is_control]) if best and s != best]:
        line = [f"`{s}` − `{best}`"]
        for a, b in ((_cell(rows, s, n), _cell(rows, best, n)) for n in sizes):
            diff, low, high = (np.nan,) * 3
            if a.processes and b.processes:
                diff, low, high = stats.bootstrap_difference(
                    a.ratio_groups, b.ratio_groups, n_boot=n_boot
                )
            text = f"{diff:+.2f} [{low:+.2f}, {high:+.2f}]" if np.isfinite(diff) else "–"
            line.append(f"**{text}**" if low > 0 or high < 0 else text)
        if any(cell != "–" for cell in line[1:]):
            table.append(line)
    if not table:
        return []
    return [
        f"Overhead of each strategy minus that of `{best}` (95 % CI); **bold** = significant "
        "(the interval excludes 0):",
        "",
        *markdown_table(["difference", *(f"N={n}" for n in sizes)], table),
    ]


def _costs(df: pd.DataFrame) -> list[str]:
    out = [
        "## 5. Compile / first call, throughput, memory",
        "",
        "First call = the first step of a fresh cell (in GRAPH it includes compiling the graph), "
        "median over processes. Peak RSS = the worker's peak resident memory after the cell "
        "(it includes every cell that process ran before).",
        "",
    ]
    for mode in df["mode"].unique():
        label = mode_label(mode)
        out += _grid(df, mode, lambda r: fmt_num(r.first_call_s * 1e3), f"{label}: first call (ms)")
        out += _grid(df, mode, lambda r: fmt_num(r.samples_per_s), f"{label}: samples/s")
        out += _grid(df, mode, lambda r: fmt_num(r.peak_rss_mb), f"{label}: peak RSS (MB)")
    return out


def _provenance(manifest: dict, env: dict, n_boot: int) -> list[str]:
    plan = manifest.get("plan", {})
    precision = ", ".join(f"{k}={v}" for k, v in plan.get("precision", {}).items())
    cpu = f"{env.get('cpu') or env.get('machine')}, {env.get('cpu_count')} CPUs"
    versions = (
        f"Python {env.get('python')}, MindSpore {env.get('mindspore')}, NumPy {env.get('numpy')}, "
        f"pytest-benchmark {env.get('pytest_benchmark')}"
    )
    facts = {
        "run": f"`{manifest.get('run_id')}` ({manifest.get('status', 'unknown')})",
        "started / finished": f"{manifest.get('started')} / {manifest.get('finished', '–')}",
        "first measurement": env.get("date"),
        "command": f"`{manifest.get('command')}`",
        "machine": f"{env.get('node')}, {env.get('platform')}, {cpu}",
        "threads": ", ".join(f"{k}={v}" for k, v in (env.get("threads") or {}).items()),
        "versions": versions,
        "git commit": f"{env.get('commit')}" + (" (dirty)" if env.get("dirty") else ""),
        "precision": precision,
    }
    return [
        "## 6. Provenance",
        "",
        *markdown_table(["", ""], list(facts.items())),
        "**Step time** is throughput: each round times a block of k steps (k calibrated so a "
        "block lasts at least `block_seconds`) that is synchronized once, at its end; per-step "
        "time = block / k, and the median is pooled over all rounds of all processes. Each "
        "round's paired no-update control block (same Parameter layout, same limit) runs right "
        "before or right after it, in random order.",
        "",
        "**Intervals** are 95 % two-level bootstrap intervals (resample the worker processes, "
        f"then the rounds within each; {n_boot} resamples), so they cover between-process "
        "spread as well as within-process noise.",
        "",
    ]


def _gaps(df: pd.DataFrame, problems: list[str]) -> list[str]:
    missing = [
        f"- missing: `{r.strategy}` · {mode_label(r.mode)} · N={r.batch_size}: {r.detail}"
        for r in df[df.status == "missing"].itertuples()
    ]
    return [
        "## 8. Missing cells and problems",
        "",
        *(missing or ["- no missing cells"]),
        *([f"- problem: {p}" for p in problems] or ["- no problems reading the run"]),
        "",
    ]


WORKLOAD_TITLES = {
    "clip": "the adaptive-clip cell of the original report (clip to [-limit, limit], then "
    "limit = min(limit + 1e-4 * N, 3.0))",
    "brn": "Batch Renormalization (moving mean and variance, r_max and d_max written every step)",
}


def render_summary(
    df, manifest: dict, environment: dict, plots, problems, n_boot: int = stats.N_BOOTSTRAP
) -> str:
    """Markdown: answer, support matrix, tables, provenance, plots, missing cells and problems."""
    status = manifest.get("status", "unknown")
    out = [f"# Updating a MindSpore Parameter: run `{manifest.get('run_id')}`", ""]
    workload = manifest.get("plan", {}).get("workload", "clip")
    out += [f"Workload: **{WORKLOAD_TITLES.get(workload, workload)}**.", ""]
    if status != "complete":
        missing = int((df.status == "missing").sum())
        out += [f"> **This run is {status}**: {missing} of {len(df)} cells are missing.", ""]
    out += _answer(df, n_boot) + _support(df) + _step_times(df) + _overhead(df, n_boot) + _costs(df)
    out += _provenance(manifest, environment, n_boot)
    out += ["## 7. Plots", "", *(f"![{Path(p).stem}]({p})" for p in plots), ""]
    return "\n".join(out + _gaps(df, list(problems)))


# -- plots ------------------------------------------------------------------------------------
def _save(fig, path: Path) -> Path:
    """Write ``fig`` as a PNG atomically (temporary file, then rename)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".png", dir=path.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, format="png", dpi=110)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return path


def _axes(title: str, xlabel: str, ylabel: str):
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    fig = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.subplots()
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def _log(ax, *which: str) -> None:
    """Log scale on the named axes, with plain tick labels (1, 10, 100, not 10^2)."""
    from matplotlib.ticker import FuncFormatter

    plain = FuncFormatter(lambda value, _: f"{value:g}")
    for axis in which:
        getattr(ax, f"set_{axis}scale")("log")
        getattr(ax, f"{axis}axis").set_major_formatter(plain)
        getattr(ax, f"{axis}axis").set_minor_formatter(FuncFormatter(lambda *_: ""))


def _lines(df: pd.DataFrame, mode: str):
    rows = df[(df["mode"] == mode) & (df.processes > 0)]
    for s in _ordered(rows):
        yield s, rows[rows.strategy == s].sort_values("batch_size")


def plot_step_time(df: pd.DataFrame, mode: str, path: Path, node: str) -> Path:
    """Step time vs batch size, log-log, one line per strategy (controls dashed)."""
    fig, ax = _axes(f"Step time, {mode_label(mode)} on {node}", "batch size", "time per step (ms)")
    for s, rows in _lines(df, mode):
        style = "--" if rows.is_control.any() else "-o"
        ax.plot(rows.batch_size, rows.step_median_s * 1e3, style, label=s)
    _log(ax, "x", "y")
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_overhead(df: pd.DataFrame, mode: str, path: Path, node: str) -> Path:
    """Update overhead (× same-layout control) vs batch size, with 95 % CI bands."""
    title = f"Update overhead vs same-layout control, {mode_label(mode)} on {node}"
    fig, ax = _axes(title, "batch size", "strategy / control time per step (ratio)")
    _log(ax, "x")
    ax.axhline(1.0, color="black", lw=1, label="no overhead (1.0)")
    for s, rows in _lines(df[~df.is_control], mode):
        (line,) = ax.plot(rows.batch_size, rows.ratio, "-o", label=s)
        band = (rows.batch_size, rows.ratio_low, rows.ratio_high)
        ax.fill_between(*band, alpha=0.2, color=line.get_color())
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_first_call(df: pd.DataFrame, mode: str, path: Path, node: str) -> Path:
    """First-call (compile) time per strategy, one bar per batch size."""
    title = f"First call (compile), {mode_label(mode)} on {node}"
    fig, ax = _axes(title, "strategy", "first call (ms)")
    names = [s for s, _ in _lines(df, mode)]
    sizes = sorted(df[df["mode"] == mode].batch_size.unique())
    width = 0.8 / max(len(sizes), 1)
    for i, n in enumerate(sizes):
        rows = df[(df["mode"] == mode) & (df.batch_size == n)].set_index("strategy")
        heights = rows.first_call_s.reindex(names) * 1e3
        ax.bar(np.arange(len(names)) + i * width, heights, width, label=f"N={n}")
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=30, ha="right")
    _log(ax, "y")
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_overhead_heatmap(df: pd.DataFrame, path: Path, node: str) -> Path:
    """Overhead ratio of every update strategy × batch size (status text where unmeasured)."""
    from matplotlib.figure import Figure

    modes = list(df["mode"].unique())
    fig = Figure(
        figsize=(5.5 * len(modes), 0.4 * df.strategy.nunique() + 2.5), layout="constrained"
    )
    for ax, mode in zip(np.atleast_1d(fig.subplots(1, len(modes))), modes):
        rows = df[(df["mode"] == mode) & ~df.is_control]
        grid = rows.pivot(index="strategy", columns="batch_size", values="ratio").astype(float)
        status = rows.pivot(index="strategy", columns="batch_size", values="status")
        image = ax.imshow(grid.values, cmap="RdYlGn_r", vmin=0.8, vmax=2.0, aspect="auto")
        for (i, j), value in np.ndenumerate(grid.values):
            text, size = (f"{value:.2f}", 8) if np.isfinite(value) else (status.iloc[i, j], 6)
            ax.text(j, i, text, ha="center", va="center", fontsize=size)
        ax.set_xticks(range(len(grid.columns)), grid.columns)
        ax.set_yticks(range(len(grid.index)), grid.index)
        ax.set(title=f"Update overhead, {mode_label(mode)} on {node}", xlabel="batch size")
        fig.colorbar(image, ax=ax, label="strategy / same-layout control (ratio)")
    return _save(fig, path)


def write_plots(df: pd.DataFrame, plots_dir: Path, node: str) -> list[Path]:
    """Every plot of ``df`` as a PNG in ``plots_dir``; returns their paths."""
    plots_dir = Path(plots_dir)
    plots_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for mode in df["mode"].unique():
        paths.append(plot_step_time(df, mode, plots_dir / f"step_time-{mode}.png", node))
        paths.append(plot_overhead(df, mode, plots_dir / f"overhead-{mode}.png", node))
        paths.append(plot_first_call(df, mode, plots_dir / f"first_call-{mode}.png", node))
    return [*paths, plot_overhead_heatmap(df, plots_dir / "overhead_heatmap.png", node)]


# -- command line -----------------------------------------------------------------------------
class RunNotFound(Exception):
    """A run id or path that names no run folder (or a bad argument): one line, exit 2."""


def find_run(name, raw_dir: Path) -> Path:
    """The run folder ``name`` (a run id under ``raw_dir``, or a path); the newest if None."""
    runs = sorted(p for p in Path(raw_dir).glob("*") if (p / "manifest.json").is_file())
    if name is None and runs:
        return runs[-1]
    for candidate in [] if name is None else [Path(raw_dir) / name, Path(name)]:
        if (candidate / "manifest.json").is_file():
            return candidate
    recent = ", ".join(p.name for p in runs[-5:]) or "none"
    what = "no runs" if name is None else f"no run {name!r}"
    raise RunNotFound(f"{what} in {str(raw_dir)!r} (recent: {recent})")


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage dump
        raise RunNotFound(message)


def parse_args(argv, prog: str = "python -m bench.report") -> argparse.Namespace:
    p = OneLineParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", metavar="RUN_ID", help="run id or folder (default: newest)")
    p.add_argument("--results-dir", type=Path, default=ROOT / "results")
    p.add_argument("--plots-dir", type=Path, default=ROOT / "plots")
    p.add_argument(
        "--bootstrap",
        type=int,
        default=stats.N_BOOTSTRAP,
        metavar="N",
        help=f"bootstrap resamples per interval (default {stats.N_BOOTSTRAP})",
    )
    return p.parse_args(argv)


def _related_pages(results_dir: Path) -> str:
    """Links to the other reports next to this one (the other workload, the release page)."""
    root = results_dir.parent if results_dir.name == "brn" else results_dir
    pages = {
        "Adaptive-clip workload": root / "summary.md",
        "Batch Renormalization workload": root / "brn" / "summary.md",
        "Across MindSpore releases": root / "releases.md",
    }
    links = [
        f"- [{title}]({Path(os.path.relpath(path, results_dir)).as_posix()})"
        for title, path in pages.items()
        if path.is_file() and path.resolve() != (results_dir / "summary.md").resolve()
    ]
    return "\n## Related pages\n\n" + "\n".join(links) + "\n" if links else ""


def main(argv=None) -> int:
    """Write results.csv, summary.md and plots for the given runs (default: the newest)."""
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        run_dirs = [find_run(name, args.results_dir / "raw") for name in args.runs or [None]]
    except RunNotFound as err:
        print(f"report: error: {err}", file=sys.stderr)
        return 2
    frames = []
    for run_dir in run_dirs:  # the summary and the plots describe the last run
        manifest, docs, problems = load_run(run_dir)
        manifest["run_id"] = run_dir.name  # the name the user types, even for a copied run
        frames.append(tidy(manifest, docs, problems, n_boot=args.bootstrap))
    df, env = frames[-1], environment(docs)
    csv = pd.concat(frames, ignore_index=True).drop(columns=list(RAW_COLUMNS))
    write_text_atomic(args.results_dir / "results.csv", csv.to_csv(index=False))
    plots = write_plots(df, args.plots_dir, env.get("node", "?"))
    links = [Path(os.path.relpath(p, args.results_dir)).as_posix() for p in plots]
    summary = render_summary(df, manifest, env, links, problems, n_boot=args.bootstrap)
    if len(run_dirs) > 1:
        others = ", ".join(f"`{d.name}`" for d in run_dirs[:-1])
        summary += f"\nresults.csv also holds the runs {others} (column `run_id`).\n"
    summary += _related_pages(args.results_dir)
    write_text_atomic(args.results_dir / "summary.md", summary)
    print(f"report: wrote {args.results_dir}/summary.md, results.csv and {len(plots)} plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
