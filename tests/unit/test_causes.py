"""Root causes (issue 54): entries of several workloads grouped by what triggers them, from
hand-made entries (``bench.causes.causes``): no run, no MindSpore."""

from __future__ import annotations

from bench.causes import causes
from bench.causes.findings import Entry

APIS = {"assign": "mindspore.ops.assign", "assign_op": "mindspore.ops.Assign", "own": ""}


def entry(workload, outcome, strategies, modes, cells, rule=None, shape="inline"):
    return Entry(workload, outcome, strategies, modes, {m: [shape] for m in modes}, rule,
                 example={"shape": shape}, cells=cells)  # fmt: skip


def cells(n, strategy="assign", mode="jit_bytecode"):
    return [(strategy, f"shape{i}", mode) for i in range(n)]


def test_one_api_failing_the_same_way_in_several_workloads_is_one_cause():
    found = [
        entry("clip", "incorrect: write dropped at every call", ["assign"], ["jit_bytecode"],
              cells(12)),
        entry("kvcache", "incorrect: write dropped at every call", ["assign"], ["jit_bytecode"],
              cells(6)),
        entry("brn", "incorrect: stale read at every call", ["assign"], ["jit_bytecode"], cells(3)),
    ]  # fmt: skip
    got = causes.group(found, APIS)
    assert [(c.outcome, c.cells, c.workloads) for c in got] == [
        ("write dropped", 18, ["clip", "kvcache"]),  # most cells first
        ("stale read", 3, ["brn"]),  # another outcome: another cause
    ]
    want = 'jit(capture_mode="bytecode"): `ops.assign` — write dropped at every call'
    assert got[0].title == want
    assert got[0].witness.workload == "clip"  # the entry with the most cells


def test_a_rule_groups_by_its_construct_whatever_the_strategies_and_workloads():
    rule = ("construct", "own", "base")
    found = [
        entry("clip", "incorrect: write dropped at every call", ["assign", "assign_op"],
              ["jit_bytecode"], cells(8), rule),
        entry("brn", "incorrect: write dropped at every call", ["assign_op", "own"],
              ["jit_bytecode"], cells(6), rule),
        entry("brn", "incorrect: write dropped at every call", ["assign_op"], ["jit_bytecode"],
              cells(2)),  # no rule: the API is the trigger
    ]  # fmt: skip
    got = causes.group(found, APIS)
    assert len(got) == 2
    assert got[0].trigger.construct == ("construct", "base", "own") and got[0].cells == 14
    assert got[0].strategies == ["assign", "assign_op", "own"]
    assert "`construct=base` (works with `construct=own`)" in got[0].title
    assert got[1].trigger.apis == ("mindspore.ops.Assign",)


def test_errors_group_without_what_changes_from_run_to_run():
    a = entry(
        "clip",
        "raises: RuntimeError: kernel at 0x7f3a failed in /tmp/x/a.py line 12",
        ["own"],
        ["graph"],
        cells(2, "own", "graph"),
    )
    b = entry("ema", "raises: RuntimeError: kernel at 0x9b10 failed in /home/u/b.py line 7",
              ["own"], ["graph"], cells(1, "own", "graph"))  # fmt: skip
    (only,) = causes.group([a, b], APIS)
    assert only.cells == 3 and only.workloads == ["clip", "ema"]
    assert "0x" not in only.outcome and "/tmp" not in only.outcome
    assert causes.trigger_of(a, APIS).apis == ("own",)  # no API named: the strategy's name


def test_the_readme_lines_list_the_largest_causes_then_count_the_rest():
    found = [
        entry(w, "incorrect: write dropped at every call", [s], ["graph"], cells(n, s, "graph"))
        for w, s, n in (("clip", "assign", 5), ("brn", "assign_op", 9), ("ema", "own", 1))
    ]
    got = causes.group(found, APIS)
    text = causes.lines(got, shown=2)
    assert len(text) == 3 and text[0].startswith("- [GRAPH_MODE: `ops.Assign`")
    assert text[0].endswith("9 cells (1 strategies; brn)")
    assert text[2] == "- and 1 more root causes of 1 cells: [the findings](results/findings.md)"
    assert causes.lines([]) == ["- none"]
    assert len(causes.table(got)) == 2 + 3


