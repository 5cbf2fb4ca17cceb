"""What a strategy file may import of the clip's specification (constants, the update rule)."""

from bench.measured.workloads.clip.spec import (
    INC_STEP,
    INITIAL_LIMIT,
    MAX_LIMIT,
    make_input,
    next_limit,
)

__all__ = ["INC_STEP", "INITIAL_LIMIT", "MAX_LIMIT", "make_input", "next_limit"]
