"""filter.decide on hand-made facts: each step of the one decision, alone."""

from dataclasses import dataclass, field
from typing import NamedTuple

from filter.decide import (
    BY_ACROSS_KINDS,
    BY_COVERAGE,
    BY_MATCH,
    BY_PASTE,
    BY_RESTATEMENT,
    EVIDENCE,
    EXCLUDED,
    REDACTED,
    Facts,
    decide,
)
from filter.redaction import CUT_MARKER

WORDS = [f"word{n}" for n in range(400)]


class Found(NamedTuple):
    kind: str
    overlap: float
    shared: int
    spans: list
    artifact: tuple = ("skill", "a", "0" * 64)

    @property
    def passage_shared(self):
        """As shared for one passage: its share of the record's words, split over them."""
        return [self.shared // len(self.spans)] * len(self.spans)


@dataclass
class Book:
    thresholds: dict = field(default_factory=dict)
    on_derived: dict = field(default_factory=dict)
    paste: int = 50

    def threshold_for(self, kind):
        return self.thresholds.get(kind, 0.8)

    def min_shared_for(self, kind):
        return 20

    def redacts(self, kind):
        return self.on_derived.get(kind, "redact") == "redact"

    def paste_words_for(self, kind):
        return self.paste


def text_and_span(first: int, last: int) -> tuple[str, tuple[int, int]]:
    """Four hundred words, and the character span of words first..last-1."""
    text = " ".join(WORDS)
    start = sum(len(w) + 1 for w in WORDS[:first])
    end = start + len(" ".join(WORDS[first:last]))
    return text, (start, end)


def test_a_match_over_its_threshold_decides_and_every_passage_is_cut():
    text, deciding = text_and_span(0, 100)
    _, near = text_and_span(200, 215)  # a near miss of another kind, under its threshold
    facts = Facts(
        text=text,
        matches=[Found("skill", 0.9, 90, [deciding]), Found("reference", 0.3, 12, [near])],
    )
    decision = decide(facts, Book())
    assert (decision.status, decision.derived, decision.reason) == (REDACTED, True, BY_MATCH)
    assert decision.kind == "skill" and decision.value == 0.9 and decision.threshold == 0.8
    assert "word50 " not in decision.evidence_text and "word205 " not in decision.evidence_text
    assert (
        "word300" in decision.evidence_text and CUT_MARKER.split("{")[0] in decision.evidence_text
    )


def test_a_kind_that_excludes_excludes_whole():
    text, span = text_and_span(0, 100)
    facts = Facts(text=text, matches=[Found("skill", 0.9, 90, [span])])
    decision = decide(facts, Book(on_derived={"skill": "exclude"}))
    assert (decision.status, decision.cuts, decision.evidence_text) == (EXCLUDED, (), "")


def test_too_few_words_left_or_a_remainder_that_copies_excludes_whole():
    text, span = text_and_span(0, 390)
    facts = Facts(text=text, matches=[Found("skill", 0.97, 380, [span])])
    assert decide(facts, Book()).status == EXCLUDED  # ten words left
    text, span = text_and_span(0, 100)
    copying = Facts(text=text, matches=[Found("skill", 0.9, 90, [span])], remainder_copies=True)
    assert decide(copying, Book()).status == EXCLUDED


def test_a_pasted_passage_under_the_threshold_is_cut_where_the_kind_redacts():
    text, span = text_and_span(100, 160)  # sixty words: a paragraph, 56 shingles
    facts = Facts(text=text, matches=[Found("reference", 0.15, 55, [span])])
    template = Facts(text=text, matches=[Found("reference", 0.15, 25, [span])])
    assert decide(template, Book()).status == EVIDENCE  # lines up, but mostly not shared
    decision = decide(facts, Book())
    assert (decision.status, decision.derived, decision.reason) == (REDACTED, True, BY_PASTE)
    assert decision.value == 60 and decision.threshold == 50
    assert decide(facts, Book(on_derived={"reference": "exclude"})).status == EVIDENCE
    assert decide(facts, Book(thresholds={"reference": 1.0})).status == EVIDENCE  # kind off
    assert decide(facts, Book(paste=61)).status == EVIDENCE


def test_a_quoted_sentence_is_no_pasted_passage():
    text, span = text_and_span(100, 118)
    facts = Facts(text=text, matches=[Found("skill", 0.25, 14, [span])])
    assert decide(facts, Book()) == decide(Facts(text=text), Book())


def test_coverage_of_one_kind_and_across_kinds_decide_with_their_reasons():
    text, one = text_and_span(0, 150)
    _, two = text_and_span(150, 300)
    stitched = Facts(
        text=text,
        matches=[Found("skill", 0.4, 140, [one]), Found("skill", 0.4, 140, [two])],
        coverage={"skill": {"coverage": 0.85, "artifacts": 2, "shared": 280}},
    )
    assert decide(stitched, Book()).reason == BY_COVERAGE
    across = Facts(
        text=text,
        matches=[Found("skill", 0.4, 140, [one]), Found("reference", 0.45, 140, [two])],
        coverage={
            "skill": {"coverage": 0.4, "artifacts": 1, "shared": 140},
            "reference": {"coverage": 0.45, "artifacts": 1, "shared": 140},
        },
        mixed={
            "coverage": 0.85,
            "n_kinds": 2,
            "shared": 280,
            "kinds": {"skill": 1, "reference": 1},
        },
    )
    decision = decide(across, Book(paste=1000))
    assert (decision.reason, decision.kind, sorted(decision.decided)) == (
        BY_ACROSS_KINDS,
        "reference",
        ["reference", "skill"],
    )
    assert decide(across, Book(thresholds={"reference": 0.9}, paste=1000)).status == EVIDENCE


def test_a_restatement_is_excluded_until_its_threshold_is_one():
    facts = Facts(text="the summary", restatement="compact-summary")
    assert decide(facts, Book()).reason == BY_RESTATEMENT
    assert decide(facts, Book(thresholds={"compact-summary": 1.0})).status == EVIDENCE


def test_evidence_is_a_fixed_point_of_the_decision():
    """What a redaction leaves, decided again with what a check of it finds (nothing), is
    evidence with nothing to cut."""
    text, span = text_and_span(0, 100)
    decision = decide(Facts(text=text, matches=[Found("skill", 0.9, 90, [span])]), Book())
    again = decide(Facts(text=decision.evidence_text), Book())
    assert (again.status, again.cuts) == (EVIDENCE, ())
