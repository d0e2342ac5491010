"""The last misses (issue 13): shapes of copy the matcher let through, and the guards they must
not breach.

- a 100-140-word slice of a long artifact, all copied text; of an artifact kept in many
  versions, whose every shingle is then boilerplate;
- a copy with about one word in ten substituted, inserted or deleted, at random places, so
  that edits cluster;
- a record pasted from large slices of two artifacts, neither of them enough alone (of two
  kinds: tests/filter/test_pasted_across_kinds.py).

None of it may cost a false positive: a mention, a one-sentence quote, a few short quotes in a
discussion, independent docs on the same topic and an unregistered page of a registered
collection all stay evidence, with boilerplate in the index as much as without.
"""

from difflib import SequenceMatcher

import pytest

from filter import ArtifactRecord, DerivedFilter
from tests import renderings
from tests.texts import (
    COLLECTION_PAGES,
    REFERENCE_NAMES,
    SKILL_NAMES,
    collection_page,
    reference,
    skill,
    turn,
)

GUIDE = "django-deployment-guide"
VERSIONS = 20


def filter_of(*artifacts: ArtifactRecord) -> DerivedFilter:
    # (boilerplate past 16 postings: the crowded index's versions are boilerplate to it)
    derived_filter = DerivedFilter(boilerplate_run=16)
    for artifact in artifacts:
        derived_filter.add(artifact)
    return derived_filter


def versions(kind: str, name: str, text: str, count: int) -> list[ArtifactRecord]:
    """`count` versions of one artifact, each a new row as a re-emitted skill makes: the same
    text with a line of its own at the end."""
    return [
        ArtifactRecord.from_text(
            kind=kind,
            name=f"{name}@{number}",
            text=f"{text}\nRevised for release 1.{number}: wording of the steps checked.\n",
        )
        for number in range(1, count + 1)
    ]


def registered() -> list[ArtifactRecord]:
    skills = [ArtifactRecord.from_text(kind="skill", name=n, text=skill(n)) for n in SKILL_NAMES]
    guide = ArtifactRecord.from_text(kind="reference", name=GUIDE, text=reference(GUIDE))
    return [*skills, guide]


@pytest.fixture(scope="module")
def plain_filter() -> DerivedFilter:
    """The skills and the deployment guide, one version each."""
    return filter_of(*registered())


@pytest.fixture(scope="module")
def crowded_filter() -> DerivedFilter:
    """The same, with the guide and one skill in twenty versions, and three pages of a docs
    collection in six versions each: everything they hold is boilerplate to the index (in
    more than 16 artifacts), the collection's shared sections included."""
    pages = [
        artifact
        for page in COLLECTION_PAGES[:3]
        for artifact in versions("reference", page, collection_page(page), 6)
    ]
    return filter_of(
        *registered(),
        *versions("reference", GUIDE, reference(GUIDE), VERSIONS),
        *versions("skill", "git-commit-message", skill("git-commit-message"), VERSIONS),
        *pages,
    )


@pytest.fixture(params=["plain", "crowded"])
def derived_filter(request, plain_filter, crowded_filter) -> DerivedFilter:
    return plain_filter if request.param == "plain" else crowded_filter


# -- slices of a long artifact ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_slice_of_100_to_140_words_of_a_long_artifact_is_excluded(derived_filter, seed):
    words = 100 + seed * 40 // 11
    record = renderings.word_slice(reference(GUIDE), words=words, seed=seed)

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name.split("@")[0] == GUIDE
    assert verdict.best.record_containment > 0.9


@pytest.mark.parametrize("seed", range(4))
def test_slice_of_a_collection_page_kept_in_many_versions_is_excluded(crowded_filter, seed):
    # from the page's own sections, after the ones every page shares
    own = collection_page("backup").split("Security problems go to")[1]
    record = renderings.word_slice(own, words=110, seed=seed)

    verdict = crowded_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name.startswith("backup@")


def test_verbatim_copy_of_a_skill_kept_in_twenty_versions_is_excluded(crowded_filter):
    verdict = crowded_filter.check(skill("git-commit-message"))

    assert verdict.derived
    assert verdict.best.artifact.name.split("@")[0] == "git-commit-message"
    assert verdict.best.overlap > 0.95


# -- copies edited at random ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_copy_with_about_one_word_in_ten_edited_at_random_is_excluded(derived_filter, name, seed):
    copy = renderings.edit_words_at_random(skill(name), rate=0.1, seed=seed)
    # about a word in ten differs
    assert SequenceMatcher(None, copy.split(), skill(name).split()).ratio() < 0.97

    verdict = derived_filter.check(copy)

    assert verdict.derived
    assert verdict.best.artifact.name.split("@")[0] == name


@pytest.mark.parametrize("seed", range(4))
def test_long_reference_edited_at_random_is_excluded(derived_filter, seed):
    copy = renderings.edit_words_at_random(reference(GUIDE), rate=0.1, seed=seed)

    verdict = derived_filter.check(copy)

    assert verdict.derived
    assert verdict.best.artifact.name.split("@")[0] == GUIDE


# -- pasted from two artifacts ----------------------------------------------------------------


def share_of(text: str, share: float, *, seed: int) -> str:
    return renderings.word_slice(text, words=int(len(text.split()) * share), seed=seed)


PAIRS = [
    ("git-commit-message", "flaky-test-triage"),
    ("pull-request-review", "django-test-suite"),
    ("flaky-test-triage", "pull-request-review"),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_record_pasted_from_large_slices_of_two_skills_is_excluded(
    derived_filter, first, second, seed
):
    # About 60% of each skill, each about half the record: no match is enough alone.
    record = (
        share_of(skill(first), 0.6 + seed / 20, seed=seed)
        + "\n\n"
        + share_of(skill(second), 0.65 - seed / 20, seed=seed + 1)
    )

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert {first, second} <= {match.artifact.name.split("@")[0] for match in verdict.matches}
    assert verdict.coverage["skill"] > 0.9


# -- the guards -------------------------------------------------------------------------------


def test_a_mention_stays_evidence(derived_filter):
    assert not derived_filter.check(turn("mention-by-name")).derived


def test_a_quote_of_one_sentence_stays_evidence(derived_filter):
    assert not derived_filter.check(turn("discussion-quoting-one-sentence")).derived


def test_three_short_quotes_in_300_words_of_discussion_stay_evidence(derived_filter):
    discussion = turn("review-quoting-three-lines")
    assert 250 <= len(discussion.split()) <= 350

    verdict = derived_filter.check(discussion)

    assert not verdict.derived
    assert all(match.overlap < 0.5 for match in verdict.matches)


@pytest.mark.parametrize("name", [n for n in REFERENCE_NAMES if n != GUIDE])
def test_docs_on_the_same_topic_by_other_authors_stay_evidence(derived_filter, name):
    # ledgerly's and tessera's testing pages and the django-test-suite skill share a topic.
    assert not derived_filter.check(reference(name)).derived


def test_an_unregistered_page_of_a_registered_collection_stays_evidence(crowded_filter):
    verdict = crowded_filter.check(collection_page("troubleshooting"))

    assert not verdict.derived
    # It shares the collection's sections with every registered page, and nothing else.
    assert verdict.matches
    assert all(match.overlap < 0.5 for match in verdict.matches)
    assert max(verdict.coverage.values()) < 0.5


def test_the_shared_sections_of_a_collection_alone_are_a_copy_of_them(crowded_filter):
    """The other side of the guard: a record that is nothing but the sections every page
    shares is made of registered text, however many artifacts hold it."""
    shared = collection_page("install").split("## Packages")[0]

    assert crowded_filter.check(shared).derived
