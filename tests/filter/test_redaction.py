"""filter.redaction: passages widened to whole words and the markup around them, the marker,
the minimum that must be left; on the project's realistic texts."""

import re

import pytest

from filter import ArtifactRecord, DerivedFilter, match_passages, tokenise, words
from filter.redaction import (
    CUT_MARKER,
    MIN_KEPT_WORDS,
    cut_spans,
    evidence_text,
    kept_words,
    passage_spans,
    redaction,
)
from tests.renderings import cat_n_gutter, read_tool_gutter, wrap_in_fences
from tests.texts import SKILL_MARKER, skill, turn

MARKER = re.compile(re.escape(CUT_MARKER).replace(re.escape("{length}"), r"(\d+)"))


def artifact(text: str) -> ArtifactRecord:
    return ArtifactRecord.from_text(kind="skill", name="s", text=text)


def redact(record: str, *artifact_texts: str) -> str | None:
    """The evidence text of `record` cut of every passage it shares with the artifacts (None:
    too little left), as the app cuts a derived record."""
    passages = [
        p.record_span for text in artifact_texts for p in match_passages(record, artifact(text))
    ]
    cuts = redaction(record, passages)
    return None if cuts is None else evidence_text(record, cuts)


def without_markers(text: str) -> str:
    return MARKER.sub(" ", text)


INTRO = (
    "I am pasting the file exactly as the read tool showed it to me, because the reviewer asked "
    "which version of the instructions the agent had loaded when it wrote the bad commit."
)
OUTRO = (
    "As you can see it still says to wrap at seventy-two characters, which is why the body of "
    "the commit looked odd in the web view. I will ask the team to update the wording."
)


def test_the_passages_of_the_matcher_are_character_spans_of_its_tokens():
    record = turn("long-session").replace(SKILL_MARKER, skill("git-commit-message"))
    derived_filter = DerivedFilter()
    derived_filter.add(artifact(skill("git-commit-message")))
    match = derived_filter.check(record).best
    tokens = tokenise(record)
    spans = passage_spans(tokens, [(a.record_start, a.record_end) for a in match.alignments])
    assert spans == [p.record_span for p in match_passages(record, match.artifact)]


def test_a_skill_inside_a_long_turn_leaves_every_word_of_the_turn_and_none_of_the_skill():
    original = turn("long-session")
    record = original.replace(SKILL_MARKER, skill("git-commit-message"))
    evidence = redact(record, skill("git-commit-message"))
    assert words(without_markers(evidence)) == words(original.replace(SKILL_MARKER, ""))
    assert match_passages(evidence, artifact(skill("git-commit-message"))) == []
    assert len(MARKER.findall(evidence)) == 1


def test_the_marker_says_how_much_was_cut_and_nothing_of_what():
    record = f"{INTRO}\n\n{skill('flaky-test-triage')}\n\n{OUTRO}"
    evidence = redact(record, skill("flaky-test-triage"))
    (length,) = MARKER.findall(evidence)
    assert len(evidence) == len(record) - int(length) + len(CUT_MARKER.format(length=length))
    marker_words = set(words(CUT_MARKER.format(length=length)))
    assert not marker_words & set(words(skill("flaky-test-triage"))) - {"characters", "cut"}


@pytest.mark.parametrize("gutter", [read_tool_gutter, cat_n_gutter])
def test_a_skill_behind_a_line_number_gutter_leaves_no_gutter_number_or_skill_word(gutter):
    record = f"{INTRO}\n\n{gutter(skill('git-commit-message'))}\n\n{OUTRO}"
    evidence = redact(record, skill("git-commit-message"))
    assert words(without_markers(evidence)) == words(INTRO) + words(OUTRO)
    assert not re.search(r"\d", without_markers(evidence).replace("seventy-two", ""))


def test_a_fenced_skill_is_cut_with_its_fences():
    record = f"{INTRO}\n\n{wrap_in_fences(skill('pull-request-review'))}\n{OUTRO}"
    evidence = redact(record, skill("pull-request-review"))
    assert "```" not in evidence
    assert evidence.startswith(INTRO + "\n\n[")
    assert evidence.endswith("]\n\n" + OUTRO)


def test_two_halves_of_a_skill_around_a_discussion_keep_the_discussion():
    text = skill("django-test-suite")
    cut = text.index("\n## ", len(text) // 2)
    discussion = (
        "Stop there for a moment. The second half is where the instructions go wrong for our "
        "project, since we never run the suite against SQLite and the fixtures assume it. I "
        "would keep the first half as it is and rewrite the rest with the team tomorrow."
    )
    record = f"{text[:cut]}\n\n{discussion}\n{text[cut:]}"
    evidence = redact(record, text)
    assert words(without_markers(evidence)) == words(discussion)
    assert len(MARKER.findall(evidence)) == 2


def test_a_cut_takes_whole_words_not_the_tokens_of_one():
    record = "see the config_file_name option"
    # a passage that ends inside "config_file_name" (the tokeniser splits on "_")
    start = record.index("the")
    assert cut_spans(record, [(start, record.index("_file"))]) == [(start, record.index(" option"))]


def test_cuts_with_no_word_between_them_are_one_cut():
    record = "one two three.\n\n```\nfour five six\n```\n- seven eight"
    spans = [(0, record.index(".")), (record.index("four"), record.index("six") + 3)]
    assert cut_spans(record, spans) == [(0, record.index("\n- seven"))]


def test_a_record_that_is_all_copy_has_nothing_left_and_is_not_redacted():
    record = f"Here it is:\n\n{skill('git-commit-message')}\n\nThanks."
    assert redact(record, skill("git-commit-message")) is None


def test_the_minimum_left_is_counted_in_words_outside_the_cuts():
    kept = " ".join(f"word{i}" for i in range(MIN_KEPT_WORDS))
    record = f"{kept}\n\n{skill('git-commit-message')}"
    start = record.index("---")
    assert kept_words(record, [(start, len(record))]) == MIN_KEPT_WORDS
    assert redaction(record, [(start, len(record))]) == [(start, len(record))]
    one_fewer = record.split(" ", 1)[1]
    assert redaction(one_fewer, [(start - 6, len(one_fewer))]) is None


def test_evidence_text_of_no_cuts_is_the_text():
    assert evidence_text("unchanged text", []) == "unchanged text"
