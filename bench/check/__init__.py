"""Check a user's own Cell in every mode against its eager run, step by step.

``python -m bench.check PATH.py:CellName`` (``nox -s check -- PATH.py:CellName``): the file
defines the Cell, ``make_cell()`` and ``make_inputs(step)``. The Cell runs in PYNATIVE_MODE (the
eager reference, also in float64 where it allows), GRAPH_MODE, ``jit(capture_mode="ast")`` and
``jit(capture_mode="bytecode")``, each in forked children of a warm parent, twice, and once with
a second instance built after the first ran. Every step's outputs and Parameters are judged
against what eager MindSpore computes from the state the cell really had (``diff``), named with
the suite's kinds (``kinds``), matched to the suite's findings and answer (``known``), and written
as ``report.md`` / ``report.json`` (``report``) with a standalone repro (``repro``), optionally
shrunk (``shrink``).

Modules: ``target`` (load and validate the user file), ``runs`` (a mode in an isolated
process), ``diff`` (tolerances and per-step judgement, pure), ``kinds`` (vocabulary and the
verdict of a mode, pure), ``known`` (constructs, findings, answers), ``report``, ``repro``,
``shrink``, ``cli``.
"""
