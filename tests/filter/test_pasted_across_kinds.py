"""The last of the last misses (issue 13): a record pasted from large slices of two artifacts of
different kinds, a skill and a reference page, each about 60-65% of itself and about half of
the record. No match is enough alone and neither kind's coverage is, so the coverage across
kinds decides (filter.decision.mixed_coverage_exceeds), at the highest threshold of the kinds
involved. And the guards hold across kinds too: quotes of a skill and of a reference in one
discussion, a large quote of each with words of one's own, stay evidence.
"""

import pytest

from filter import ArtifactRecord, DerivedFilter
from tests import renderings
from tests.texts import SKILL_NAMES, reference, skill, turn

CELERY = "celery-task-retries"
GUIDE = "django-deployment-guide"


def registered() -> list[ArtifactRecord]:
    skills = [ArtifactRecord.from_text(kind="skill", name=n, text=skill(n)) for n in SKILL_NAMES]
    references = [
        ArtifactRecord.from_text(kind="reference", name=n, text=reference(n))
        for n in (CELERY, GUIDE)
    ]
    return [*skills, *references]


def filter_of(artifacts, **settings) -> DerivedFilter:
    derived_filter = DerivedFilter(**settings)
    for artifact in artifacts:
        derived_filter.add(artifact)
    return derived_filter


@pytest.fixture(scope="module")
def plain_filter() -> DerivedFilter:
    return filter_of(registered())


@pytest.fixture(scope="module")
def crowded_filter() -> DerivedFilter:
    """The reference page and one skill in twenty versions each: all of their text is
    boilerplate to the index."""

    def versions(kind, name, text):
        return [
            ArtifactRecord.from_text(
                kind=kind, name=f"{name}@{n}", text=f"{text}\nReviewed for release 2.{n}.\n"
            )
            for n in range(1, 21)
        ]

    return filter_of(
        [
            *registered(),
            *versions("reference", CELERY, reference(CELERY)),
            *versions("skill", "flaky-test-triage", skill("flaky-test-triage")),
        ]
    )


@pytest.fixture(params=["plain", "crowded"])
def derived_filter(request, plain_filter, crowded_filter) -> DerivedFilter:
    return plain_filter if request.param == "plain" else crowded_filter


def share_of(text: str, share: float, *, seed: int) -> str:
    return renderings.word_slice(text, words=int(len(text.split()) * share), seed=seed)


def pasted(first: str, second: str, seed: int) -> str:
    """About 60-65% of each text, one after the other, as a user pastes them into a turn."""
    return (
        share_of(first, 0.6 + seed / 40, seed=seed)
        + "\n\n"
        + share_of(second, 0.65 - seed / 40, seed=seed + 1)
    )


def base(name: str) -> str:
    return name.split("@")[0]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_record_pasted_from_large_slices_of_a_skill_and_a_reference_is_excluded(
    derived_filter, name, seed
):
    record = pasted(skill(name), reference(CELERY), seed)

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.decided_by is verdict.mixed
    assert verdict.mixed.kinds == ("reference", "skill")
    assert verdict.mixed.coverage > 0.9
    assert {name, CELERY} <= {base(m.artifact.name) for m in verdict.matches}
    # A true miss of the rules per kind: no match and no kind's coverage is enough alone.
    assert all(not m.exceeds for m in verdict.matches)
    assert all(share < 0.8 for share in verdict.coverage.values())


@pytest.mark.parametrize("seed", range(3))
def test_the_reference_first_and_the_skill_after_is_excluded_as_well(derived_filter, seed):
    verdict = derived_filter.check(pasted(reference(CELERY), skill("git-commit-message"), seed))

    assert verdict.derived and verdict.decided_by is verdict.mixed


@pytest.mark.parametrize("seed", range(3))
def test_record_pasted_from_large_slices_of_two_skills_is_still_decided_by_their_kind(
    derived_filter, seed
):
    # The same shape within one kind: the kind's own coverage decides, as before.
    verdict = derived_filter.check(pasted(skill("git-commit-message"), skill(SKILL_NAMES[0]), seed))

    assert verdict.derived
    assert verdict.decided_by == "skill"
    assert verdict.coverage["skill"] > 0.9