def test_the_causes_file_carries_what_the_check_matches_and_reads_back():
    """results/causes.json: per cause its rank and title, per entry its rule or strategies, modes,
    failing shapes and the repro of its example; the check's findings read back from it."""
    import json
    from types import SimpleNamespace

    import pytest

    from bench.check import known

    rule = ("construct", "own", "base")
    found = [
        entry("brn", "incorrect: write dropped at every call", ["assign_op"], ["jit_bytecode"],
              cells(6), rule),
        entry("clip", "incorrect: write dropped at every call", ["assign"], ["jit_bytecode"],
              cells(2)),
    ]  # fmt: skip
    found[0].example.update(strategy="assign_op", mode="jit_bytecode")
    found[0].pair = ("assign_op", "jit_bytecode", "own", "base")
    run = SimpleNamespace(
        manifest=SimpleNamespace(run_id="R1"), environment={"mindspore": "2.10.0"}
    )
    links = {"brn": {("assign_op", "inline", "jit_bytecode"): "repros/x.py"}}
    text = causes.to_json(causes.group(found, APIS), {"brn": run}, links)
    data = json.loads(text)
    assert data["schema_version"] == causes.SCHEMA_VERSION and data["runs"] == {"brn": "R1"}
    first, second = causes.from_json(text)
    assert (first["rank"], first["cells"], second["rank"]) == (1, 6, 2)
    assert first["trigger"] == {"construct": ["construct", "base", "own"], "apis": []}
    (e,) = first["entries"]
    assert (e["rule"], e["repro"], e["shapes"]) == (
        "construct=base", "results/brn/repros/x.py", {"jit_bytecode": ["inline"]})  # fmt: skip
    assert e["pair"] == {"strategy": "assign_op", "mode": "jit_bytecode", "working_shape": "own"}
    assert second["entries"][0]["repro"] == ""  # no committed script: none named
    got = known.load_findings(causes.from_json(text), {"jit_bytecode": "bytecode"})
    assert [(f.cause, f.rule, f.outcome) for f in got] == [
        (1, "construct=base", "write dropped at every call"),
        (2, "", "write dropped at every call"),
    ]
    with pytest.raises(ValueError, match="schema_version"):
        causes.from_json(json.dumps({**data, "schema_version": 99}))


def test_a_cause_links_its_short_repro_and_the_releases_it_shows_on(tmp_path):
    found = [
        entry(w, "incorrect: write dropped at every call", [s], ["graph"], cells(n, s, "graph"))
        for w, s, n in (("brn", "assign_op", 9), ("ema", "own", 1))
    ]
    got = causes.group(found, APIS)
    script = tmp_path / "01-x.py"
    script.write_text("print('x')\n")
    short = {
        got[0].slug: {
            "slug": got[0].slug, "script": "results/causes/01-x.py", "lines": 28,
            "releases": {"2.10.0": {"result": "reproduces"}, "2.7.2": {"result": "reproduces"},
                         "2.8.0": {"result": "not on this release"}},
        },
        got[1].slug: {"slug": got[1].slug, "script": "", "why_not": "needs two layers"},
    }  # fmt: skip
    text = causes.lines(got, short=short)
    assert text[0].endswith(
        "; repro: [28 lines](results/causes/01-x.py), reproduces on 2.7.2, 2.10.0; not on 2.8.0"
    )
    assert "repro" not in text[1]  # no short program: the line says nothing of one
    rows = causes.table(got, short)
    assert rows[2].endswith("| [28 lines](causes/01-x.py), reproduces on 2.7.2, 2.10.0; "
                            "not on 2.8.0 |")  # fmt: skip
    assert rows[3].endswith("| the entries' scripts |")
    head = causes.issue_head(got[1], 2, 2, short[got[1].slug])
    assert "No short repro: needs two layers" in head
    assert causes.reduced(tmp_path) == {}  # not run yet: no program named


