"""Argument helpers shared by every command: one-line errors, comma lists, positive numbers."""

from __future__ import annotations

import argparse
import math


class UsageError(Exception):
    """A bad argument: reported in one line (``<prog>: error: ...``), exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but an error raises UsageError instead of printing the usage dump."""

    def error(self, message):
        raise UsageError(message)


MIN_BUDGET_MINUTES = 1.0  # one round of timing: starting a timing process alone takes ~20 s here


def budget_minutes(text: str) -> float:
    """An argparse type: ``--budget MINUTES``, a number of minutes of at least one round."""
    try:
        minutes = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}") from None
    if not math.isfinite(minutes):
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}")
    if minutes <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 minutes, not {text}")
    if minutes < MIN_BUDGET_MINUTES:
        raise argparse.ArgumentTypeError(
            f"{text} minutes is shorter than one round of timing (starting a timing process "
            f"alone takes about 20 s): at least {MIN_BUDGET_MINUTES:g}"
        )
    return minutes


def comma_list(kind: str, convert=str):
    """An argparse type: ``a,b,c`` -> [convert(a), ...]; empty items are refused."""

    def parse(text: str):
        items = [item.strip() for item in text.split(",")]
        if not text.strip() or any(not item for item in items):
            raise argparse.ArgumentTypeError(f"{kind}: empty item in {text!r}")
        return [convert(item) for item in items]

    return parse


def positive(convert, what: str):
    """An argparse type: ``convert(text)``, which must be > 0."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    return parse


positive_int = positive(int, "a whole number")
positive_float = positive(float, "a number")


def choose(kind: str, asked, valid) -> list:
    """``asked`` (None = all of ``valid``), checked against ``valid``, duplicates dropped."""
    if asked is None:
        return list(valid)
    unknown = [a for a in asked if a not in valid]
    if unknown:
        raise UsageError(
            f"unknown {kind} {', '.join(map(repr, unknown))} (valid: {', '.join(valid)})"
        )
    return list(dict.fromkeys(asked))
