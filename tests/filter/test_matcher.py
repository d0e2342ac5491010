"""Verdicts (filter/matcher.py): matches best first, coverage per kind, min_shared, batches.

No database. The texts are the acceptance suite's (tests/texts/), so a unit that breaks here
shows up on the same words as the card's tests (docs/card.md).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filter import ArtifactRecord, DerivedFilter, tokenise
from tests import renderings
from tests.texts import REFERENCE_NAMES, SKILL_NAMES, reference, skill, turn


def test_matches_come_best_first():
    django = skill("django-test-suite")
    head, before, steps, failure, pitfalls = renderings.sections(django)
    derived_filter = DerivedFilter()
    for name, text in [
        ("two-sections", "\n".join([before, failure, turn("unrelated-asyncio")])),
        ("whole", django),
        ("mixed", "\n".join([head, before, steps]) + "\n" + skill("git-commit-message")[1500:]),
    ]:
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=name, text=text))

    verdict = derived_filter.check(django)

    assert [match.artifact.name for match in verdict.matches] == ["whole", "mixed", "two-sections"]
    overlaps = [match.overlap for match in verdict.matches]
    assert overlaps == sorted(overlaps, reverse=True)
    assert overlaps[0] == 1.0 > overlaps[1] > overlaps[2]
    assert verdict.best is verdict.matches[0]
    assert verdict.decided_by is verdict.best
    assert verdict.n_tokens == len(tokenise(django).words)


def test_coverage_is_per_kind():
    derived_filter = DerivedFilter()
    derived_filter.add(
        ArtifactRecord.from_text(kind="skill", name="s", text=skill("git-commit-message"))
    )
    guide = reference("django-deployment-guide")
    derived_filter.add(ArtifactRecord.from_text(kind="reference", name="r", text=guide))
    commit_sections = renderings.sections(skill("git-commit-message"))
    guide_sections = renderings.sections(guide)
    # Half skill, half reference: neither kind makes up enough of the record on its own...
    record = "\n".join(commit_sections[:3] + guide_sections[3:5])

    verdict = derived_filter.check(record)

    assert set(verdict.coverage) == {"skill", "reference"}
    assert 0.3 < verdict.coverage["skill"] < 0.7
    assert 0.3 < verdict.coverage["reference"] < 0.7
    # ... and together they are all of it: the coverage across kinds decides.
    assert verdict.mixed.kinds == ("reference", "skill")
    assert verdict.mixed.coverage > 0.95
    assert verdict.derived
    assert verdict.decided_by is verdict.mixed


def test_min_shared_keeps_a_short_verbatim_phrase_from_being_a_copy():
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text=skill("django-test-suite"))
    phrase = "Keep the test database between runs with `--keepdb`."
    strict, lenient, per_kind = (
        DerivedFilter(),
        DerivedFilter(min_shared=3),
        DerivedFilter(min_shared={"skill": 3, "reference": 50}),
    )
    for derived_filter in (strict, lenient, per_kind):
        derived_filter.add(artifact)

    # Below min_shared nothing counts: not even a near miss is reported.
    assert strict.check(phrase).matches == []
    assert not strict.check(phrase).derived
    assert lenient.check(phrase).best.record_containment == 1.0
    assert lenient.check(phrase).derived
    assert per_kind.check(phrase).derived


def test_check_many_gives_each_text_the_verdict_check_gives_it():
    skills = [ArtifactRecord.from_text(kind="skill", name=n, text=skill(n)) for n in SKILL_NAMES]
    derived_filter = DerivedFilter()
    for artifact in skills:
        derived_filter.add(artifact)
    texts = [
        skill(SKILL_NAMES[0]),
        "",
        "too few words",
        "Here is the skill again:\n\n" + skill(SKILL_NAMES[1]) + "\n\nDoes that help?",
        skill(SKILL_NAMES[2])[: len(skill(SKILL_NAMES[2])) // 3],
        "An unrelated turn about the weather and a walk by the river in the afternoon.",
    ]

    def summary(verdict):
        matches = [(m.artifact.name, m.overlap, m.shared) for m in verdict.matches]
        return verdict.derived, matches, verdict.coverage, verdict.n_tokens

    assert [summary(v) for v in derived_filter.check_many(texts)] == [
        summary(derived_filter.check(text)) for text in texts
    ]


def test_check_gives_what_check_many_gives_with_boilerplate_in_the_index():
    """check() takes check_many's steps for one text apart (the API's path): the same verdict
    for a copy of boilerplate alone (an artifact in twenty versions), for records with some
    boilerplate beside a copy, and for one with a little of it in a discussion."""
    git, django = skill("git-commit-message"), skill("django-test-suite")
    derived_filter = DerivedFilter(boilerplate_run=16)
    for number in range(20):
        text = f"{git}\nRevised for release 1.{number}.\n"
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=f"git@{number}", text=text))
    for name in SKILL_NAMES[2:] + ("django-test-suite",):
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=name, text=skill(name)))
    # (which shingles are boilerplate goes by directory slot: a copy of flaky-test-triage has a
    # few, left out of choosing candidates but counted once it is one)
    texts = [
        git,
        git[: len(git) // 4] + "\n\n" + django,
        skill("flaky-test-triage"),
        turn("unrelated-asyncio") + "\n" + git[:300] + "\n" + turn("unrelated-asyncio"),
        turn("unrelated-asyncio"),
        "",
    ]

    def summary(verdict):
        matches = [(m.artifact.name, m.overlap, m.shared, m.alignments) for m in verdict.matches]
        return verdict.derived, matches, verdict.coverage, verdict.decided_by, verdict.n_tokens

    one_at_a_time = [summary(derived_filter.check(text)) for text in texts]
    assert [summary(v) for v in derived_filter.check_many(texts)] == one_at_a_time
    assert [verdict[0] for verdict in one_at_a_time] == [True, True, True, False, False, False]


def _batch_filter() -> DerivedFilter:
    """Skills and references, one skill in twenty-two versions (boilerplate to the index), the
    last two added after a check: the index answers from two segments."""
    git = skill("git-commit-message")
    derived_filter = DerivedFilter(boilerplate_run=16)
    for name in SKILL_NAMES:
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=name, text=skill(name)))
    for name in REFERENCE_NAMES:
        derived_filter.add(
            ArtifactRecord.from_text(kind="reference", name=name, text=reference(name))
        )
    for number in range(22):
        if number == 20:
            derived_filter.prepare()
        text = f"{git}\nRevised for release 1.{number}.\n"
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=f"git@{number}", text=text))
    derived_filter.prepare()
    assert len(derived_filter._index.segments) == 2
    return derived_filter


_BATCH_FILTER = []


def _slices(texts: list[str], max_size: int):
    """Batches of slices of `texts`: each a text, where it starts and how long it is (shares
    of the text)."""
    piece = st.tuples(st.sampled_from(texts), st.floats(0, 1), st.floats(0, 1))
    return st.lists(piece, min_size=1, max_size=max_size)


def _batch(pieces) -> list[str]:
    """The slices, and the first and last together."""
    texts = [
        text[int(a * len(text)) : int(a * len(text)) + int(b * len(text))] for text, a, b in pieces
    ]
    return texts + [texts[0] + "\n\n" + texts[-1]]


@settings(max_examples=30, deadline=None)
@given(
    _slices(
        [skill(n) for n in SKILL_NAMES]
        + [reference(n) for n in REFERENCE_NAMES]
        + [turn("unrelated-asyncio"), turn("unrelated-query-plan"), "", "a few words"],
        max_size=8,
    )
)
def test_a_batch_gives_each_text_the_verdict_check_gives_it(pieces):
    """check_many aligns every record's candidates of a batch at once, the boilerplate's
    entries for them found for the whole batch: each record still gets check()'s verdict,
    whatever the batch holds beside it (copies, parts of copies, boilerplate, nothing)."""
    if not _BATCH_FILTER:
        _BATCH_FILTER.append(_batch_filter())
    derived_filter = _BATCH_FILTER[0]
    texts = _batch(pieces)

    def summary(verdict):
        matches = [
            (m.artifact.name, m.overlap, m.shared, m.alignments, m.exceeds) for m in verdict.matches
        ]
        mixed = verdict.mixed
        return verdict.derived, matches, verdict.coverage, verdict.n_tokens, mixed

    assert [summary(v) for v in derived_filter.check_many(texts)] == [
        summary(derived_filter.check(text)) for text in texts
    ]


def _versions_filter(max_run: int) -> DerivedFilter:
    """Skills and references, a skill in eight versions, and short memories that repeat one
    line several times (a repeated shingle gives one record position several anchors)."""
    git, commit_line = skill("git-commit-message"), "Use the imperative mood in the subject."
    derived_filter = DerivedFilter(boilerplate_run=max_run)
    for name in SKILL_NAMES:
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=name, text=skill(name)))
    for name in REFERENCE_NAMES[:3]:
        derived_filter.add(
            ArtifactRecord.from_text(kind="reference", name=name, text=reference(name))
        )
    for number in range(8):
        text = f"{git[: 400 + 300 * number]}\nRevised for release 1.{number}.\n"
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=f"git@{number}", text=text))
    for number in range(6):
        text = f"Memory {number}: " + " ".join([commit_line] * (2 + number))
        derived_filter.add(ArtifactRecord.from_text(kind="memory", name=f"m{number}", text=text))
    return derived_filter.prepare()


_CUTOFF_FILTERS: dict[int, DerivedFilter] = {}


@settings(max_examples=25, deadline=None)
@given(
    _slices(
        [skill(n) for n in SKILL_NAMES]
        + [reference(n) for n in REFERENCE_NAMES[:3]]
        + ["Memory: " + " ".join(["Use the imperative mood in the subject."] * 4)]
        + [turn("unrelated-asyncio"), "", "a few words"],
        max_size=6,
    )
)
def test_what_the_index_calls_boilerplate_changes_no_verdict(pieces):
    """Which shingles the index leaves out of choosing candidates (filter.index's
    boilerplate_run) moves with how many artifacts are registered; a record's
    verdict must not: the same matches, passages and decision under every cutoff, from
    check_many, from check and from check_many of one text. (It once did: an artifact sharing a
    record's boilerplate was a candidate only while that boilerplate counted as distinctive.)"""
    for max_run in (0, 1, 3, 8, 10**9):
        if max_run not in _CUTOFF_FILTERS:
            _CUTOFF_FILTERS[max_run] = _versions_filter(max_run)
    texts = _batch(pieces)

    def summary(verdict):
        # (each filter holds artifacts of its own: they are compared by name)
        matches = [(m.artifact.name, m.overlap, m.shared, m.alignments) for m in verdict.matches]
        by = getattr(verdict.decided_by, "artifact", verdict.decided_by)
        return verdict.derived, matches, verdict.coverage, getattr(by, "name", by), verdict.mixed

    unbounded = [summary(v) for v in _CUTOFF_FILTERS[10**9].check_many(texts)]
    for max_run, derived_filter in _CUTOFF_FILTERS.items():
        assert [summary(v) for v in derived_filter.check_many(texts)] == unbounded, max_run
        assert [summary(derived_filter.check(text)) for text in texts] == unbounded, max_run
    # a batch of one is measured apart (filter.measure.verdict_of_one), as check() is
    one_filter = _CUTOFF_FILTERS[3]
    assert [summary(one_filter.check_many([text])[0]) for text in texts] == unbounded


@pytest.mark.parametrize("value", [-1, 2.5, "16", True])
def test_a_boilerplate_run_that_is_no_whole_number_from_0_up_is_refused_by_name(value):
    with pytest.raises(ValueError, match="boilerplate_run must be a whole number from 0 up"):
        DerivedFilter(boilerplate_run=value)
