"""No committed file carries an absolute path of the machine that made it (issue 51, item 6).

A page, a record or an archive that names ``/root/...`` or ``/home/someone/...`` says where one
machine kept its checkout, which is of no use to a reader and breaks on every other machine
(commands print DIR instead: ``bench.core.fmt.command``). Tests and the portable module name
made-up paths on purpose, to show what is rewritten; they are the only exceptions.
"""

from __future__ import annotations

import re
import subprocess
import tarfile

import pytest

from bench.core.paths import ROOT

MACHINE = re.compile(r"(?<![\w.])/(?:home|root|Users|work)/[\w.-]+")
EXAMPLES = ("tests/", "bench/core/portable.py")  # made-up paths that show a rewrite
# Runs made before a run's records were written without the machine's paths (a crash's stack:
# portable.stack_text; the command: portable.command; a twin's path in the timing JSON of a run
# kept outside the repository: worker.py) name /work/ref or /work/scratch. They are read, not
# rewritten (a reused record points at their bytes by hash); every run made after is clean.
CLEAN_FROM = "20261206T070000Z"  # run ids sort by time


def _tracked() -> list[str]:
    try:
        done = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return done.stdout.splitlines()


def _found(text: str) -> list[str]:
    here = {str(ROOT)} - {"/"}
    hits = set(MACHINE.findall(text)) | {h for h in here if h in text}
    return sorted(hits)


def test_no_tracked_text_file_names_a_machine_path():
    bad = {}
    for name in _tracked():
        path = ROOT / name
        if name.startswith(EXAMPLES) or path.suffix in (".png", ".xz") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits = _found(text)
        if hits:
            bad[name] = hits
    assert not bad, bad


def test_no_committed_run_archive_names_a_machine_path():
    archives = [ROOT / n for n in _tracked() if n.endswith(".tar.xz")]
    assert archives, "the pinned references are committed as archives"
    archives = [a for a in archives if a.name.removesuffix(".tar.xz") >= CLEAN_FROM]
    bad = {}
    for archive in archives:
        with tarfile.open(archive) as tar:
            for member in tar:
                if not member.isfile() or not member.name.endswith((".json", ".jsonl", ".md")):
                    continue
                text = tar.extractfile(member).read().decode("utf-8", "replace")
                hits = _found(text)
                if hits:
                    bad[f"{archive.name}:{member.name}"] = hits
    assert not bad, dict(list(bad.items())[:10])


def test_the_archive_check_reads_the_old_runs_it_lets_pass():
    """The cut-off must not hide a run made after it: an archive made today is checked."""
    assert "20261206T071500Z-ab12" >= CLEAN_FROM > "20261204T180937Z-b0f2"


def test_a_crash_stack_is_recorded_without_the_machines_paths():
    from bench.core import portable

    stack = (
        f'  File "{ROOT}/bench/measured/oracle.py", line 210 in run_step\n'
        '  File "/opt/py/lib/python3.11/site-packages/mindspore/nn/cell.py", line 1420'
    )
    said = portable.stack_text(stack)
    assert 'File "bench/measured/oracle.py"' in said
    assert 'File "<site-packages>/mindspore/nn/cell.py"' in said and not _found(said)


def test_the_pattern_catches_a_home_and_a_checkout_but_not_a_temporary_folder():
    assert _found('"path": "/home/alice/suite/results/x"') == ["/home/alice"]
    assert _found("run in /root/suite/") == ["/root/suite"]
    assert _found("--results-dir /tmp/mine") == []
    assert _found("see results/work/x and a/home/b") == []
