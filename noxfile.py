"""Sessions: `bench` measures and reports, `tests` checks (fast), `conformance` gates every shape of
every workload against the recorded verdicts (`conformance_sample`, CI's: a sample of it), `lint`
lints; `report`, `compare`, `repro` and the release matrix work on recorded runs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import nox

nox.needs_version = ">=2024.4.15"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"  # the MindSpore wheel is ~800 MB: install it once per environment
nox.options.sessions = ["tests", "lint"]

PYPROJECT = nox.project.load_toml("pyproject.toml")
RELEASES = ("2.7.2", "2.8.0", "2.9.0", "2.10.0")  # the CPU wheels PyPI has for Python 3.11
# these sessions install MindSpore: its tier of tests fails, never skips, if it cannot import
REQUIRE_MS = {"BENCH_REQUIRE_MINDSPORE": "1"}
# uv installs no bytecode (pip does): every process of a run would compile MindSpore's, pandas'
# and pytest's sources again where bytecode is not written (PYTHONDONTWRITEBYTECODE, as in
# Python's container images; measured here: importing them 10.1 s a process without, 3.3 s with)
COMPILE_BYTECODE = {"UV_COMPILE_BYTECODE": "1"}


def _install(session: nox.Session, *groups: str, mindspore: str | None = None) -> None:
    """The dependency groups, then this project itself (editable: no sys.path patching).

    Skipped when the environment was made from exactly these requirements, constraints and
    pyproject.toml (a stamp in the environment, written after both installs succeed): pip's
    check of an installed environment takes about 4 s a session here. Not nox's ``-R``
    (``--no-install``), which skips the install even when the requirements changed."""
    deps = [d for group in groups for d in nox.project.dependency_groups(PYPROJECT, group)]
    if mindspore:
        deps = [f"mindspore=={mindspore}", *(d for d in deps if not d.startswith("mindspore"))]
    deps = list(dict.fromkeys(deps))
    location = getattr(session.virtualenv, "location", None)
    stamp = Path(location) / ".bench-installed" if location else None
    made_from = hashlib.sha256(
        json.dumps(
            [deps, Path("constraints.txt").read_text(), Path("pyproject.toml").read_text()]
        ).encode()
    ).hexdigest()
    if stamp is not None and stamp.is_file() and stamp.read_text() == made_from:
        session.log("environment made from these requirements already: install skipped")
        return
    session.install("-c", "constraints.txt", *deps, env=COMPILE_BYTECODE)
    session.install("--no-deps", "-e", ".")
    # nox -R (--no-install) on a reused environment installed nothing: no stamp for it
    config = getattr(getattr(session, "_runner", None), "global_config", None)
    skipped = getattr(config, "no_install", False) and getattr(session.virtualenv, "_reused", False)
    if stamp is not None and not skipped:
        stamp.write_text(made_from)


def _bench(session: nox.Session, *args: str) -> None:
    # Ctrl-C: give the runner time to stop its workers, record the run and write the report.
    session.run("python", "-m", "bench", *args, interrupt_timeout=60, terminate_timeout=10)


@nox.session
def bench(session: nox.Session) -> None:
    """Gate every strategy × shape × mode, time the working ones, write the report."""
    _install(session, "measure", "report")
    _bench(session, *session.posargs)


def _workers() -> str:
    """pytest-xdist workers for the fast tier: one per core, at most 4 (each imports MindSpore:
    about 1 GB of memory a worker). ``nox -s tests -- -n 0`` runs it in one process."""
    return str(max(1, min(4, os.cpu_count() or 1)))


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite without the full conformance gate (2.9-3.5 minutes on 2 cores)."""
    _install(session, "measure", "report", "test")
    session.run("python", "-m", "pytest", "-n", _workers(), "-m", "not conformance",
                *session.posargs, env=REQUIRE_MS)  # fmt: skip


@nox.session(venv_backend="none")
def mutation(session: nox.Session) -> None:
    """Mutation check of the oracle and the decisions (about 3 min; uses the tests' environment:
    run ``nox -s tests`` once first)."""
    python = Path(".nox/tests") / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        session.error("no tests environment yet: run `nox -s tests` once first")
    session.run(str(python), "tests/mutation_check.py", *session.posargs)


@nox.session
def conformance(session: nox.Session) -> None:
    """Every shape of every workload against expected/, the committed repros, the reports."""
    _install(session, "measure", "report", "test")
    session.run("python", "-m", "pytest", "-m", "conformance", *session.posargs, env=REQUIRE_MS)


