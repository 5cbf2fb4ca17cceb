"""findings/costs_check.py's checks can fail: a number shown against an invalid twin on a committed
page or CSV is found, the correct-candidate test excludes silently wrong strategies."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

from bench.core.paths import ROOT

spec = importlib.util.spec_from_file_location("costs_check", ROOT / "findings" / "costs_check.py")
costs_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(costs_check)

CSV = (
    "workload,strategy,shape,mode,size,role,control,twin_valid,status,added_s\n"
    "kv,index_add,row,jit_bytecode,128,update,control/x,{valid},works,{added}\n"
)
PAGE = """# kv

### jit(capture_mode="bytecode")

| strategy (shape) | against the fastest candidate | T=128 |
|---|---|---|
| `index_add` (`row`) | fastest | {cell} |

### Twins checked
"""


def _cells():
    cid = SimpleNamespace(strategy="index_add", shape="row", size=128)
    return [SimpleNamespace(id=cid)]


def _write(tmp_path, valid, added, cell):
    (tmp_path / "kv").mkdir()
    (tmp_path / "kv" / "results.csv").write_text(CSV.format(valid=valid, added=added))
    (tmp_path / "kv" / "summary.md").write_text(PAGE.format(cell=cell))


def test_nothing_shown_against_an_invalid_twin_passes(tmp_path):
    _write(tmp_path, "False", "", "twin invalid (whole step 1.20 ms)")
    assert costs_check.shown_on_pages(tmp_path, "kv", "jit_bytecode", _cells()) == []


def test_a_number_in_the_csv_is_found(tmp_path):
    _write(tmp_path, "True", "1.9e-05", "twin invalid (whole step 1.20 ms)")
    found = costs_check.shown_on_pages(tmp_path, "kv", "jit_bytecode", _cells())
    assert found == ["results.csv: index_add row 128"]


def test_a_number_on_the_page_is_found(tmp_path):
    _write(tmp_path, "False", "", "+19.4 µs [+9.6, +29.6] a step (+8 %)")
    found = costs_check.shown_on_pages(tmp_path, "kv", "jit_bytecode", _cells())
    assert found == ["summary.md: index_add T=128: +19.4 µs [+9.6, +29.6] a step (+8 %)"]


def test_the_committed_pages_show_nothing_against_an_invalid_twin(capsys):
    """Against the run each page stands on (the pinned reference, or the run a user's
    ``nox -s bench`` published in its place: its pages are rendered from it, not from the
    reference)."""
    assert costs_check.invalid_twins(costs_check.page_runs()) == 0
    assert "invalid twins:" in capsys.readouterr().out
