"""Sessions: `nox -s bench` measures and reports, `nox -s tests` checks, `nox -s lint` lints."""

from __future__ import annotations

import nox

nox.needs_version = ">=2024.4.15"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"  # the MindSpore wheel is ~800 MB: install it once per environment
nox.options.sessions = ["tests", "lint"]

PYPROJECT = nox.project.load_toml("pyproject.toml")


def _install(session: nox.Session, *groups: str) -> None:
    for group in groups:
        session.install(*nox.project.dependency_groups(PYPROJECT, group))


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmark every strategy × mode × batch size, then write the report."""
    _install(session, "measure", "report")
    # Ctrl-C: give the runner time to stop its workers, record the run and write the report.
    session.run(
        "python", "-m", "bench", *session.posargs, interrupt_timeout=60, terminate_timeout=10
    )


RELEASES = ("2.7.2", "2.8.0", "2.9.0", "2.10.0")  # the CPU wheels PyPI has for Python 3.11


@nox.session(tags=["releases"])
@nox.parametrize("mindspore", RELEASES)
def bench_release(session: nox.Session, mindspore: str) -> None:
    """Benchmark on one MindSpore release into results/releases/<version>/ (`nox -t releases`)."""
    measure = nox.project.dependency_groups(PYPROJECT, "measure")
    session.install(f"mindspore=={mindspore}", *(d for d in measure if "mindspore" not in d))
    _install(session, "report")
    results = f"results/releases/{mindspore}"
    args = ["--results-dir", results, "--plots-dir", f"{results}/plots", *session.posargs]
    session.run("python", "-m", "bench", *args, interrupt_timeout=60, terminate_timeout=10)


@nox.session(tags=["releases"])
def releases(session: nox.Session) -> None:
    """Write results/releases.md: verdicts and overhead per MindSpore release (newest runs)."""
    _install(session, "report")
    session.run("python", "-m", "bench.releases", "results/releases")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite: conformance gate, harness end to end, report."""
    _install(session, "measure", "report", "test")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def report(session: nox.Session) -> None:
    """Rebuild results/summary.md, results/results.csv and plots/ from a run (default: newest)."""
    _install(session, "report")
    session.run("python", "-m", "bench.report", *session.posargs)


@nox.session
def compare(session: nox.Session) -> None:
    """Compare two runs cell by cell: `nox -s compare -- RUN_A RUN_B [--fail-above 0.05]`."""
    _install(session, "report")
    session.run("python", "-m", "bench.compare", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Lint and check formatting with ruff."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
