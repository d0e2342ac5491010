"""Unit tests of the matcher's parts: normaliser, shingles, manifest lines, passages, verdicts.

No database. The texts are the acceptance suite's (tests/texts/), so a unit that breaks here
shows up on the same words as the card's tests.
"""

import dataclasses
import json
import unicodedata
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from filter import (
    DEFAULT_PARAMS,
    ArtifactRecord,
    DerivedFilter,
    ManifestError,
    ShingleParams,
    ShinglingMismatch,
    match_passages,
    tokenise,
)
from tests.texts import SKILL_NAMES, reference, reformat, skill, turn

# -- the normaliser ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("marked_up", "expected"),
    [
        ("```python\nprint(total)\n```", ["print", "total"]),
        ("````markdown\nkeep going\n````", ["keep", "going"]),
        ("~~~ {.sh}\nmake test\n~~~", ["make", "test"]),
        ("## Running the tests", ["running", "the", "tests"]),
        ("Running\n=======", ["running"]),
        ("> > Keep it short", ["keep", "it", "short"]),
        ("- one\n* two\n+ three\n• four", ["one", "two", "three", "four"]),
        ("1. Install it\n2) Run it\n10. Done", ["install", "it", "run", "it", "done"]),
        ("   1. Install it\n> 2. Run it", ["install", "it", "run", "it"]),
        ("     1→Install it\n     2→Run it", ["install", "it", "run", "it"]),
        ("     1\tInstall it\n     2\tRun it", ["install", "it", "run", "it"]),
        ("12: Install it\n13: Run it", ["install", "it", "run", "it"]),
        ("     3→1. Install it\n     4→> ```bash\n     5→> make", ["install", "it", "make"]),
        (
            "| Option | Meaning |\n|---|---|\n| `-x` | stop at first failure |",
            ["option", "meaning", "x", "stop", "at", "first", "failure"],
        ),
        ("**Never** _skip_ *this* __step__ ~~now~~", ["never", "skip", "this", "step", "now"]),
        ("Run `pytest -x` now", ["run", "pytest", "x", "now"]),
        (
            "<details><summary>Setup</summary>Run <code>make</code><br/></details>",
            ["setup", "run", "make"],
        ),
        ('<a href="https://example.com/docs" title="docs">the docs</a>', ["the", "docs"]),
        ("press <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop", ["press", "ctrl", "c", "to", "stop"]),
    ],
    ids=[
        "fence_with_info_string",
        "four_backtick_fence",
        "tilde_fence",
        "heading",
        "setext_heading",
        "nested_blockquote",
        "bullets",
        "list_numbers",
        "indented_and_quoted_list_numbers",
        "read_tool_gutter",
        "cat_n_gutter",
        "colon_gutter",
        "gutter_then_list_number_quote_and_fence",
        "table_pipes",
        "emphasis",
        "inline_code",
        "html_tags",
        "html_attributes",
        "html_inline_in_a_sentence",
    ],
)
def test_markup_that_carries_no_words_is_dropped(marked_up, expected):
    assert tokenise(marked_up).words == expected


def test_numbers_in_prose_are_words():
    assert tokenise("Python 3 runs 12 workers\n2024 was slow").words == [
        "python", "3", "runs", "12", "workers", "2024", "was", "slow",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("variant", "plain"),
    [
        ("Straße", "STRASSE"),
        ("ｐｙｔｅｓｔ ＤＪＡＮＧＯ", "pytest django"),
        ("conﬁg ﬂaky eﬃcient", "config flaky efficient"),
        ("cafe\u0301", "café"),
        ("run\u00a0the\u202ftests\u3000now", "run the tests now"),
        ("don’t “quote” me", 'don\'t "quote" me'),
        ("con\u200bfig", "config"),
        ("x² H₂O", "x2 H2O"),
    ],
    ids=[
        "casefold",
        "fullwidth",
        "ligatures",
        "combining_accent",
        "no_break_spaces",
        "smart_quotes",
        "zero_width_space",
        "super_and_subscripts",
    ],
)
def test_unicode_variants_give_the_same_words(variant, plain):
    assert tokenise(variant).words == tokenise(plain).words


@pytest.mark.parametrize(
    "text",
    [
        "1.\u00a0Install the test dependencies",
        "2)\u202fRun the whole suite once",
        "Wait ½ a second between retries",
        "The Slack™ integration posts the result",
    ],
    ids=["no_break_space_after_list_number", "narrow_space_after_list_number", "fraction", "tm"],
)
def test_words_do_not_depend_on_whether_the_text_was_nfkc_normalised_first(text):
    # The normaliser promises NFKC: a copy that went through NFKC on the way is the same text.
    assert tokenise(text).words == tokenise(unicodedata.normalize("NFKC", text)).words


