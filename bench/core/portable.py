"""Raw data as plain, portable values: no Python reprs, no absolute paths of the machine that ran.

pytest-benchmark writes a parametrized test's ``params`` with ``repr`` when a value is not JSON
(``"UNSERIALIZABLE[Item(strategy='assign', path='/home/me/suite/results/...')]"``), and a plan
records the folders it read. Raw files are merged across machines (DESIGN.md §6), so the worker
writes plain dicts with paths relative to the repository root (``plain``), and ``rewrite_run``
converts run folders written before that, in place (``python -m bench.core.portable RUN...``):
data hygiene only, no measurement changes. A run kept outside the repository (``--results-dir``)
gets the paths inside it relative to its results folder.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import sys
from pathlib import Path, PurePath

from bench.core.io import write_json_atomic, write_text_atomic
from bench.core.paths import ROOT

PREFIX, SUFFIX = "UNSERIALIZABLE[", "]"
REPR = re.compile(r"(UNSERIALIZABLE\[)?[A-Z]\w*\(.*\)\]?$", re.S)


def portable_path(path, root=ROOT) -> str:
    """``path`` relative to ``root`` (or the first of several roots) it lies under, else as
    given."""
    text = str(path)
    for root_ in (root,) if isinstance(root, (str, PurePath)) else root:
        base = str(root_).rstrip("/\\")
        if text.startswith(base + "/"):
            return text[len(base) + 1 :]
        if text.startswith(base + "\\"):  # Windows: recorded with / as everywhere else
            return text[len(base) + 1 :].replace("\\", "/")
    return text


def resolve(path, root: Path = ROOT) -> Path:
    """A path as recorded (relative to the repository root, or absolute) made usable here."""
    path = Path(path)
    return path if path.is_absolute() else root / path


def plain(value, root: Path | str = ROOT):
    """``value`` as JSON values: dataclasses as dicts, paths and absolute path strings under
    ``root`` relative to it."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v, root) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, root) for v in value]
    if isinstance(value, (PurePath, str)):
        return portable_path(value, root)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return repr(value)  # nothing the suite passes: kept readable rather than dropped


def plain_params(output_json: dict, root: Path | str = ROOT) -> dict:
    """pytest-benchmark's JSON with every benchmark's ``params`` made plain (the worker calls it
    from the ``pytest_benchmark_update_json`` hook, before the file is written)."""
    for bench in output_json.get("benchmarks", []):
        if bench.get("params") is not None:
            bench["params"] = plain(bench["params"], root)
    return output_json


def is_repr(value) -> bool:
    """A dataclass's repr kept as text: ``UNSERIALIZABLE[Item(...)]`` (pytest-benchmark's JSON
    encoder) or a bare ``Item(...)`` (``json.dumps(default=str)``)."""
    return isinstance(value, str) and bool(REPR.match(value))


def from_repr(text: str) -> dict:
    """``UNSERIALIZABLE[Name(a=1, b='x')]`` or ``Name(a=1, b='x')`` (a dataclass's repr) as
    ``{"a": 1, "b": "x"}``."""
    if text.startswith(PREFIX) and text.endswith(SUFFIX):
        text = text[len(PREFIX) : -len(SUFFIX)]
    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError:
        call = None
    if not isinstance(call, ast.Call) or call.args:
        raise ValueError(f"not a dataclass repr: {text[:60]!r}")
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords}


FOLDER_OPTION, ABSOLUTE = r"--[\w-]*dir", r"(?:/|[A-Za-z]:[\\/])"


def command(text: str) -> str:
    """A run's command as recorded and printed: a folder given as an absolute path becomes
    ``DIR`` (no path of the machine that made the run)."""
    return re.sub(rf"({FOLDER_OPTION}[ =]){ABSOLUTE}\S*", r"\1DIR", text)


def argv(args) -> list[str]:
    """A run's arguments as recorded: a folder given as an absolute path becomes ``DIR``, as in
    ``command`` (``--results-dir /home/me/runs`` and ``--results-dir=/home/me/runs``)."""
    out = []
    for arg in map(str, args):
        folder = bool(out) and re.fullmatch(FOLDER_OPTION, out[-1]) and re.match(ABSOLUTE, arg)
        out.append("DIR" if folder else re.sub(rf"^({FOLDER_OPTION}=){ABSOLUTE}.*", r"\1DIR", arg))
    return out


