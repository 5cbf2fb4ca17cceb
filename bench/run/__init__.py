"""How it is run: plan, conformance gate, worker processes, timing, supervision, progress."""
