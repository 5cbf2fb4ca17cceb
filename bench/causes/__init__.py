"""Root causes: the findings of every workload bucketed by the MindSpore behaviour they show, a
short repro for each, run on every release, and the issues a maintainer files."""
