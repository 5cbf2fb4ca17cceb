"""Across MindSpore releases: verdicts and update overhead per release, from one run per release.

``python -m bench.releases results/releases [--out results/releases.md]`` reads the newest run in
every ``results/releases/<version>/raw/`` (written by ``nox -s "bench_release(mindspore=...)"``),
and writes one Markdown page: the gate verdict of every strategy × mode on every release, what
changed between consecutive releases, and the update overhead per release with the significance
of each change. Pure functions over the report's tidy frames; no MindSpore needed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from bench import report, stats

SHORT = {"unsupported": "raises", "broken": "raises", "incorrect": "SILENT-WRONG"}


def version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in version.replace("-", ".").split("."))


def load_releases(folder: Path, n_boot: int = stats.N_BOOTSTRAP, extra=()) -> dict[str, tuple]:
    """{MindSpore version: (tidy frame, environment, manifest)} from the newest run per folder.

    ``extra`` run folders (e.g. the main reference run) are added, and win over ``folder``'s."""
    runs = []
    for sub in sorted(Path(folder).glob("*/raw")):
        try:
            runs.append(report.find_run(None, sub))
        except report.RunNotFound:
            continue
    found = {}
    for run in [*runs, *map(Path, extra)]:
        manifest, docs, problems = report.load_run(run)
        manifest["run_id"] = run.name
        env = report.environment(docs)
        version = env.get("mindspore") or run.parent.parent.name
        found[version] = (report.tidy(manifest, docs, problems, n_boot=n_boot), env, manifest)
    return dict(sorted(found.items(), key=lambda kv: version_key(kv[0])))


