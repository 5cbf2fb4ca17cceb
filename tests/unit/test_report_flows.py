"""The report's user flows: every page stands on a named run (the pins, or the run given), a
report is written whole or not at all, and bad input exits 2 with nothing written. No
MindSpore: the fixture run is rendered."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.core.paths import ROOT
from bench.report import main, summary
from tests.conftest import RUN


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _variant(raw: Path, run_id: str, **changes) -> Path:
    """A copy of the fixture run named ``run_id`` with its manifest changed (``plan`` keys
    merged into the plan; ``timing=False`` drops its timings, as a gate-only run has none)."""
    target = raw / run_id
    shutil.copytree(RUN, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["run_id"] = run_id
    manifest["plan"].update(changes.pop("plan", {}))
    if not changes.pop("timing", True):
        shutil.rmtree(target / "timing")
    manifest.update(changes)
    (target / "manifest.json").write_text(json.dumps(manifest))
    return target


def test_a_failing_report_changes_no_file(tmp_path, monkeypatch, capsys):
    results = tmp_path / "own"
    run = _variant(results / "raw", RUN.name)
    (results / "summary.md").parent.mkdir(parents=True, exist_ok=True)
    (results / "summary.md").write_text("the page as it was\n")
    before = _tree(results)

    def broken(*args, **kwargs):
        raise RuntimeError("a renderer's bug")

    monkeypatch.setattr(summary, "render", broken)  # after the CSVs, plots and repros are staged
    assert main.main([run.name, "--results-dir", str(results), "--publish"]) == 3
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("report: internal error") and "no page was changed" in err
    assert _tree(results) == before


@pytest.mark.parametrize(
    "case, reason",
    [
        ("missing", "no run '20260101T000000Z-none'"),
        ("other workload", "is a clip run, not brn"),
        ("incomplete", "is interrupted, not complete"),
        ("unnamed", "name a run"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, case, reason):
    results = tmp_path / "own"
    _variant(results / "raw", RUN.name)
    _variant(results / "raw", "20261201T000000Z-stop", status="interrupted")
    argv = {
        "missing": ["20260101T000000Z-none"],
        "other workload": [RUN.name, "--workload", "brn"],
        "incomplete": ["20261201T000000Z-stop", "--publish"],
        "unnamed": [],
    }[case]
    before = _tree(tmp_path)
    assert main.main([*argv, "--results-dir", str(results)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report: error:") and reason in err and err.count("\n") == 1
    assert _tree(tmp_path) == before


# --- in a checkout of its own: the pins, README and the committed pages -------------------------


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The code, the strategies and README, with the fixture run as clip's pinned reference and
    its pages rendered by ``--all``."""
    root = tmp_path_factory.mktemp("checkout")
    for name in ("bench", "strategies"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "README.md", root / "README.md")
    shutil.copytree(RUN, root / "results" / "clip" / "raw" / RUN.name)
    pinned = {"schema_version": 1, "references": {"clip": RUN.name}, "releases": {}}
    (root / "results" / "references.json").write_text(json.dumps(pinned))
    assert report(root, "--all").returncode == 0
    return root


