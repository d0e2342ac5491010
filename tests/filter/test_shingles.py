"""Shingles (filter/shingles.py): one hash per window of k words, and the params behind them.

No database. The texts are the acceptance suite's (tests/texts/), so a unit that breaks here
shows up on the same words as the card's tests (docs/card.md).
"""

import dataclasses
import json

import numpy as np
import pytest

from filter import (
    DEFAULT_PARAMS,
    ArtifactRecord,
    DerivedFilter,
    ShingleParams,
    ShinglingMismatch,
    match_passages,
    tokenise,
)
from tests import renderings
from tests.factories import manifest_line
from tests.texts import SKILL_NAMES, skill


def test_one_shingle_per_window_of_k_tokens():
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text=skill("django-test-suite"))

    assert artifact.params == DEFAULT_PARAMS
    assert DEFAULT_PARAMS.k == 5
    assert artifact.n_tokens == len(tokenise(skill("django-test-suite")).words)
    assert len(artifact.shingles) == artifact.n_tokens - 4
    assert artifact.shingles.dtype == np.uint64


def test_a_text_shorter_than_k_tokens_has_no_shingles():
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text="Run the tests.")

    assert len(artifact.shingles) == 0


def test_shingles_are_in_text_order():
    text = "Read the last frame that belongs to the project, not the first frame of the traceback."
    words = text.split()

    whole = ArtifactRecord.from_text(kind="skill", name="s", text=text).shingles
    without_first_word = ArtifactRecord.from_text(
        kind="skill", name="s", text=" ".join(words[1:])
    ).shingles
    only_first_window = ArtifactRecord.from_text(
        kind="skill", name="s", text=" ".join(words[:5])
    ).shingles

    assert np.array_equal(whole[1:], without_first_word)
    assert np.array_equal(whole[:1], only_first_window)
    assert len(set(whole.tolist())) == len(whole)


def test_shingles_ignore_markup_and_unicode_variants():
    original = skill("flaky-test-triage")
    rendered = renderings.read_tool_gutter(renderings.fullwidth_letters(renderings.quote(original)))

    assert np.array_equal(
        ArtifactRecord.from_text(kind="skill", name="s", text=rendered).shingles,
        ArtifactRecord.from_text(kind="skill", name="s", text=original).shingles,
    )


def test_shingling_params_travel_with_the_artifact():
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text=skill("git-commit-message"))

    assert artifact.to_dict()["shingling"] == DEFAULT_PARAMS.as_dict()
    assert set(DEFAULT_PARAMS.as_dict()) == {"normaliser", "k", "hash"}
    assert ShingleParams.from_dict(DEFAULT_PARAMS.as_dict()) == DEFAULT_PARAMS
    assert DEFAULT_PARAMS.normaliser == "norm-v3"


K4 = dataclasses.replace(DEFAULT_PARAMS, k=4)


def test_other_params_make_other_shingles():
    text = skill("git-commit-message")

    default = ArtifactRecord.from_text(kind="skill", name="s", text=text)
    k4 = ArtifactRecord.from_text(kind="skill", name="s", text=text, params=K4)

    assert k4.params == K4
    assert len(k4.shingles) == len(default.shingles) + 1
    assert not set(k4.shingles.tolist()) & set(default.shingles.tolist())


def test_artifact_shingled_under_other_params_is_reshingled_from_its_text():
    artifact = ArtifactRecord.from_text(
        kind="skill", name="git-commit-message", text=skill("git-commit-message"), params=K4
    )
    derived_filter = DerivedFilter()
    derived_filter.add(artifact)

    verdict = derived_filter.check(skill("git-commit-message"))

    assert verdict.derived
    assert verdict.best.artifact.name == "git-commit-message"
    assert verdict.best.overlap == 1.0


def test_filter_under_other_params_reshingles_default_artifacts():
    derived_filter = DerivedFilter(params=K4)
    derived_filter.add(
        ArtifactRecord.from_text(kind="skill", name="flaky", text=skill("flaky-test-triage"))
    )

    assert derived_filter.check(renderings.quote(skill("flaky-test-triage"))).derived


def test_artifact_without_text_under_other_params_is_refused():
    full = ArtifactRecord.from_text(
        kind="skill", name="flaky-test-triage", text=skill("flaky-test-triage"), params=K4
    )
    shingles_only = ArtifactRecord.from_json_line(manifest_line(full, text=None))

    with pytest.raises(ShinglingMismatch, match="flaky-test-triage"):
        DerivedFilter().add(shingles_only)
    with pytest.raises(ShinglingMismatch):
        match_passages(skill("flaky-test-triage"), shingles_only)


def test_card_format_line_without_shingling_params_is_never_compared_blind():
    # The card's manifest line has no "shingling": its shingles could have been made any way.
    full = ArtifactRecord.from_text(kind="skill", name="review", text=skill("pull-request-review"))
    bare = json.loads(manifest_line(full, text=None))
    del bare["shingling"]
    with_text = dict(bare, text=skill("pull-request-review"))

    with pytest.raises(ShinglingMismatch):
        DerivedFilter().add(ArtifactRecord.from_json_line(json.dumps(bare)))
    derived_filter = DerivedFilter()
    derived_filter.add(ArtifactRecord.from_json_line(json.dumps(with_text)))
    assert derived_filter.check(skill("pull-request-review")).derived


def test_batch_shingles_are_each_texts_own_shingles():
    from filter.normalise import word_bytes
    from filter.shingles import batch_shingle_hashes, shingle_hashes

    texts = [
        skill(SKILL_NAMES[0]),
        "",
        "a b c",
        "one two three four five six",
        skill(SKILL_NAMES[1]),
    ]
    token_lists = [word_bytes(text) for text in texts]

    shingles, firsts = batch_shingle_hashes(token_lists, 5)

    for number, tokens in enumerate(token_lists):
        own = shingle_hashes(tokens, 5)
        assert shingles[firsts[number] : firsts[number + 1]].tolist() == own.tolist()