def normalised(fragment: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", fragment).casefold())


OFFSET_RENDERINGS = {
    "plain": lambda text: text,
    "quoted_crlf": lambda text: reformat.crlf(reformat.quote(text)),
    "read_tool_gutter": reformat.read_tool_gutter,
    "cat_n_gutter": reformat.cat_n_gutter,
    "fullwidth": reformat.fullwidth_letters,
    "ligatures": reformat.ligatures,
    "no_break_spaces": reformat.non_breaking_spaces,
    "html": reformat.render_html,
}


@pytest.mark.parametrize("rendering", OFFSET_RENDERINGS)
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_token_offsets_point_at_the_word_in_the_original_text(name, rendering):
    text = OFFSET_RENDERINGS[rendering](skill(name))

    tokens = tokenise(text)

    assert len(tokens.words) == len(tokens.starts) == len(tokens.ends) > 300
    assert [
        normalised(text[start:end]) for start, end in zip(tokens.starts, tokens.ends, strict=True)
    ] == (tokens.words)


def test_token_offsets_of_a_gutter_line_skip_the_gutter():
    text = "     7→## Keep **the** database\r\n     8→- between `runs`"

    tokens = tokenise(text)

    assert tokens.words == ["keep", "the", "database", "between", "runs"]
    assert [text[s:e] for s, e in zip(tokens.starts, tokens.ends, strict=True)] == [
        "Keep", "the", "database", "between", "runs",
    ]  # fmt: skip


RENDERINGS_THAT_KEEP_EVERY_WORD = {
    "other_whitespace": reformat.other_whitespace,
    "reindented": reformat.reindent,
    "wrapped_in_fences": reformat.wrap_in_fences,
    "fences_removed": reformat.remove_fences,
    "bullets_to_star": lambda text: reformat.change_bullets(text, "*"),
    "bullets_to_numbers": lambda text: reformat.change_bullets(text, "1."),
    "rewrapped": reformat.rewrap,
    "quoted": reformat.quote,
    "crlf_line_ends": reformat.crlf,
    "smart_quotes": reformat.smart_quotes,
    "fullwidth_letters": reformat.fullwidth_letters,
    "non_breaking_spaces": reformat.non_breaking_spaces,
    "ligatures": reformat.ligatures,
    "read_tool_gutter": reformat.read_tool_gutter,
    "cat_n_gutter": reformat.cat_n_gutter,
    "rendered_as_html": reformat.render_html,
}


@pytest.mark.parametrize("rendering", RENDERINGS_THAT_KEEP_EVERY_WORD)
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_a_rerendered_skill_has_exactly_the_words_of_the_original(name, rendering):
    original = skill(name)

    rendered = RENDERINGS_THAT_KEEP_EVERY_WORD[rendering](original)

    assert tokenise(rendered).words == tokenise(original).words


# -- shingles ---------------------------------------------------------------------------------


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
    rendered = reformat.read_tool_gutter(reformat.fullwidth_letters(reformat.quote(original)))

    assert np.array_equal(
        ArtifactRecord.from_text(kind="skill", name="s", text=rendered).shingles,
        ArtifactRecord.from_text(kind="skill", name="s", text=original).shingles,
    )


def test_shingling_params_travel_with_the_artifact():
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text=skill("git-commit-message"))

    assert artifact.to_dict()["shingling"] == DEFAULT_PARAMS.as_dict()
    assert set(DEFAULT_PARAMS.as_dict()) == {"normaliser", "k", "hash"}
    assert ShingleParams.from_dict(DEFAULT_PARAMS.as_dict()) == DEFAULT_PARAMS
    assert DEFAULT_PARAMS.normaliser == "norm-v1"


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

    assert derived_filter.check(reformat.quote(skill("flaky-test-triage"))).derived


def manifest_line(artifact: ArtifactRecord, **changes) -> str:
    data = artifact.to_dict()
    data.update(changes)
    return json.dumps({key: value for key, value in data.items() if value is not None})


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


# -- the manifest line ------------------------------------------------------------------------


def test_manifest_line_round_trip_keeps_unicode_and_large_hashes():
    text = reformat.fullwidth_letters(skill("django-test-suite")) + "\nÉtape 2 — ﬁn\n"
    artifact = ArtifactRecord.from_text(kind="reference", name="Guide für Tests", text=text)
    assert (artifact.shingles > np.uint64(2**63)).any()

    line = artifact.to_json_line()
    back = ArtifactRecord.from_json_line(line)

    assert "\n" not in line
    assert back.text == text
    assert back.name == "Guide für Tests"
    assert back.sha256 == artifact.sha256
    assert back.emitted_at == artifact.emitted_at
    assert np.array_equal(back.shingles, artifact.shingles)
    assert back.shingles.dtype == np.uint64


@pytest.mark.parametrize(
    "given",
    [
        datetime(2026, 11, 30, 17, 45),
        datetime(2026, 11, 30, 19, 45, tzinfo=timezone(timedelta(hours=2))),
        datetime(2026, 11, 30, 17, 45, tzinfo=UTC),
    ],
    ids=["naive", "utc_plus_two", "utc"],
)
def test_emitted_at_is_kept_as_an_aware_utc_time(given):
    # The contract says aware UTC; a naive time would be read as the server's local time when
    # the manifest line is written, and shift by the server's offset.
    artifact = ArtifactRecord.from_text(
        kind="skill", name="s", text=skill("git-commit-message"), emitted_at=given
    )

    assert artifact.emitted_at == datetime(2026, 11, 30, 17, 45, tzinfo=UTC)
    assert artifact.emitted_at.utcoffset() == timedelta(0)
    assert artifact.to_dict()["emitted_at"] in ("2026-11-30T17:45:00Z", "2026-11-30T17:45:00+00:00")


