"""Micro-benchmarks of the ways to update a MindSpore Parameter, per execution mode."""
