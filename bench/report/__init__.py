"""How it is reported: raw files -> tidy frames -> summary.md, results.csv, plots, comparisons."""
