"""No sentence over 40 words on any page (issue 51): README's own prose, and every committed
Markdown page, generated or written by hand. The sentence splitter is checked on hand-made texts
first, so the page test cannot pass by splitting nothing."""

from __future__ import annotations

import re
import subprocess

import pytest

from bench.core.paths import ROOT

LIMIT = 40


def sentences(text: str) -> list[str]:
    """The sentences of Markdown prose: code blocks, comments and table rows left out; a link
    counts as its text, a code span as one word; a sentence ends at . ! or ? (after any closing
    emphasis or parenthesis) before a capital, and a list item starts one."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    out = []
    for para in re.split(r"\n\s*\n", text):
        lines = [ln.strip() for ln in para.splitlines() if not ln.lstrip().startswith("|")]
        joined = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", " ".join(lines))
        joined = re.sub(r"`[^`]*`", "X", joined)
        parts = re.split(r"(?<=[.!?])[*_)]*\s+(?=[A-Z*_(\[-])|\s*(?:^|\s)- (?=\S)", joined)
        out += [p.strip() for p in parts if p and p.strip()]
    return out


def words(sentence: str) -> int:
    return len(sentence.split())


@pytest.mark.parametrize(
    "text, counts",
    [
        ("One two three. Four five.", [3, 2]),
        ("A `long code span with words` here.", [3]),  # a code span is one word
        ("See [the long link text](x.md) now.", [6]),  # a link is its text
        ("*Emphasised end.* Next one.", [2, 2]),
        ("- item one\n- item two words", [2, 3]),  # a list item is its own sentence
        ("```\ncode is not prose at all\n```\nProse.", [1]),
        ("| a | table | row |\nText here.", [2]),
        ("e.g. lower case after a period stays.", [7]),
    ],
)
def test_the_splitter_counts_words_per_sentence(text, counts):
    assert [words(s) for s in sentences(text)] == counts


def test_a_sentence_over_the_limit_is_found():
    long = " ".join(["Word"] * (LIMIT + 1)) + "."
    assert max(words(s) for s in sentences(f"Short one. {long} Short two.")) == LIMIT + 1


def test_no_sentence_of_readmes_own_prose_is_over_40_words():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    own = re.sub(r"<!-- (\w+):begin.*?<!-- \1:end -->", "", text, flags=re.S)
    long = [(words(s), s[:80]) for s in sentences(own) if words(s) > LIMIT]
    assert not long, long


def pages() -> list[str]:
    """Every committed Markdown page (the repos' copies of a pinned run's report included), not
    the templates' golden renderings (tests/fixtures/: hand-made data that takes every branch,
    some no run has taken)."""
    out = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    out = [p for p in out if not p.startswith("tests/fixtures/")]
    assert "README.md" in out and "results/summary.md" in out  # the listing found the pages
    return out


@pytest.mark.parametrize("page", pages())
def test_no_sentence_on_a_page_is_over_40_words(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    long = [(words(s), s[:80]) for s in sentences(text) if words(s) > LIMIT]
    assert not long, long
