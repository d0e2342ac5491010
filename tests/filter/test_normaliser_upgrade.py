"""Shingle lists made by an earlier normaliser (filter/shingles.py's READABLE_NORMALISERS):
with text they are made again, without it they are matched as they stand, and any other list
without text is refused."""

from dataclasses import replace

import pytest

from filter import (
    DEFAULT_PARAMS,
    ArtifactRecord,
    DerivedFilter,
    ShingleParams,
    ShinglingMismatch,
    match_passages,
    readable,
)
from tests import renderings
from tests.texts import skill

NORM_V1 = replace(DEFAULT_PARAMS, normaliser="norm-v1")


def shingles_only(name: str, params: ShingleParams) -> ArtifactRecord:
    """The artifact as a manifest line of `params` carries it: shingles, no text. Its text
    has neither fullwidth markup nor "N:" line starts, so norm-v1 made these very shingles."""
    made = ArtifactRecord.from_text(kind="skill", name=name, text=skill(name))
    return replace(made, params=params, text=None)


def test_only_earlier_normalisers_with_the_same_k_and_hash_are_readable():
    assert readable(DEFAULT_PARAMS)
    assert readable(NORM_V1)
    assert not readable(replace(DEFAULT_PARAMS, normaliser="norm-v0"))
    assert not readable(replace(NORM_V1, k=4))
    assert not readable(replace(NORM_V1, hash="xxh3-64-mix-v1"))
    assert not readable(None)


def test_a_norm_v1_artifact_without_text_still_catches_its_copy():
    derived_filter = DerivedFilter()
    added = derived_filter.add(shingles_only("flaky-test-triage", NORM_V1))

    assert added.params == NORM_V1  # kept as made, so it can be reported
    copy = renderings.quote(skill("flaky-test-triage"))
    assert derived_filter.check(copy).derived
    assert derived_filter.check_many([copy])[0].derived
    assert match_passages(copy, added)
    assert not derived_filter.check("The flaky-test-triage skill helped me today.").derived


def test_an_older_artifact_without_text_is_still_refused():
    with pytest.raises(ShinglingMismatch, match="flaky-test-triage"):
        DerivedFilter().add(shingles_only("flaky-test-triage", replace(NORM_V1, normaliser="v0")))


def test_a_norm_v1_artifact_with_text_is_made_again():
    made = ArtifactRecord.from_text(kind="skill", name="s", text=skill("flaky-test-triage"))
    added = DerivedFilter().add(replace(made, params=NORM_V1))

    assert added.params == DEFAULT_PARAMS
