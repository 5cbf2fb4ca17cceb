"""Reproduction scripts: the exact code the gate ran, runnable with only MindSpore and NumPy.

For every strategy × mode × kind of failure, the simplest failing shape; for every minimal pair,
both shapes; and, for the clip, a script that times the layouts against each other. A script is
the variant file the gate compiled plus a driver that prints expected vs observed and ends with
``REPRODUCED: ...`` or ``NOT REPRODUCED``. What it imported from ``bench`` it imports from
``<workload>_suite.py`` next to it (``bench.measured.shapes.suite_module``): the module
boundaries stay as they were in the run, because they can change the verdict.
"""

from __future__ import annotations

from pathlib import Path

from bench.core.io import write_text_atomic
from bench.measured import shapes, workloads
from bench.report.load import RunData
from bench.report.pairs import minimal_pairs

LAYOUT_DRIVER = '''

def main(mode=None, sizes=(64, 256), seconds=1.0):
    """Time each control (no update at all): what the layout and its read cost."""
    import time

    mode = mode or (sys.argv[1] if len(sys.argv) > 1 else "graph")
    ms.set_device("CPU")
    MODES[mode].activate()
    print(f"MindSpore {ms.__version__}, mode {mode}: time per step, no Parameter update at all")
    for n in sizes:
        x = ms.Tensor(make_input(n, seed=0))
        base = None
        for name, cls in CONTROLS.items():
            cell = cls()
            step = MODES[mode].prepare(cell)
            step(x).asnumpy()
            k, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds:
                out = step(x)
                k += 1
            out.asnumpy()
            per = (time.perf_counter() - start) / k
            base = base or per
            print(f"N={n:5d} {name:14s} {per * 1e3:9.3f} ms/step  x{per / base:6.2f}")


if __name__ == "__main__":
    main()
'''


def _source(run: RunData, strategy: str, shape: str) -> Path | None:
    path = Path(run.run_dir) / "variants" / strategy / f"{shape}.py"
    return path if path.is_file() else None


def variant_script(run: RunData, strategy: str, shape: str, mode: str) -> str | None:
    """The variant file of a run with a driver for ``mode`` (still importing from bench)."""
    source = _source(run, strategy, shape)
    if source is None:
        return None
    driver = workloads.get(run.workload).driver()
    return source.read_text() + f"\n\nMODE = {mode!r}\n" + driver


def layout_text(run: RunData) -> str | None:
    names = {
        "scalar-param": "ScalarParam",
        "vector-param": "VectorParam",
        "vector-view": "VectorView",
    }
    parts = []
    for shape, cls in names.items():
        source = _source(run, shapes.CONTROL, shape)
        if source is None:
            return None
        text = source.read_text().replace("class Variant(", f"class {cls}(")
        parts.append(text.split(f"class {cls}(", 1)[1])
    controls = ", ".join(f"{s!r}: {c}" for s, c in names.items())
    return (
        f"{shapes.HEADER}\n# Times the no-update controls: a 0-d Parameter, a (1,) Parameter read "
        "directly, a (1,) Parameter read through a 0-d view.\n"
        "import mindspore as ms\nfrom mindspore import ops\n\n"
        "from bench.measured.modes import MODES\n"
        "from bench.measured.workloads.clip.cell import ClipCell\n"
        "from bench.measured.workloads.clip.spec import make_input\n\n\n"
        + "\n\n".join(f"class {c}(" + p for c, p in zip(names.values(), parts))
        + f"\n\nCONTROLS = {{{controls}}}\n"
        + LAYOUT_DRIVER
    )


def write_all(run: RunData, out_dir: Path, pair_limit: int | None = None) -> dict:
    """Write the scripts; returns links for the report (paths relative to ``out_dir``'s parent).

    ``{"failures": {(strategy, mode, failure): path}, "shapes": {(strategy, shape, mode): path},
    "layout": path}``. Scripts generated earlier into ``out_dir`` are removed first."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.py"):
        if old.read_text(errors="replace").startswith(shapes.HEADER):
            old.unlink()
    suite = f"{run.workload}_suite"
    texts: dict[str, str] = {}
    links = {"failures": {}, "shapes": {}, "layout": None}

    def add(strategy: str, shape: str, mode: str) -> str | None:
        key = (strategy, shape, mode)
        if key not in links["shapes"]:
            text = variant_script(run, strategy, shape, mode)
            if text is None:
                return None
            name = f"{strategy}@{shape}-{mode}.py"
            texts[name] = text
            links["shapes"][key] = f"{out_dir.name}/{name}"
        return links["shapes"][key]

    v = run.verdicts
    failing = v[v.status.isin(["incorrect", "raises", "crashed", "timeout"]) & (v["shape"] != "-")]
    for (strategy, mode, failure), group in failing.groupby(["strategy", "mode", "failure"]):
        simplest = min(group["shape"], key=lambda s: (len(s), s))
        link = add(strategy, simplest, mode)
        if link:
            links["failures"][(strategy, mode, failure)] = link
    pairs = minimal_pairs(run.verdicts)
    for p in (pairs if pair_limit is None else pairs.head(pair_limit)).itertuples():
        add(p.strategy, p.works_shape, p.mode)
        add(p.strategy, p.fails_shape, p.mode)
    if run.workload == "clip":
        text = layout_text(run)
        if text:
            texts["layout.py"] = text
            links["layout"] = f"{out_dir.name}/layout.py"
    if texts:
        modules = list(dict.fromkeys(m for t in texts.values() for m in shapes.bench_imports(t)))
        write_text_atomic(out_dir / f"{suite}.py", shapes.suite_module(modules))
        for name, text in texts.items():
            write_text_atomic(out_dir / name, shapes.script(text, suite))
    return links