def verdicts(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Rows strategy × mode, a column per release: the gate's status (one per combination)."""
    cols = {}
    for version, df in frames.items():
        first = df.sort_values("batch_size").groupby(["strategy", "mode"], sort=False).first()
        cols[version] = first["status"] + ": " + first["detail"].fillna("").str.slice(0, 90)
    return pd.DataFrame(cols).sort_index()  # by strategy, then mode


def _status(cell) -> str:
    return str(cell).split(":", 1)[0] if isinstance(cell, str) else "not run"


def changes(table: pd.DataFrame) -> list[str]:
    """One line per strategy × mode whose verdict differs between consecutive releases."""
    lines = []
    versions = list(table.columns)
    for (strategy, mode), row in table.iterrows():
        for old, new in zip(versions, versions[1:]):
            before, after = _status(row[old]), _status(row[new])
            if before == after:
                continue
            what = {
                ("works", "incorrect"): "a silent failure appeared",
                ("incorrect", "works"): "a silent failure was fixed",
                ("works", "unsupported"): "an error appeared",
                ("works", "broken"): "an error appeared",
                ("unsupported", "works"): "the error went away",
                ("broken", "works"): "the error went away",
            }.get((before, after), "the verdict changed")
            lines.append(f"- `{strategy}` · {mode}: {old} {before} → {new} {after} ({what})")
    return lines or ["- no verdict changed between the releases measured"]


def overhead(frames: dict[str, pd.DataFrame], n_boot: int) -> list[str]:
    """Per batch size: overhead [CI] per release; bold = significantly different from the last."""
    versions = list(frames)
    out = []
    sizes = sorted(set.intersection(*(set(df.batch_size) for df in frames.values())))
    for n in sizes:
        rows = []
        keys = list(
            dict.fromkeys(
                (r.strategy, r.mode)
                for df in frames.values()
                for r in df[(df.batch_size == n) & ~df.is_control].itertuples()
            )
        )
        for strategy, mode in keys:
            cells, previous = [], None
            for version in versions:
                df = frames[version]
                hit = df[(df.strategy == strategy) & (df["mode"] == mode) & (df.batch_size == n)]
                if hit.empty or hit.iloc[0].status != "works" or pd.isna(hit.iloc[0].ratio):
                    cells.append(_status(hit.iloc[0].status) if not hit.empty else "–")
                    previous = None
                    continue
                r = hit.iloc[0]
                text = report.fmt_ratio(r.ratio, r.ratio_low, r.ratio_high)
                if previous is not None:
                    _, low, high = stats.bootstrap_difference(
                        r.ratio_groups, previous.ratio_groups, n_boot=n_boot
                    )
                    if low > 0 or high < 0:
                        text = f"**{text}**"
                cells.append(text)
                previous = r
            rows.append([f"`{strategy}`", report.mode_label(mode), *cells])
        out += [f"### Batch size {n}", ""]
        out += [*report.markdown_table(["strategy", "mode", *versions], rows), ""]
    return out


def render(releases: dict[str, tuple], n_boot: int = stats.N_BOOTSTRAP) -> str:
    frames = {v: df for v, (df, _, _) in releases.items()}
    table = verdicts(frames)
    header = ["strategy", "mode", *table.columns]
    rows = [
        [f"`{s}`", report.mode_label(m), *(_cell(row[v]) for v in table.columns)]
        for (s, m), row in table.iterrows()
    ]
    out = [
        "# Across MindSpore releases",
        "",
        f"Releases measured: {', '.join(frames)}. One run per release (see Provenance for each "
        "run's command and precision); every cell's verdict comes from the conformance gate of "
        "that release.",
        "",
        "## Compatibility per release",
        "",
        "`SILENT-WRONG` = runs without an error but leaves the Parameter or the output wrong.",
        "",
        *report.markdown_table(header, rows),
        "",
        "## What changed",
        "",
        *changes(table),
        "",
        "## Update overhead per release",
        "",
        "Overhead = strategy step / paired same-layout no-update step (1.00 = free), with its 95 % "
        "hierarchical-bootstrap interval; **bold** = significantly different from the previous "
        "release (the interval of the difference excludes 0). Not comparable across machines.",
        "",
        *overhead(frames, n_boot),
        "## Provenance",
        "",
    ]
    for version, (_, env, manifest) in releases.items():
        precision = manifest.get("plan", {}).get("precision", {})
        out.append(
            f"- MindSpore {version}: run `{manifest.get('run_id')}` ({manifest.get('status')}), "
            f"machine {env.get('node')} ({env.get('cpu') or env.get('machine')}), Python "
            f"{env.get('python')}, NumPy {env.get('numpy')}, commit "
            f"{str(env.get('commit') or '?')[:10]}, {precision.get('processes')} process(es), "
            f"{precision.get('cell_seconds')} s per cell, command `{manifest.get('command')}`"
        )
    return "\n".join(out) + "\n"


def _cell(text) -> str:
    status = _status(text)
    if status == "works":
        return "works"
    detail = str(text).split(":", 1)[1].strip() if ":" in str(text) else ""
    return f"{SHORT.get(status, status)}: {detail}".rstrip(": ").replace("|", "\\|")


def main(argv=None) -> int:
    p = report.OneLineParser(prog="python -m bench.releases", description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="e.g. results/releases")
    p.add_argument("--out", type=Path, help="default: FOLDER.md (results/releases.md)")
    p.add_argument("--bootstrap", type=int, default=stats.N_BOOTSTRAP, metavar="N")
    p.add_argument(
        "--run", action="append", default=[], type=Path, metavar="RUN_DIR",
        help="also use this run folder (its MindSpore version wins), e.g. results/raw/<id>",
    )  # fmt: skip
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
    except report.RunNotFound as err:
        print(f"releases: error: {err}", file=sys.stderr)
        return 2
    releases = load_releases(args.folder, args.bootstrap, args.run)
    if not releases:
        print(f"releases: error: no runs under {str(args.folder)!r}/<version>/raw", file=sys.stderr)
        return 2
    out = args.out or args.folder.with_suffix(".md")
    report.write_text_atomic(out, render(releases, args.bootstrap))
    print(f"releases: wrote {out} ({len(releases)} releases: {', '.join(releases)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