def test_causes_whose_slugs_meet_are_numbered():
    """Two causes that differ only past the slug's 80 characters get distinct slugs."""
    apis = ("a" * 70,)
    found = [
        entry("clip", "incorrect: write dropped at every call", [apis[0] + "x"], ["graph"],
              cells(2, apis[0] + "x", "graph")),
        entry("clip", "incorrect: write dropped at every call", [apis[0] + "y"], ["graph"],
              cells(1, apis[0] + "y", "graph")),
    ]  # fmt: skip
    got = causes.group(found, {})
    assert got[0].slug != got[1].slug and got[1].slug.endswith("-2")
    assert got[0].slug == got[1].slug.removesuffix("-2")


ADD = {"add_": "mindspore.Tensor.add_", "copy_": "mindspore.Tensor.copy_"}


def _add_entry(workload="brn"):
    """`Tensor.add_` dropping the write in PYNATIVE (every shape) and under jit(ast) (two shapes
    of three): the short program shows the first, not the second."""
    got = [("add_", s, "pynative") for s in ("a", "bb", "ccc")]
    got += [("add_", "bb", "jit_ast"), ("add_", "dddd", "jit_ast")]
    return Entry(workload, "incorrect: write dropped at every call", ["add_"],
                 ["pynative", "jit_ast"], {"pynative": ["a", "bb", "ccc"],
                                           "jit_ast": ["bb", "dddd"]},
                 example={"strategy": "add_", "shape": "a", "mode": "pynative", "detail": "d"},
                 cells=got)  # fmt: skip


def test_a_part_of_an_entry_keeps_its_anchor_and_narrows_the_rest():
    e = _add_entry()
    part = e.only([c for c in e.cells if c[2] == "jit_ast"])
    assert part.modes == ["jit_ast"] and part.shapes == {"jit_ast": ["bb", "dddd"]}
    assert part.slug == e.slug  # the findings page shows the entry whole, under its anchor
    assert (part.example["shape"], part.example["mode"]) == ("bb", "jit_ast")  # the shortest
    assert part.example["detail"] == "d"  # the rest of the row is kept
    assert len(part.cells) == 2 and e.only(e.cells[:3]).example == e.example


def test_a_split_cause_is_two_causes_and_the_narrow_one_says_so():
    whole = causes.group([_add_entry("brn"), _add_entry("clip")], ADD)
    assert len(whole) == 1 and whole[0].cells == 10
    split = causes.Split(causes.Trigger(apis=("mindspore.Tensor.add_",)), "write dropped",
                         "at every call", frozenset({("add_", "jit_ast")}))  # fmt: skip
    got = causes.group([_add_entry("brn"), _add_entry("clip")], ADD, [split])
    assert [(c.narrow, c.modes, c.cells) for c in got] == [
        (False, ["pynative"], 6),
        (True, ["jit_ast"], 4),
    ]
    assert got[1].title == (
        'jit(capture_mode="ast"): `Tensor.add_`, in some code shapes only — write dropped at '
        "every call"
    )
    assert got[0].slug != got[1].slug and got[1].witness.slug == _add_entry("brn").slug
    other = causes.Split(split.trigger, "stale read", "at every call", split.missed)
    assert len(causes.group([_add_entry()], ADD, [other])) == 1  # another cause's split


def test_a_split_survives_its_round_trip_and_a_cause_wholly_missed_is_all_narrow():
    missed = frozenset({("add_", "jit_ast"), ("add_", "pynative")})
    trigger = causes.Trigger(apis=("mindspore.Tensor.add_",))
    split = causes.Split(trigger, "write dropped", "at every call", missed)
    assert causes.Split.from_dict(split.to_dict()) == split
    ((part, narrow),) = causes.parts(_add_entry(), ADD, [split])
    assert narrow and part.cells == _add_entry().cells


