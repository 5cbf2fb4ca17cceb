"""Shared plumbing: paths, atomic files, argument helpers, the result model, statistics."""