@pytest.fixture(scope="module")
def good_line_data() -> dict:
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text=skill("git-commit-message"))
    return json.loads(artifact.to_json_line())


def changed(data: dict, **changes) -> str:
    data = dict(data)
    for key, value in changes.items():
        if value is ...:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


MALFORMED = {
    "not_json": (lambda data: '{"kind": "skill", "name": ', "JSON"),
    "not_an_object": (lambda data: "[1, 2, 3]", "object"),
    "missing_sha256": (lambda data: changed(data, sha256=...), "sha256"),
    "missing_shingles": (lambda data: changed(data, shingles=...), "shingles"),
    "missing_kind": (lambda data: changed(data, kind=...), "kind"),
    "empty_name": (lambda data: changed(data, name=""), "name"),
    "sha256_not_hex": (lambda data: changed(data, sha256="not-a-digest"), "sha256"),
    "sha256_not_of_text": (lambda data: changed(data, sha256="0" * 64), "sha256"),
    "shingles_not_a_list": (lambda data: changed(data, shingles="1,2,3"), "shingles"),
    "shingle_a_float": (lambda data: changed(data, shingles=[1.5, 2.0]), "shingles"),
    "shingle_negative": (lambda data: changed(data, shingles=[-1]), "shingles"),
    "shingle_over_64_bits": (lambda data: changed(data, shingles=[2**64]), "shingles"),
    "emitted_at_not_a_time": (lambda data: changed(data, emitted_at="yesterday"), "emitted_at"),
    "emitted_at_missing": (lambda data: changed(data, emitted_at=...), "emitted_at"),
    "shingling_k_not_a_number": (
        lambda data: changed(data, shingling={"normaliser": "norm-v1", "k": "five", "hash": "x"}),
        "shingling",
    ),
    "text_not_a_string": (lambda data: changed(data, text=["a", "b"]), "text"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_manifest_line_error_names_the_line_and_why(good_line_data, case):
    make_line, why = MALFORMED[case]

    with pytest.raises(ManifestError) as raised:
        ArtifactRecord.from_json_line(
            make_line(good_line_data), source="vault/.artifacts.jsonl", lineno=7
        )

    error = raised.value
    assert error.source == "vault/.artifacts.jsonl"
    assert error.lineno == 7
    assert str(error).startswith("vault/.artifacts.jsonl:7: ")
    assert why in str(error).removeprefix("vault/.artifacts.jsonl:7: ")


# -- passages ---------------------------------------------------------------------------------

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
    record = "Here is the file:\n" + reformat.read_tool_gutter(
        reformat.crlf(reformat.fullwidth_letters(artifact_text))
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


# -- verdicts ---------------------------------------------------------------------------------


def test_matches_come_best_first():
    django = skill("django-test-suite")
    head, before, steps, failure, pitfalls = reformat.sections(django)
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
    commit_sections = reformat.sections(skill("git-commit-message"))
    guide_sections = reformat.sections(guide)
    # Half skill, half reference: neither kind makes up enough of the record on its own.
    record = "\n".join(commit_sections[:3] + guide_sections[3:5])

    verdict = derived_filter.check(record)

    assert set(verdict.coverage) == {"skill", "reference"}
    assert 0.3 < verdict.coverage["skill"] < 0.7
    assert 0.3 < verdict.coverage["reference"] < 0.7
    assert not verdict.derived


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


def test_a_shingle_repeated_in_one_artifact_is_indexed_at_its_first_positions_only():
    from filter.index import MAX_REPEATS, ShingleIndex

    repetitive = ArtifactRecord.from_text(kind="skill", name="r", text="test " * 200 + "done")
    index = ShingleIndex()
    index.add(0, repetitive.shingles)

    record_pos, _, artifact_pos = index.lookup(repetitive.shingles[:1])

    assert len(record_pos) == MAX_REPEATS
    assert sorted(artifact_pos.tolist()) == list(range(MAX_REPEATS))


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


def test_words_and_tokenise_agree_on_random_unicode_text():
    import random

    from filter.normalise import word_bytes, words

    rng = random.Random(2026)
    planes = list(range(0x20, 0x7F)) * 3 + list(range(0xA0, 0x3000)) + list(range(0xFF00, 0xFF60))
    pool = [chr(code) for code in planes] + ["\n"] * 40 + ["\u200b", "e\u0301", "1. ", "```"]
    for _ in range(3000):
        text = "".join(rng.choices(pool, k=rng.randint(0, 40)))
        tokens = tokenise(text)
        assert tokens.words == words(text), repr(text)
        assert [word.encode() for word in tokens.words] == word_bytes(text), repr(text)
