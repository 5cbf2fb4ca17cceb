"""What is measured: workloads (what the cell computes), strategy files (which API writes the
state), code shapes (how the write is placed in ``construct``) and execution modes."""
