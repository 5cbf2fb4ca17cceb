"""The benchmark's CI workflow (issue 53): a valid GitHub workflow whose matrix is workload ×
MindSpore release × shard, one job (one machine) per shard, each shard's run uploaded, and a last
job that merges them with the suite's merge."""

from __future__ import annotations

import ast

import pytest

from bench.core.paths import ROOT
from bench.measured import modes, workloads
from tests.conftest import check_workflow

WORKFLOW = ROOT / ".github" / "workflows" / "bench.yml"


@pytest.fixture(scope="module")
def flow() -> dict:
    yaml = pytest.importorskip("ruamel.yaml")  # check-jsonschema's own YAML parser
    return yaml.YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))


def _releases() -> list[str]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "RELEASES":
            return list(ast.literal_eval(node.value))
    raise AssertionError("noxfile.py has no RELEASES")


def test_the_bench_workflow_is_a_valid_github_workflow():
    check_workflow(WORKFLOW)


def test_its_defaults_are_every_workload_every_release_and_a_shard_per_mode(flow):
    inputs = flow["on"]["workflow_dispatch"]["inputs"]
    assert inputs["workloads"]["default"].split(",") == list(workloads.WORKLOADS)
    assert inputs["releases"]["default"].split(",") == _releases()
    # a timed run keeps each mode whole (bench.run.shard): at most one shard per mode
    assert 1 < int(inputs["shards"]["default"]) <= len(modes.MODE_NAMES)


def test_each_shard_is_a_job_of_its_own_that_uploads_its_run(flow):
    job = flow["jobs"]["shard"]
    assert set(job["strategy"]["matrix"]) == {"workload", "mindspore", "shard"}
    assert "max-parallel" not in job["strategy"]  # nothing shares a runner: a job per shard
    assert job["runs-on"] == "ubuntu-latest"
    run = "\n".join(step.get("run", "") for step in job["steps"])
    assert "bench_with(mindspore='$MINDSPORE')" in run and '--shard "$SHARD"' in run
    assert job["env"]["SHARD"] == "${{ matrix.shard }}/${{ inputs.shards }}"
    assert "python -m bench.core.archive pack" in run
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload"))
    assert "${{ matrix.shard }}" in upload["with"]["name"] and upload.get("if") == "always()"


def test_the_last_job_merges_every_shard_with_the_suites_merge(flow):
    job = flow["jobs"]["merge"]
    assert job["needs"] == "shard" and "always()" in job["if"]
    download = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/download"))
    assert download["with"]["pattern"] == "shard-*"
    run = "\n".join(step.get("run", "") for step in job["steps"])
    assert "python -m nox -s merge --" in run


def test_the_sessions_it_runs_exist():
    text = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert "def bench_with(session: nox.Session, mindspore: str)" in text
    assert '"python", "-m", "bench.run.merge"' in text