@nox.session(venv_backend="none")
def conformance_sample(session: nox.Session) -> None:
    """CI's conformance (about 13 min on a busy 2-core machine; uses the tests' environment:
    run ``nox -s tests`` first): the tests of tests/conformance on a sample (its sample.py): per
    workload the fewest shapes holding every strategy × mode, both scripts of every finding's
    minimal pair, more scripts chosen by the commit's hash, every committed report re-rendered
    byte for byte. No test collected is a failure (pytest's exit 5), not a pass."""
    python = Path(".nox/tests/bin/python")
    if not python.exists():
        session.error("no tests environment yet: run `nox -s tests` once first")
    env = {
        **REQUIRE_MS,
        "BENCH_CONFORMANCE_SAMPLE": os.environ.get("BENCH_CONFORMANCE_SAMPLE", "1"),
    }
    # tests/conformance only: the end-to-end runs of tests/ms (crashes, Ctrl-C, --resume) stay in
    # the full conformance; two workers, the gate on one, the scripts and re-render on the other
    session.run(str(python), "-m", "pytest", "-m", "conformance", "-n", "2", "--dist", "loadfile",
                "tests/conformance", *session.posargs, env=env)  # fmt: skip


@nox.session
def merge(session: nox.Session) -> None:
    """Merge the shards of one run (`--shard I/N`) into one run and report it:
    `nox -s merge -- SHARD... [--results-dir DIR]` (a shard: its run folder or archive)."""
    _install(session, "measure", "report")  # as bench: the report renders repro scripts
    session.run("python", "-m", "bench.run.merge", *session.posargs)


@nox.session
def report(session: nox.Session) -> None:
    """Render a run's report (default: the pinned reference; --publish, --all, --pin RUN_ID)."""
    _install(session, "measure", "report")  # MindSpore: repro scripts are rendered from strategies
    session.run("python", "-m", "bench.report", *session.posargs)


@nox.session
def repro(session: nox.Session) -> None:
    """Write one cell's reproduction script: `nox -s repro -- RUN_DIR STRATEGY@SHAPE-MODE`."""
    _install(session, "measure", "report")
    session.run("python", "-m", "bench.causes.repro", *session.posargs)


@nox.session
def findings(session: nox.Session) -> None:
    """Write every finding as a MindSpore issue: `nox -s findings -- --export DIR [--run RUN]`."""
    _install(session, "measure", "report")
    session.run("python", "-m", "bench.causes.findings", *session.posargs)


@nox.session
def reduce(session: nox.Session) -> None:
    """One short program per root cause, kept where it reproduces alone, run on each release:
    `nox -s reduce -- [--only RANK...] [--python VERSION=PATH]...` (results/causes/)."""
    _install(session, "measure", "report")
    session.run("python", "-m", "bench.causes.reduce", *session.posargs)


@nox.session
def check(session: nox.Session) -> None:
    """Check your own Cell in every mode against eager: `nox -s check -- PATH.py:CellName`."""
    _install(session, "measure", "report")
    session.run("python", "-m", "bench.check", *session.posargs)


@nox.session
def compare(session: nox.Session) -> None:
    """Compare two runs cell by cell: `nox -s compare -- RUN_A RUN_B [--only-changed]`."""
    _install(session, "report")
    session.run("python", "-m", "bench.decide.compare", *session.posargs)


@nox.session(tags=["releases"])
@nox.parametrize("mindspore", RELEASES)
def bench_release(session: nox.Session, mindspore: str) -> None:
    """One MindSpore release into results/releases/<version>/ (`nox -t releases -- --gate-only`)."""
    _install(session, "measure", "report", mindspore=mindspore)
    results = f"results/releases/{mindspore}"
    _bench(session, "--results-dir", results, "--plots-dir", f"{results}/plots", "--publish",
           *session.posargs)  # fmt: skip


@nox.session
@nox.parametrize("mindspore", RELEASES)
def bench_with(session: nox.Session, mindspore: str) -> None:
    """`nox -s bench` on one MindSpore release (CI's shards:
    `nox -s "bench_with(mindspore='2.9.0')" -- --shard 1/5 ...`, .github/workflows/bench.yml)."""
    _install(session, "measure", "report", mindspore=mindspore)
    _bench(session, *session.posargs)


@nox.session(tags=["releases"])
def releases(session: nox.Session) -> None:
    """Write results/releases.md: the verdicts and findings per MindSpore release (newest runs)."""
    _install(session, "report")
    session.run("python", "-m", "bench.report.releases", "results/releases", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Lint and check formatting with ruff."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
