"""A committed run is one archive (``bench.core.archive``): packed deterministically, read as its
folder, its reused verdicts stored as pointers that resolve or name the run they need."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import threading

import pytest

from bench.core import archive, paths
from bench.core.rundir import RunDir
from bench.decide import load

A = "20260101T000000Z-aaaa"
B = "20260101T000001Z-bbbb"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """Every test extracts into a cache of its own."""
    monkeypatch.setenv("BENCH_RUN_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _files(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _two_runs(run_copy):
    """Run A (the fixture, gated) and run B beside it, whose graph verdicts are copies reused
    from A, as ``gate_phase`` writes them (``{**record, "reused": A, "replica": r}``)."""
    raw = run_copy.parent
    a = run_copy.rename(raw / A)
    b = raw / B
    shutil.copytree(a, b)
    copies = []
    for path in sorted((b / "gate").glob("graph.*.jsonl")):
        copies += [json.loads(t) for t in path.read_text().splitlines()]
        path.unlink()
    lines = [json.dumps({**r, "reused": A, "replica": r.get("replica", 0)}) for r in copies]
    (b / "gate" / "graph.r0.reused.jsonl").write_text("".join(t + "\n" for t in lines))
    return a, b


def test_packing_the_same_run_twice_gives_the_same_bytes(run_copy, tmp_path):
    first = archive.pack(run_copy, tmp_path / "one.tar.xz", targets={})
    (run_copy / "logs").mkdir()
    (run_copy / "logs" / "worker.log").write_text("not packed")  # regenerated: left out
    for p in run_copy.rglob("*"):  # other times and modes: the same archive
        p.touch()
    second = archive.pack(run_copy, tmp_path / "two.tar.xz", targets={})
    assert first.read_bytes() == second.read_bytes()
    with tarfile.open(first) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert not any("/logs" in m.name for m in members)
    (run_copy / "gate" / "graph.r0.p0.jsonl").write_text("")  # other data: other bytes
    third = archive.pack(run_copy, tmp_path / "three.tar.xz", targets={})
    assert third.read_bytes() != first.read_bytes()


def test_an_archived_run_reads_as_its_folder(run_copy, cache):
    before = load.load(run_copy)
    packed = archive.pack(run_copy, targets={})
    assert packed == run_copy.parent / f"{run_copy.name}.tar.xz"
    kept = _files(run_copy)
    shutil.rmtree(run_copy)
    (found,) = paths.runs(run_copy.parent)
    assert found.name == run_copy.name and found.is_relative_to(cache)
    assert _files(found) == kept
    assert paths.find_run(run_copy.parent, run_copy.name) == found
    assert paths.run_folder(packed) == found == paths.run_folder(run_copy)
    assert paths.find_run(run_copy.parent, "20990101T000000Z-none") is None
    after = load.load(found)
    assert after.verdicts.drop(columns="dims").equals(before.verdicts.drop(columns="dims"))
    assert after.cells.equals(before.cells)
    # a changed archive is extracted again, to a folder of its own
    shutil.copytree(found, run_copy)
    (run_copy / "gate" / "graph.r0.p1.jsonl").write_text("")
    archive.pack(run_copy, targets={})
    shutil.rmtree(run_copy)
    (again,) = paths.runs(run_copy.parent)
    assert again != found and (again / "gate" / "graph.r0.p1.jsonl").read_text() == ""


def test_a_folder_wins_over_its_archive_and_runs_stay_in_order(run_copy):
    raw = run_copy.parent
    a, b = _two_runs(run_copy)
    archive.pack(a, targets={})
    shutil.rmtree(a)
    assert [p.name for p in paths.runs(raw)] == [A, B]  # the archive, then the folder
    assert paths.runs(raw)[1] == b


def test_concurrent_readers_see_one_whole_run(run_copy):
    packed = archive.pack(run_copy, targets={})
    got, errors = [], []

    def read():
        try:
            got.append(archive.extracted(packed))
        except Exception as err:  # any failure fails the test below
            errors.append(err)

    threads = [threading.Thread(target=read) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(got)) == 1
    assert _files(got[0]) == _files(run_copy)
    assert [p.name for p in got[0].parent.iterdir()] == [run_copy.name]  # no temporary left


def test_reused_verdicts_are_stored_as_pointers_and_read_back_byte_for_byte(run_copy):
    a, b = _two_runs(run_copy)
    copies = (b / "gate" / "graph.r0.reused.jsonl").read_bytes()
    archive.pack(a, targets={})
    packed = archive.pack(b, targets={A: archive.held_records(a)})
    with tarfile.open(packed) as tar:
        names = tar.getnames()
        pointers = tar.extractfile(f"{B}/gate/graph.r0.reused.jsonl.pointers").read()
    assert f"{B}/gate/graph.r0.reused.jsonl" not in names
    assert len(pointers) < len(copies) / 5
    assert all(json.loads(t)["run"] == A for t in pointers.decode().splitlines()[1:])
    want = _files(b)
    shutil.rmtree(a)
    shutil.rmtree(b)
    (_, rb) = paths.runs(run_copy.parent)
    assert _files(rb) == want
    assert (rb / "gate" / "graph.r0.reused.jsonl").read_bytes() == copies
    assert RunDir(rb).gate_files() == sorted((rb / "gate").glob("*.jsonl"))


def test_a_copy_no_committed_run_holds_stays_inline(run_copy):
    a, b = _two_runs(run_copy)
    packed = archive.pack(b, targets={})  # A is not committed
    with tarfile.open(packed) as tar:
        assert f"{B}/gate/graph.r0.reused.jsonl" in tar.getnames()
    one = b / "gate" / "graph.r0.reused.jsonl"
    one.write_text(one.read_text().splitlines()[0] + "\n" + '{"cache_key": "elsewhere"}\n')
    want = one.read_bytes()
    packed = archive.pack(b, targets={A: archive.held_records(a)})  # one held, one not
    with tarfile.open(packed) as tar:
        lines = tar.extractfile(f"{B}/gate/graph.r0.reused.jsonl.pointers").read().splitlines()
    assert [sorted(json.loads(t)) for t in lines[1:]] == [
        ["file", "line", "replica", "reused", "run"],
        ["inline"],
    ]
    shutil.rmtree(b)
    assert (
        paths.find_run(run_copy.parent, B) / "gate" / "graph.r0.reused.jsonl"
    ).read_bytes() == want


def test_a_pointer_to_a_missing_run_is_an_error_naming_it(run_copy, tmp_path, cache):
    a, b = _two_runs(run_copy)
    archive.pack(b, targets={A: archive.held_records(a)})
    shutil.rmtree(a)
    shutil.rmtree(b)
    with pytest.raises(archive.MissingRun, match=f"point to run {A}, which is not present"):
        paths.runs(run_copy.parent)
    assert not list(cache.rglob("manifest.json"))  # nothing half extracted
    env = {"BENCH_RUN_CACHE": str(cache), "PATH": "/usr/bin:/bin"}
    for command in (
        ["bench.report", "--results-dir", str(tmp_path), B],
        ["bench.core.archive", "extract", str(run_copy.parent / f"{B}.tar.xz")],
    ):
        done = subprocess.run(
            [sys.executable, "-m", *command],
            capture_output=True,
            text=True,
            cwd=paths.ROOT,
            env={**env, "PYTHONPATH": str(paths.ROOT)},
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert f"run {A}, which is not present" in done.stderr


def test_a_pointer_whose_record_changed_is_refused(run_copy):
    a, b = _two_runs(run_copy)
    archive.pack(b, targets={A: archive.held_records(a)})
    shutil.rmtree(b)
    path = a / "gate" / "graph.r0.p0.jsonl"
    path.write_text(path.read_text().replace('"works"', '"incorrect"'))
    with pytest.raises(archive.ArchiveError, match="sha256 differs"):
        paths.runs(run_copy.parent)


def test_every_committed_archive_reads_and_its_pointers_resolve():
    found = sorted(paths.RESULTS_DIR.glob(f"**/raw/*{archive.SUFFIX}"))
    if not found:
        pytest.skip("no committed run archives")
    for packed in found:
        folder = archive.extracted(packed)
        assert (folder / "manifest.json").is_file() and folder.name == archive.run_id_of(packed)


C = "20260101T000002Z-cccc"
Z = "20250101T000000Z-zzzz"  # a run that was not committed


def _copies_of_an_uncommitted_run(run_copy):
    """Runs A, B and C that each reused the same verdicts from run Z, never committed."""
    a, b = _two_runs(run_copy)
    records = [
        json.loads(t) for t in (b / "gate" / "graph.r0.reused.jsonl").read_text().splitlines()
    ]
    text = "".join(json.dumps({**r, "reused": Z}) + "\n" for r in records)
    c = a.parent / C
    shutil.copytree(b, c)
    for run in (a, b, c):
        for path in sorted((run / "gate").glob("graph.*.jsonl")):
            path.unlink()
        (run / "gate" / "graph.r0.reused.jsonl").write_text(text)
    return a, b, c


def _pointer_runs(packed, run_id):
    with tarfile.open(packed) as tar:
        name = f"{run_id}/gate/graph.r0.reused.jsonl.pointers"
        if name not in tar.getnames():
            return None
        lines = tar.extractfile(name).read().decode().splitlines()[1:]
    return {json.loads(t).get("run") for t in lines}


def test_a_copy_of_an_uncommitted_run_is_kept_whole_once_and_later_runs_point_to_it(run_copy):
    """The clip references and back-to-back runs each held a whole copy of run 72d0's verdicts
    (0.13 MB of each archive): the earliest committed copy stays whole, the later point to it."""
    a, b, c = _copies_of_an_uncommitted_run(run_copy)
    want = {run.name: _files(run) for run in (a, b, c)}
    held = {run.name: archive.held_records(run) for run in (a, b, c)}
    first = archive.pack(a, targets={B: held[B], C: held[C]})  # only later runs hold it
    assert _pointer_runs(first, A) is None  # whole: a later copy may become pointers
    later = archive.pack(c, targets={A: held[A], B: held[B]})
    assert _pointer_runs(later, C) == {A}  # the earliest copy, by run id
    middle = archive.pack(b, targets={A: held[A], C: held[C]})
    assert _pointer_runs(middle, B) == {A}
    for run in (a, b, c):
        shutil.rmtree(run)
    got = {run.name: _files(run) for run in paths.runs(run_copy.parent)}
    assert got == want  # every copy reads back byte for byte


def test_a_copy_another_archive_points_to_stays_whole_when_packed_again(run_copy, monkeypatch):
    a, b, c = _copies_of_an_uncommitted_run(run_copy)
    archive.pack(b, targets={})
    archive.pack(c, targets={B: archive.held_records(b)})  # C points to B's copy
    raw = run_copy.parent
    monkeypatch.setattr(paths, "RESULTS_DIR", raw.parent)
    _, named = archive.committed(exclude=B)
    assert (B, "gate/graph.r0.reused.jsonl") in named
    # packed again with A committed too: A's earlier copy would do, but C points to B's
    archive.pack(a, targets={})
    again = archive.pack(b)
    assert _pointer_runs(again, B) is None
    assert _pointer_runs(archive.pack(b, keep=set()), B) == {A}  # what the guard prevents
