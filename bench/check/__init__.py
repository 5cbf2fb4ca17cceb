"""Check a user's own Cell in every mode against its eager run, step by step.

``python -m bench.check PATH.py:CellName`` (``nox -s check -- PATH.py:CellName``): the file defines
the Cell, ``make_cell()`` and ``make_inputs(step)`` (or ``--inputs SHAPE:DTYPE``). The Cell runs in
PYNATIVE_MODE (the eager reference, also in float64 where it allows), GRAPH_MODE,
``jit(capture_mode="ast")`` and ``jit(capture_mode="bytecode")``, each in children of a warm parent
(forked, or spawned: ``bench.core.procs``), twice, and once with a second instance built after the
first ran. Every step's outputs and Parameters are judged against what eager MindSpore computes
from the state the cell really had (``diff``), named with the suite's kinds (``kinds``), matched to
the suite's findings (``known``) and to its answer for the kind of state the Cell writes
(``answers``), and written as ``report.md`` / ``report.json`` (``report``) with a short standalone
repro (``repro``), optionally shrunk (``shrink``). Exit codes: 0 agrees, 1 diverges, 2 bad input,
3 the check failed, 130 interrupted (``cli``).

Modules: ``target`` (load and validate the user file), ``runs`` (a mode in an isolated process),
``diff`` (tolerances and per-step judgement, pure), ``kinds`` (vocabulary and the verdict of a
mode, pure), ``known`` (constructs, write calls from the strategy files, findings), ``answers``
(kind of state, the suite's answer), ``report``, ``repro``, ``shrink``, ``cli``; ``bad_inputs``
(every bad input tried, and its committed list) and ``variants`` (the suite's own variants fed to
the check: detected / total, false alarms).
"""