def test_the_threshold_in_force_across_kinds_is_the_highest_of_the_kinds_involved():
    record = (
        "Both pages, for the review this afternoon:\n\n"
        + pasted(skill("pull-request-review"), reference(CELERY), 1)
        + "\n\nThe second one is the part we keep getting wrong in the mailer."
    )
    across = filter_of(registered()).check(record).mixed.coverage
    assert 0.8 < across < 1.0

    # Either kind's threshold at or over the coverage keeps the record evidence ...
    for kind in ("skill", "reference"):
        strict = filter_of(registered(), thresholds={kind: across})
        verdict = strict.check(record)
        assert not verdict.derived, kind
        assert verdict.mixed.threshold == across
    # ... and just under it, it is derived again.
    for kind in ("skill", "reference"):
        verdict = filter_of(registered(), thresholds={kind: across - 1e-9}).check(record)
        assert verdict.derived and verdict.decided_by is verdict.mixed, kind


def test_a_kind_that_is_never_derived_is_never_derived_together_with_another():
    record = pasted(skill("pull-request-review"), reference(CELERY), 1)

    verdict = filter_of(registered(), thresholds={"reference": 1.0}).check(record)

    assert not verdict.derived
    assert verdict.mixed.threshold == 1.0


def test_the_highest_min_shared_of_the_kinds_involved_is_in_force():
    record = pasted(skill("pull-request-review"), reference(CELERY), 1)

    verdict = filter_of(registered(), min_shared={"reference": 30, "skill": 20}).check(record)

    assert verdict.derived
    assert verdict.mixed.min_shared == 30
    # (the rule's comparison with it, on every side of a tie: tests/rules/)


@pytest.mark.parametrize("seed", range(4))
def test_the_reference_edited_one_word_in_ten_is_excluded(derived_filter, seed):
    copy = renderings.edit_words_at_random(reference(CELERY), rate=0.1, seed=seed)

    verdict = derived_filter.check(copy)

    assert verdict.derived
    assert base(verdict.best.artifact.name) == CELERY


@pytest.mark.parametrize("seed", range(4))
def test_a_pasted_record_edited_one_word_in_ten_is_excluded(plain_filter, seed):
    record = pasted(skill("flaky-test-triage"), reference(CELERY), seed)
    edited = renderings.edit_words_at_random(record, rate=0.1, seed=seed)

    assert plain_filter.check(edited).derived


# -- the guards, across kinds -----------------------------------------------------------------


def test_short_quotes_of_a_skill_and_a_reference_in_300_words_stay_evidence(derived_filter):
    discussion = turn("discussion-quoting-a-skill-and-a-reference")
    assert 250 <= len(discussion.split()) <= 350

    verdict = derived_filter.check(discussion)

    assert not verdict.derived
    assert verdict.mixed is None or verdict.mixed.coverage < 0.3


@pytest.mark.parametrize("seed", range(3))
def test_large_quotes_of_two_kinds_with_as_much_of_ones_own_stay_evidence(derived_filter, seed):
    # A third of the skill, a third of the reference, and the discussion around them: the
    # copied passages are about two thirds of the record, under any kind's threshold.
    own = turn("review-discussion")
    record = "\n\n".join(
        [
            share_of(skill("django-test-suite"), 0.35, seed=seed),
            own,
            share_of(reference(CELERY), 0.35, seed=seed + 1),
        ]
    )

    verdict = derived_filter.check(record)

    assert verdict.mixed is not None and verdict.mixed.coverage < 0.8
    assert not verdict.derived


@pytest.mark.parametrize("name", ["ledgerly-running-tests", "tessera-testing"])
def test_docs_on_the_same_topic_by_other_authors_stay_evidence_with_two_kinds_registered(
    derived_filter, name
):
    assert not derived_filter.check(reference(name)).derived
