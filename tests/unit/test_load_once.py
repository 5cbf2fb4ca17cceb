"""``load.load`` reads and analyses a run folder once a process: a caller gets a copy of its own,
and a run written to since it was read is read again."""

from __future__ import annotations

import json
import shutil

import pytest

from bench.decide import load
from tests.conftest import RUN


@pytest.fixture
def run(tmp_path, monkeypatch):
    folder = tmp_path / RUN.name
    shutil.copytree(RUN, folder)
    reads = []
    real = load._read
    monkeypatch.setattr(load, "_read", lambda *a: reads.append(a[0]) or real(*a))
    load._read_once.cache_clear()
    yield folder, reads
    load._read_once.cache_clear()  # nothing read through the counting stand-in is kept


def test_a_run_read_before_is_not_read_again(run):
    folder, reads = run
    first, again = load.load(folder), load.load(folder)
    assert reads == [folder]
    assert first.verdicts.equals(again.verdicts) and first.cells.equals(again.cells)
    assert load.load(folder, between_runs={}) is not None and len(reads) == 2  # other arguments


def test_each_caller_gets_a_copy_of_its_own(run):
    folder, _ = run
    mine = load.load(folder)
    rows = len(mine.verdicts)
    mine.manifest.workers = {"changed": 1}
    mine.verdicts.drop(mine.verdicts.index, inplace=True)
    mine.memo["x"] = 1
    theirs = load.load(folder)
    assert theirs.manifest.workers != {"changed": 1}
    assert len(theirs.verdicts) == rows > 0 and theirs.memo == {}


def test_a_run_written_to_since_is_read_again(run):
    folder, reads = run
    before = load.load(folder)
    manifest = folder / "manifest.json"
    data = json.loads(manifest.read_text())
    data["plan"]["batch_sizes"] = [*data["plan"]["batch_sizes"], 99999]
    manifest.write_text(json.dumps(data))
    after = load.load(folder)
    assert len(reads) == 2
    assert 99999 in after.plan["batch_sizes"] and 99999 not in before.plan["batch_sizes"]