def report(root: Path, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "bench.report", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def test_all_renders_the_pinned_reference_and_says_so(checkout):
    pages = json.loads((checkout / "results" / "pages.json").read_text())
    assert pages["workloads"] == {"clip": {"run": RUN.name, "pinned": True, "lacks": []}}
    page = (checkout / "results" / "clip" / "summary.md").read_text()
    assert "Not the reference" not in page
    assert (checkout / "plots" / "answer.png").is_file()


def test_a_published_gate_only_run_renders_and_says_what_it_lacks(checkout):
    """README's add-a-strategy flow leaves gate-only runs beside the reference: publishing one
    renders (the answer figure without a legend), says what it lacks, and leaves README and the
    pins alone; the pinned reference is still what ``--all`` renders."""
    raw = checkout / "results" / "clip" / "raw"
    gate = _variant(raw, "20261231T000000Z-gate", plan={"gate_only": True}, timing=False)
    readme, refs = (checkout / "README.md").read_bytes(), (checkout / "results/references.json")
    pinned = refs.read_bytes()
    done = report(checkout, gate.name, "--publish")
    assert done.returncode == 0, done.stderr
    assert "drawn without a legend" in done.stdout
    page = (checkout / "results" / "clip" / "summary.md").read_text()
    assert f"`{gate.name}`" in page and f"`{RUN.name}`" in page and "no timings" in page
    assert "Not the reference" in (checkout / "results" / "summary.md").read_text()
    stands = json.loads((checkout / "results" / "pages.json").read_text())["workloads"]["clip"]
    assert stands["run"] == gate.name and not stands["pinned"]
    assert (checkout / "README.md").read_bytes() == readme and refs.read_bytes() == pinned
    # a gate-only or quick run cannot be pinned; the pinned run comes back with --all
    refused = report(checkout, "--pin", gate.name)
    assert refused.returncode == 2 and "no timings" in refused.stderr
    assert refs.read_bytes() == pinned


def test_a_pinned_run_that_is_missing_is_named(checkout, tmp_path):
    root = tmp_path / "c"
    shutil.copytree(checkout, root, ignore=shutil.ignore_patterns("raw"))
    done = report(root, "--all")
    assert done.returncode == 2 and RUN.name in done.stderr and "is not in" in done.stderr


def test_readmes_add_a_strategy_flow_ends_with_complete_pages(checkout, tmp_path):
    """README's flow with the stand-in worker (no MindSpore): a gate-only check of every
    workload, a timed subset, then a run published as clip's pages. Gate-only runs now lie beside
    the pinned reference (before, the next report took them as the newest runs and crashed, exit
    3); every step ends 0 or 1 (an unrecorded verdict), none 3; README and the pins never change."""
    from tests.unit.test_runner import FAKE, FIXTURES, SHAPE

    root = tmp_path / "c"
    shutil.copytree(checkout, root)
    shutil.copy(FIXTURES / "e2e_strategies" / "good.py", root / "strategies" / "my_strategy.py")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(FIXTURES / "no_mindspore"), str(root)]),
        "BENCH_WORKER": str(FAKE),
    }
    fixed = ["--expected-dir", str(tmp_path / "expected"), "--modes", "pynative"]
    readme, refs = (root / "README.md").read_bytes(), (root / "results/references.json")
    pinned = refs.read_bytes()

    def bench(*args):
        done = subprocess.run([sys.executable, "-m", "bench", *args, *fixed], cwd=root, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
        assert (root / "README.md").read_bytes() == readme and refs.read_bytes() == pinned
        return done

    page = (root / "results" / "clip" / "summary.md").read_bytes()
    bench("--gate-only", "--strategies", "my_strategy")  # every workload, as README says
    for w in ("clip", "brn", "kvcache", "ema"):
        assert list((root / "results" / w / "raw").glob("*/gate")), w
    assert (root / "results" / "clip" / "summary.md").read_bytes() == page  # no report
    quick = bench("--strategies", "my_strategy", "--quick", "--shapes", SHAPE)
    assert (root / "results" / "clip" / "summary.md").read_bytes() == page  # its own folder
    assert "report: wrote" in quick.stdout and "/report/summary.md" in quick.stdout
    bench("--strategies", "my_strategy", "--shapes", SHAPE, "--publish")
    text = (root / "results" / "clip" / "summary.md").read_text()
    assert "Not the reference" in text and "strategies not run" not in text.split("\n")[0]
    stands = json.loads((root / "results" / "pages.json").read_text())["workloads"]["clip"]
    assert not stands["pinned"] and stands["run"] != RUN.name
    assert (root / "results" / "summary.md").is_file() and (root / "plots/answer.png").is_file()
