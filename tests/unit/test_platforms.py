"""The suite off Linux (issue 55): every module imports without the POSIX-only modules, the start
method is chosen and refused as documented, a child that cannot start is named, text is UTF-8
with ``\\n``, names are valid on Windows, and the platforms' workflow is a valid workflow."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.core import procs
from bench.core.paths import ROOT
from bench.core.rundir import new_run_id
from tests.conftest import check_workflow

BENCH = Path(procs.__file__).resolve().parents[1]

# What Windows lacks, made unavailable: modules (None in sys.modules: `import` raises) and names
POSIX_MODULES = ("resource", "fcntl", "termios", "tty", "pty", "grp", "pwd", "syslog", "crypt")
POSIX_NAMES = {
    "os": ("fork", "forkpty", "killpg", "getpgid", "setsid", "setpgid", "getuid", "getloadavg",
           "WIFSIGNALED", "WTERMSIG", "WEXITSTATUS", "wait4", "sched_getaffinity"),
    "signal": ("SIGKILL", "SIGQUIT", "SIGHUP", "SIGALRM", "SIGUSR1", "SIGCHLD", "pthread_sigmask",
               "alarm", "setitimer", "siginterrupt"),
}  # fmt: skip
# third-party packages bench imports, imported first: their Linux builds use POSIX modules
# (MindSpore's log imports fcntl), their Windows builds are theirs to keep portable
THIRD_PARTY = ("numpy", "mindspore", "scipy.stats", "pandas", "matplotlib", "psutil", "pytest")

IMPORT_ALL = """
import importlib, json, os, pkgutil, signal, sys
for name in {third_party!r}:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
for name in {modules!r}:
    sys.modules[name] = None
for owner, names in {names!r}.items():
    for n in names:
        if hasattr(sys.modules[owner], n):
            delattr(sys.modules[owner], n)
import bench
from bench.core import procs
failed, imported = {{}}, ["bench"]
for info in pkgutil.walk_packages(bench.__path__, "bench."):
    if info.name.rsplit(".", 1)[-1] == "__main__":  # runs the command line
        continue
    try:
        importlib.import_module(info.name)
        imported.append(info.name)
    except BaseException as exc:
        failed[info.name] = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps({{"failed": failed, "imported": imported, "available": procs.available(),
                  "default": procs.default()}}))
