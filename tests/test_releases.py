"""The across-releases page, built from fixture runs relabelled as two releases (no MindSpore)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT

from bench import releases

COMPLETE = ROOT / "tests" / "fixtures" / "runs" / "complete"


def fake_release(folder: Path, version: str, silent_failure: bool = False) -> Path:
    """A copy of the complete fixture run that says it ran on MindSpore ``version``."""
    run = folder / version / "raw" / "20260101T000000Z-abcd"
    shutil.copytree(COMPLETE, run)
    for path in run.glob("*.json"):
        doc = json.loads(path.read_text())
        env = doc.get("suite", {}).get("environment")
        if env:
            env["mindspore"] = version
        if silent_failure and path.name == "gate-host-pynative.json":
            doc["suite"]["verdict"].update(
                status="incorrect", detail="Parameter unchanged after step 1 at batch 4"
            )
        path.write_text(json.dumps(doc))
    if silent_failure:
        for path in run.glob("time-host-pynative-*.json"):
            path.unlink()
    return run


def test_release_page(tmp_path):
    fake_release(tmp_path, "2.9.0", silent_failure=True)
    fake_release(tmp_path, "2.10.0")
    found = releases.load_releases(tmp_path, n_boot=50)
    assert list(found) == ["2.9.0", "2.10.0"]  # version order, not string order
    page = releases.render(found, n_boot=50)
    assert page.index("## Compatibility per release") < page.index("## What changed")
    assert "| `host` | PYNATIVE | SILENT-WRONG: Parameter unchanged" in page
    fixed = "- `host` · pynative: 2.9.0 incorrect → 2.10.0 works (a silent failure was fixed)"
    assert fixed in page
    assert "| strategy | mode | 2.9.0 | 2.10.0 |" in page
    assert "### Batch size 64" in page
    overhead = page.split("## Update overhead per release", 1)[1]
    assert "| `assign` | GRAPH | 1." in overhead  # a measured ratio, not a dash
    assert "MindSpore 2.10.0: run `20260101T000000Z-abcd`" in page


def test_release_main_writes_the_page_and_refuses_an_empty_folder(tmp_path, capsys):
    fake_release(tmp_path / "releases", "2.10.0")
    assert releases.main([str(tmp_path / "releases"), "--bootstrap", "20"]) == 0
    assert (tmp_path / "releases.md").read_text().startswith("# Across MindSpore releases")
    assert releases.main([str(tmp_path / "nothing")]) == 2
    assert "no runs under" in capsys.readouterr().err


def test_an_extra_run_joins_the_page(tmp_path):
    fake_release(tmp_path / "releases", "2.9.0")
    extra = fake_release(tmp_path / "main", "2.10.0")
    args = [str(tmp_path / "releases"), "--bootstrap", "20", "--run", str(extra)]
    assert releases.main(args) == 0
    assert "| strategy | mode | 2.9.0 | 2.10.0 |" in (tmp_path / "releases.md").read_text()
