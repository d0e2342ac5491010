"""A filter's artifact table (filter/artifact_table.py): shared with its copies, and each copy
keeps the rows it was made with whatever is appended to the others."""

from filter import ArtifactRecord, DerivedFilter
from tests.texts import SKILL_NAMES, skill


def _artifact(name: str) -> ArtifactRecord:
    return ArtifactRecord.from_text(kind="skill", name=name, text=skill(name))


def test_a_copy_keeps_its_rows_while_the_original_and_the_copy_both_grow():
    first, second, third = (_artifact(n) for n in SKILL_NAMES[:3])
    original = DerivedFilter()
    original.add(first)
    copy = original.copy()
    copy.add(second)  # the longest of the family: appended in place
    original.add(third)  # no longer the longest: detached first
    assert [a.name for a in copy.artifacts] == [first.name, second.name]
    assert [a.name for a in original.artifacts] == [first.name, third.name]
    assert list(copy.artifacts.tokens) == [first.n_tokens, second.n_tokens]
    assert list(original.artifacts.tokens) == [first.n_tokens, third.n_tokens]
    # each one decides with its own artifacts
    assert copy.check(skill(second.name)).derived and not original.check(skill(second.name)).derived
    assert original.check(skill(third.name)).derived and not copy.check(skill(third.name)).derived


def test_an_artifact_held_by_a_later_copy_only_is_not_held_by_an_earlier_one():
    first, second = (_artifact(n) for n in SKILL_NAMES[:2])
    original = DerivedFilter()
    original.add(first)
    copy = original.copy()
    copy.add(second)
    assert copy.artifacts.holds(second.key) and not original.artifacts.holds(second.key)
    original.add(second)
    assert len(original) == 2 and original.artifacts.number_of(second.key) == 1


def test_a_copy_under_another_min_shared_has_its_own_minimums():
    original = DerivedFilter(min_shared=20)
    original.add(_artifact(SKILL_NAMES[0]))
    stricter = original.copy(min_shared=40)
    assert list(stricter.artifacts.min_shared) == [40]
    assert list(original.artifacts.min_shared) == [20]


def test_kinds_are_codes_into_the_names_each_copy_keeps():
    first, second = (_artifact(n) for n in SKILL_NAMES[:2])
    page = ArtifactRecord.from_text(kind="reference", name="page", text=skill(SKILL_NAMES[2]))
    original = DerivedFilter()
    original.add(first)
    copy = original.copy()
    copy.add(page)
    original.add(second)  # detached: its own names from here on
    names = lambda table: [table.kind_names[code] for code in table.kinds]  # noqa: E731
    assert names(copy.artifacts) == ["skill", "reference"]
    assert names(original.artifacts) == ["skill", "skill"]
    assert copy.artifacts.take([1, 0]) == [page, first]