"""


def test_every_module_imports_with_the_posix_only_modules_unavailable():
    script = IMPORT_ALL.format(third_party=THIRD_PARTY, modules=POSIX_MODULES, names=POSIX_NAMES)
    env = {**os.environ, "PYTHONPATH": str(BENCH.parent)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=BENCH.parent, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["failed"] == {}
    modules = {p.relative_to(BENCH.parent).with_suffix("").as_posix().replace("/", ".")
               for p in BENCH.rglob("*.py") if p.stem != "__main__"}  # fmt: skip
    modules = {m.removesuffix(".__init__") for m in modules}
    assert modules - set(got["imported"]) == set()  # every module, none skipped
    assert got["available"] == ["spawn"] and got["default"] == "spawn"  # as on Windows


# -- the start method ---------------------------------------------------------------------------
def test_the_default_is_fork_on_linux_and_spawn_elsewhere(monkeypatch):
    monkeypatch.delenv(procs.ENV, raising=False)
    expected = "fork" if sys.platform.startswith("linux") else "spawn"
    assert procs.chosen() == procs.default() == expected
    monkeypatch.setenv(procs.ENV, "spawn")
    assert procs.chosen() == "spawn"  # the environment over the default
    assert procs.chosen(procs.available()[0]) == procs.available()[0]  # the option over both
    monkeypatch.setenv(procs.ENV, "")
    assert procs.chosen() == expected  # empty: the default (the workflow's Linux fork job)


@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        (["--start-method", "fork"], None, "start method 'fork'"),
        ([], "fork", f"start method {procs.ENV}=fork"),
        ([], "forkserver", f"start method {procs.ENV}=forkserver"),
    ],
)
def test_a_start_method_the_platform_lacks_exits_2_naming_the_ones_it_has(
    tmp_path, monkeypatch, capsys, argv, env, named
):
    """Fork made unavailable (as on Windows): `bench` and the check refuse it, nothing runs."""
    from bench.check import cli as check_cli
    from bench.cli import main

    monkeypatch.delattr(os, "fork")
    if env:
        monkeypatch.setenv(procs.ENV, env)
    else:
        monkeypatch.delenv(procs.ENV, raising=False)
    results = tmp_path / "results"
    assert main([*argv, "--gate-only", "--results-dir", str(results)]) == 2
    err = capsys.readouterr().err
    assert named in err and "it has: spawn" in err and "forkserver" not in err.split("has:")[1]
    assert not results.exists()  # nothing ran
    code = check_cli.main(
        ["examples/brn_graph.py:BatchRenorm", *argv, "--out", str(tmp_path / "o")]
    )
    err = capsys.readouterr().err
    assert code == 2 and named in err and "it has: spawn" in err
    assert not (tmp_path / "o").exists()


def test_the_chosen_start_method_reaches_the_processes_the_run_starts(monkeypatch):
    monkeypatch.setenv(procs.ENV, "")  # restored afterwards
    assert procs.use("spawn") == "spawn" and os.environ[procs.ENV] == "spawn"


# -- a spawned child ----------------------------------------------------------------------------
def _returns_seven():
    procs.send("hello")
    return 7


def _raises():
    raise ValueError("a bug of the harness")


def test_a_spawned_child_reports_its_messages_and_its_exit_code():
    lines = []
    ended = procs.run(_returns_seven, lines.append, 60.0, method="spawn")
    assert (
        lines == ["hello"] and ended == procs.Ended(code=7) and ended.how() == "exited with code 7"
    )


def test_an_error_in_a_spawned_child_is_the_harness_exit_code_with_its_traceback(capsys):
    ended = procs.run(_raises, lambda line: None, 60.0, method="spawn")
    assert ended.code == procs.HARNESS
    assert "ValueError: a bug of the harness" in capsys.readouterr().err  # relayed stderr


def test_a_spawned_child_that_cannot_start_names_the_interpreter_and_its_error(monkeypatch):
    monkeypatch.setattr(procs, "CHILD_MODULE", "bench.core.no_such_module")
    with pytest.raises(procs.StartError) as err:
        procs.run(_returns_seven, lambda line: None, 60.0, method="spawn")
    assert sys.executable in str(err.value) and "No module named" in str(err.value)


def test_a_missing_interpreter_is_named(monkeypatch, tmp_path):
    missing = str(tmp_path / "no-python")
    monkeypatch.setenv(procs.PYTHON_ENV, missing)
    with pytest.raises(procs.StartError, match=r"could not start: .*no-python"):
        procs.run(_returns_seven, lambda line: None, 60.0, method="spawn")


def test_work_that_does_not_pickle_cannot_start_a_spawned_child():
    with pytest.raises(procs.StartError, match="cannot be handed to a spawned child"):
        procs.run(lambda: 0, lambda line: None, 60.0, method="spawn")


def test_the_error_line_of_a_traceback_is_its_last():
    lines = ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>',
             "    import nope", "ModuleNotFoundError: No module named 'nope'"]  # fmt: skip
    assert procs.first_error(lines) == "ModuleNotFoundError: No module named 'nope'"
    assert procs.first_error(["", "python: can't open file 'x'"]) == "python: can't open file 'x'"


def test_windows_exit_codes_of_a_crash_are_named():
    assert procs.Ended(code=0xC0000005).how() == (
        "exited with code 3221225477 (0xc0000005: access violation)"
    )
    assert procs.Ended(signal="SIGSEGV").how() == "died with SIGSEGV"


# -- text and names -----------------------------------------------------------------------------
def _text_calls_without_encoding(path: Path) -> list[str]:
    """Calls in ``path`` that read or write text in the platform's encoding (or, writing, its
    line ends): ``open`` in text mode without ``encoding``, ``read_text`` without it,
    ``write_text`` at all (its ``newline`` needs Python 3.10: ``bench.core.io.write_text``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        keywords = {k.arg for k in node.keywords}
        mode = node.args[1] if len(node.args) > 1 else None
        mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
        binary = isinstance(mode, ast.Constant) and "b" in str(mode.value)
        owner = getattr(getattr(node.func, "value", None), "id", "")
        binary = binary or owner in ("tarfile", "Image")  # an archive's members, PIL's images
        binary = binary or (owner, name) == ("os", "open")  # a file descriptor: no text at all
        if name in ("open", "fdopen") and not binary and "encoding" not in keywords:
            found.append(f"{path.name}:{node.lineno} {name}")
        if name == "read_text" and "encoding" not in keywords:
            found.append(f"{path.name}:{node.lineno} read_text")
        if name == "write_text" and isinstance(node.func, ast.Attribute):
            found.append(f"{path.name}:{node.lineno} Path.write_text")
    return found


def test_bench_reads_and_writes_text_as_utf8_with_newlines():
    found = [c for p in sorted(BENCH.rglob("*.py")) for c in _text_calls_without_encoding(p)]
    # fdopen of a pipe read as bytes (procs), urlopen and the like are not text files
    assert [c for c in found if "os.fdopen(read_fd" not in c] == []


def test_written_text_keeps_newlines_and_utf8(tmp_path):
    from bench.core.io import write_text, write_text_atomic

    for write in (write_text, write_text_atomic):
        path = write(tmp_path / f"{write.__name__}.md", "a × b\nc ± d\n")
        assert path.read_bytes() == "a × b\nc ± d\n".encode()


def test_run_ids_and_committed_file_names_are_valid_on_windows():
    assert not set(new_run_id()) & set('<>:"/\\|?*')
    if shutil.which("git") and (ROOT / ".git").exists():
        names = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT,
                               check=True).stdout.splitlines()  # fmt: skip
        bad = [n for n in names if set(Path(n).name) & set('<>:"\\|?*')]
        assert bad == []


# -- the workflow -------------------------------------------------------------------------------
WORKFLOW = ROOT / ".github" / "workflows" / "platforms.yml"


def test_the_platforms_workflow_is_a_valid_github_workflow():
    check_workflow(WORKFLOW)


def test_the_workflow_runs_the_readme_test_command_and_the_check_on_every_os():
    text = WORKFLOW.read_text(encoding="utf-8")
    for runner in ("ubuntu-latest", "windows-latest", "macos-latest"):
        assert runner in text
    assert "python -m nox -s tests" in text and "python -m nox -s check --" in text
    assert "examples/brn_graph.py:BatchRenorm" in text
    assert f"{procs.ENV}: ${{{{ matrix.start-method }}}}" in text
    assert "start-method: spawn" in text  # the spawn-forced Linux job