def test_a_repro_says_the_releases_it_reproduces_on_and_what_it_does_on_the_others():
    """Hand-made runs per release: the page names where the short program reproduces, and for the
    others what it showed there (2.7.2 drops the write where later releases follow the old values
    after a reload), one clause per different outcome, in release order."""
    said = {0: "reproduces", None: "did not end"}
    run = lambda code, printed: {  # noqa: E731
        "code": code,
        "result": said.get(code, "not on this release"),
        "printed": printed,
    }
    r = {
        "script": "results/causes/39-x.py",
        "lines": 27,
        "releases": {
            "2.10.0": run(0, "REPRODUCED: follows the old values after a reload at call 5"),
            "2.9.0": run(1, "NOT REPRODUCED:  write dropped\nat call 1"),
            "2.7.2": run(1, "NOT REPRODUCED: write dropped at call 1"),
            "2.8.0": run(None, ""),
        },
    }
    assert causes.repro_words(r, "../") == (
        "[27 lines](../causes/39-x.py), reproduces on 2.10.0; "
        "not on 2.7.2, 2.9.0 (it shows write dropped at call 1 there); "
        "not on 2.8.0 (it did not end there)"
    )
    r["releases"] = {"2.10.0": run(0, ""), "2.7.2": run(2, "Traceback ...")}  # said nothing
    assert causes.repro_words(r) == "[27 lines](causes/39-x.py), reproduces on 2.10.0; not on 2.7.2"
    r["releases"]["2.8.0"] = run(1, "NOT REPRODUCED: works")
    assert causes.repro_words(r).endswith("; not on 2.8.0 (it works there)")
    assert causes.repro_words({"script": "", "releases": {}}) == ""


def test_causes_one_program_shows_are_one_cause_naming_every_trigger():
    """A ``Merge`` (causes whose short programs are one program) joins its causes into the one of
    most cells; the title names each working value; a split's narrow part is never merged."""
    helper_depend, helper_inline = ("write", "depend", "helper"), ("write", "inline", "helper")
    found = [
        entry("brn", "incorrect: write dropped at every call", ["add_"], ["graph"],
              cells(6, "add_", "graph"), helper_depend),
        entry("brn", "incorrect: write dropped at every call", ["copy_"], ["jit_ast"],
              cells(4, "copy_", "jit_ast"), helper_inline),
        entry("clip", "incorrect: write dropped at every call", ["assign"], ["graph"],
              cells(2, "assign", "graph")),
    ]  # fmt: skip
    apart = causes.group(found, APIS)
    assert len(apart) == 3
    keys = frozenset((c.trigger, c.outcome, c.calls) for c in apart[:2])
    merge = causes.Merge(keys)
    assert causes.Merge.from_dict(merge.to_dict()) == merge  # as reduced.json keeps it
    got = causes.group(found, APIS, merges=[merge])
    assert [c.cells for c in got] == [10, 2]
    assert got[0].trigger.construct == ("write", "helper", "depend")  # the one of most cells
    assert "`write=helper` (works with `write=depend`, `write=inline`)" in got[0].title
    assert got[0].merged == {(apart[1].trigger, "write dropped", "at every call")}
    assert got[0].modes == ["graph", "jit_ast"] and got[0].strategies == ["add_", "copy_"]
    record = causes.records(got)[0]
    assert record["merged"][0]["trigger"]["construct"] == ["write", "helper", "inline"]
    # a merge of causes not found (or of one alone) changes nothing
    assert len(causes.group(found, APIS, merges=[causes.Merge(frozenset(list(keys)[:1]))])) == 3
    # triggers of different kinds: each one's words in turn
    both = causes.merged_words([apart[0].trigger, apart[2].trigger])
    assert both == "`write=helper` (works with `write=depend`); `ops.assign`"
