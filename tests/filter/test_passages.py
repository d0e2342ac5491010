"""Passages (filter/passages.py): the spans a record and an artifact share, in both texts.

No database. The texts are the acceptance suite's (tests/texts/), so a unit that breaks here
shows up on the same words as the card's tests (docs/card.md).
"""

from filter import ArtifactRecord, match_passages, tokenise
from tests import renderings
from tests.factories import manifest_line, normalised
from tests.texts import skill, turn

STEPS_SENTENCE = (
    "Keep the test database between runs with `--keepdb` (Django) or `--reuse-db` "
    "(pytest-django) so that migrations are not replayed every time"
)
FAILURE_SENTENCE = (
    "A test that passes alone but fails in the full run depends on state another test left "
    "behind: the cache, a module-level variable, a file on disk or the current time"
)


def test_passage_span_is_exactly_the_copied_text_in_both_texts():
    artifact_text = skill("django-test-suite")
    record = (
        "I checked the skill, and this is the step that mattered for us: "
        + STEPS_SENTENCE
        + ". We had been rebuilding the schema on every run."
    )

    (passage,) = match_passages(record, artifact_text)

    start, end = passage.record_span
    assert record[start:end] == STEPS_SENTENCE
    artifact_start, artifact_end = passage.artifact_span
    assert artifact_text[artifact_start:artifact_end] == STEPS_SENTENCE
    assert passage.number == 1
    assert 0 < passage.shared <= len(tokenise(STEPS_SENTENCE).words) - 4


def test_passages_are_numbered_in_record_order_with_spans_in_each_text():
    artifact_text = skill("django-test-suite")
    # Copied in the other order from the skill's: two passages, never one.
    record = (
        f"First this: {FAILURE_SENTENCE}. "
        + turn("unrelated-asyncio")
        + f"\n\nAnd earlier in the skill: {STEPS_SENTENCE}."
    )

    passages = match_passages(record, artifact_text)

    assert [passage.number for passage in passages] == [1, 2]
    assert [record[slice(*passage.record_span)] for passage in passages] == [
        FAILURE_SENTENCE,
        STEPS_SENTENCE,
    ]
    assert [artifact_text[slice(*passage.artifact_span)] for passage in passages] == [
        FAILURE_SENTENCE,
        STEPS_SENTENCE,
    ]
    assert passages[0].artifact_span[0] > passages[1].artifact_span[0]


def test_passage_spans_of_a_rerendered_copy_point_into_the_record_as_written():
    artifact_text = skill("flaky-test-triage")
    record = "Here is the file:\n" + renderings.read_tool_gutter(
        renderings.crlf(renderings.fullwidth_letters(artifact_text))
    )

    (passage,) = match_passages(record, artifact_text)

    start, end = passage.record_span
    assert tokenise(record[start:end]).words == tokenise(artifact_text).words
    assert normalised(record[start : start + 4]) == "name"
    assert normalised(record[:end]).endswith("nothing")
    assert passage.artifact_span == (
        artifact_text.index("name"),
        artifact_text.rindex("nothing") + 7,
    )


def test_passages_of_an_artifact_known_only_by_its_shingles_have_no_artifact_span():
    full = ArtifactRecord.from_text(kind="skill", name="s", text=skill("django-test-suite"))
    shingles_only = ArtifactRecord.from_json_line(manifest_line(full, text=None))
    record = f"As the skill says: {STEPS_SENTENCE}."

    (passage,) = match_passages(record, shingles_only)

    assert record[slice(*passage.record_span)] == STEPS_SENTENCE
    assert passage.artifact_span is None


def test_artifact_as_text_or_as_record_gives_the_same_passages():
    record = turn("long-session").replace("<<SKILL>>", skill("django-test-suite"))
    as_record = ArtifactRecord.from_text(kind="skill", name="s", text=skill("django-test-suite"))

    assert match_passages(record, skill("django-test-suite")) == match_passages(record, as_record)


def test_no_shared_text_no_passages():
    assert match_passages(turn("unrelated-query-plan"), skill("git-commit-message")) == []