SITE = re.compile(r"(?<![\w.])/[^\s\"']*?/site-packages/")
# a run kept outside the repository (--results-dir): its files from its results folder on
RUN_FILE = re.compile(
    r"(?<![\w.])(?:/|[A-Za-z]:[\\/])[^\s\"']*?[\\/](raw[\\/]\d{8}T\d{6}Z-\w+[\\/])"
)


def stack_text(text: str, root=ROOT) -> str:
    """A Python stack (faulthandler's, a traceback) without the machine's absolute paths: the
    repository's files relative to its root, a run's files (its variants) relative to its
    results folder (``raw/<run-id>/…``) wherever that folder is, installed packages under
    ``<site-packages>/``."""
    base = str(root).rstrip("/\\")
    text = str(text).replace(base + "/", "")
    return SITE.sub("<site-packages>/", RUN_FILE.sub(r"\1", text))


def _old_roots(run_id: str, manifest: dict, texts) -> list[str]:
    """Where the run was written from: the repository root (``plan.strategies_dir`` without its
    ``/strategies``; what precedes ``/results/<w>/raw/<id>/`` in a recorded path) and, for a run
    kept outside the repository, its results folder (what precedes ``/raw/<id>/``)."""
    roots = []
    folder = str(manifest.get("plan", {}).get("strategies_dir", ""))
    if folder.startswith("/") and folder.endswith("/strategies"):
        roots.append(folder[: -len("/strategies")])
    marker = f"/raw/{run_id}/"
    for text in texts:
        if marker in text and text.startswith("/"):
            head = text.split(marker, 1)[0]
            if "/results/" in head:
                roots.append(head.rsplit("/results/", 1)[0])
            else:
                roots.append(head)
            break
    return list(dict.fromkeys(roots))


def _strings(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def rewrite_run(run_dir: Path | str) -> list[Path]:
    """Rewrite one run folder's timing JSON (``params`` reprs as dicts), manifest (recorded
    folders, the command's folders as ``DIR``) and gate verdicts (a crash's stack) with paths
    relative to the root the run was written from; returns what changed."""
    run_dir = Path(run_dir)
    files = sorted((run_dir / "timing").glob("*.json"))
    data = {
        p: json.loads(p.read_text(encoding="utf-8")) for p in [*files, run_dir / "manifest.json"]
    }
    for path, d in data.items():
        for bench in d.get("benchmarks", []) if path.name != "manifest.json" else []:
            params = bench.get("params")
            if isinstance(params, dict):  # a race member's None stays None
                bench["params"] = {k: from_repr(v) if is_repr(v) else v for k, v in params.items()}
    manifest = data[run_dir / "manifest.json"]
    run_id = str(manifest.get("run_id") or run_dir.name)
    roots = _old_roots(run_id, manifest, (s for d in data.values() for s in _strings(d)))
    if isinstance(manifest.get("argv"), list):  # the command's folders
        manifest["argv"] = argv(manifest["argv"])
    for call in manifest.get("invocations") or []:
        if isinstance(call, dict) and isinstance(call.get("argv"), list):
            call["argv"] = argv(call["argv"])
    changed = []
    for path, d in data.items():
        new = plain(d, roots)
        if json.dumps(new, indent=1, default=str) + "\n" != path.read_text(encoding="utf-8"):
            write_json_atomic(path, new)
            changed.append(path)
    for path in sorted((run_dir / "gate").glob("*.jsonl")):  # a crash's stack in a verdict
        text = path.read_text(encoding="utf-8")
        lines = [json.loads(x) for x in text.splitlines() if x.strip()]
        for line in lines:
            found = line.get("diagnostics")
            if isinstance(found, dict) and isinstance(found.get("traceback"), str):
                found["traceback"] = stack_text(found["traceback"], roots[0] if roots else ROOT)
        new_text = "".join(json.dumps(x, default=str) + "\n" for x in lines)
        if new_text != text:
            write_text_atomic(path, new_text)
            changed.append(path)
    return changed


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for run in argv:
        for path in rewrite_run(Path(run)):
            print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
