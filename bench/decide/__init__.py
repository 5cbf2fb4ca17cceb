"""How it is decided: a run folder -> verdicts, comparisons and the answer per kind of state ×
mode, as data (no words: ``bench.report`` renders them)."""
