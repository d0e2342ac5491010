"""The card's acceptance tests (M4.2, issue 2; docs/card.md) for the matcher, on realistic texts.

A record that copies an emitted artifact must be excluded however the copy was re-rendered;
a record that only talks about it, quotes a sentence of it or shares its topic must not be.
No database: the matcher is a library.
"""

import hashlib
import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from filter import ArtifactRecord, DerivedFilter
from tests import renderings
from tests.texts import (
    REFERENCE_NAMES,
    SECTION_MARKER,
    SKILL_MARKER,
    SKILL_NAMES,
    reference,
    skill,
    turn,
)

GUIDE = "django-deployment-guide"


def skill_artifact(name: str) -> ArtifactRecord:
    return ArtifactRecord.from_text(kind="skill", name=name, text=skill(name))


def reference_artifact(name: str) -> ArtifactRecord:
    return ArtifactRecord.from_text(kind="reference", name=name, text=reference(name))


def filter_of(*artifacts: ArtifactRecord, **options) -> DerivedFilter:
    derived_filter = DerivedFilter(**options)
    for artifact in artifacts:
        derived_filter.add(artifact)
    return derived_filter


@pytest.fixture(scope="module")
def artifacts() -> list[ArtifactRecord]:
    """Every skill and the long deployment guide, as `mem skill draft` would register them."""
    return [skill_artifact(name) for name in SKILL_NAMES] + [reference_artifact(GUIDE)]


@pytest.fixture(scope="module")
def derived_filter(artifacts) -> DerivedFilter:
    return filter_of(*artifacts)


def first_part(text: str, share: float) -> str:
    """The leading sections of `text` that come closest to `share` of its words."""
    parts = renderings.sections(text)
    wanted = share * len(text.split())
    cuts = ["\n".join(parts[:end]) for end in range(1, len(parts))]
    return min(cuts, key=lambda cut: abs(len(cut.split()) - wanted))


def first_half(text: str) -> str:
    return first_part(text, 0.5)


def second_half(text: str) -> str:
    return text[len(first_half(text)) :].lstrip("\n")


def stitched_from_quarters() -> str:
    """A quarter of each skill, in turn: no skill is a large part of it, together all of it."""
    pieces = []
    for number, name in enumerate(SKILL_NAMES):
        parts = renderings.sections(skill(name))
        # Section 0 is the front matter and title; sections 1..4 are the body.
        pieces.append(parts[1 + number % (len(parts) - 1)])
    return "\n".join(pieces)


def section(text: str, heading: str) -> str:
    (found,) = [part for part in renderings.sections(text) if part.startswith(f"## {heading}\n")]
    return found.strip()


def half_skill_and_unrelated_turn() -> str:
    """About half of one skill followed by an unrelated answer: an overlap near 0.5."""
    return first_half(skill("django-test-suite")) + "\n\n" + turn("unrelated-query-plan")


# -- a1, a2: copies, however rendered --------------------------------------------------------


@pytest.mark.parametrize("name", SKILL_NAMES)
def test_a1_verbatim_excluded(derived_filter, name):
    verdict = derived_filter.check(skill(name))

    assert verdict.derived
    assert verdict.best.artifact.name == name
    assert verdict.best.overlap == 1.0


REFORMATTINGS = {
    "other_whitespace": renderings.other_whitespace,
    "reindented": renderings.reindent,
    "wrapped_in_fences": renderings.wrap_in_fences,
    "fences_removed": renderings.remove_fences,
    "bullets_dash_to_star": lambda text: renderings.change_bullets(text, "*"),
    "bullets_to_numbers": lambda text: renderings.change_bullets(text, "1."),
    "numbers_to_dashes": lambda text: renderings.change_bullets(text, "-"),
    "rewrapped_at_52": renderings.rewrap,
    "rewrapped_at_100": lambda text: renderings.rewrap(text, width=100),
    "bullets_to_unicode": lambda text: renderings.change_bullets(text, "\u2022"),
    "quoted": renderings.quote,
    "nested_quote": lambda text: renderings.quote(renderings.quote(text)),
    "rendered_as_html": renderings.render_html,
    "crlf_line_ends": renderings.crlf,
    "smart_quotes": renderings.smart_quotes,
    "fullwidth_letters": renderings.fullwidth_letters,
    "non_breaking_spaces": renderings.non_breaking_spaces,
    "ligatures": renderings.ligatures,
}


@pytest.mark.parametrize("how", REFORMATTINGS)
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_a2_reformatted_excluded(derived_filter, name, how):
    original = skill(name)
    copy = REFORMATTINGS[how](original)
    assert copy != original

    verdict = derived_filter.check(copy)

    assert verdict.derived
    assert verdict.best.artifact.name == name
    assert verdict.best.overlap >= 0.95


def test_skill_embedded_in_a_much_longer_turn_is_excluded(derived_filter):
    record = turn("long-session").replace(SKILL_MARKER, skill("django-test-suite"))
    assert len(record.split()) > 2 * len(skill("django-test-suite").split())

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name == "django-test-suite"
    assert verdict.best.artifact_containment >= 0.95
    assert verdict.best.record_containment < 0.6


def test_record_that_is_a_chunk_of_a_long_artifact_is_excluded(derived_filter):
    guide = reference(GUIDE)
    chunk = (
        section(guide, "Static files") + "\n\n" + section(guide, "Running Gunicorn with systemd")
    )

    verdict = derived_filter.check(chunk)

    assert verdict.derived
    assert verdict.best.artifact.name == GUIDE
    assert verdict.best.kind == "reference"
    assert verdict.best.record_containment >= 0.95
    assert verdict.best.artifact_containment < 0.4


def test_record_stitched_from_halves_of_two_skills_is_excluded(derived_filter):
    record = (
        first_half(skill("git-commit-message")) + "\n" + second_half(skill("flaky-test-triage"))
    )

    verdict = derived_filter.check(record)

    # Neither skill alone makes up enough of the record; together they make all of it.
    assert verdict.derived
    assert {match.artifact.name for match in verdict.matches[:2]} == {
        "git-commit-message",
        "flaky-test-triage",
    }
    assert all(match.overlap < 0.8 for match in verdict.matches)
    assert verdict.decided_by == "skill"
    assert verdict.coverage["skill"] >= 0.95


def test_record_stitched_from_quarters_of_four_skills_is_excluded(derived_filter):
    verdict = derived_filter.check(stitched_from_quarters())

    assert verdict.derived
    assert {match.artifact.name for match in verdict.matches} == set(SKILL_NAMES)
    assert all(match.overlap < 0.5 for match in verdict.matches)
    assert verdict.decided_by == "skill"


@pytest.mark.parametrize("name", SKILL_NAMES)
def test_skill_with_its_sections_in_another_order_is_excluded(derived_filter, name):
    head, *body = renderings.sections(skill(name))
    record = "\n".join([head, *reversed(body)])

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name == name
    assert verdict.best.artifact_containment >= 0.95


@pytest.mark.parametrize("how", ["changed", "inserted", "deleted"])
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_copy_with_one_word_in_ten_edited_is_excluded(derived_filter, name, how):
    copy = renderings.edit_one_word_in_ten(skill(name), how, seed=SKILL_NAMES.index(name) + 7)
    edited_words = len(set(copy.split()) ^ set(skill(name).split()))
    assert edited_words >= len(skill(name).split()) / 20

    verdict = derived_filter.check(copy)

    assert verdict.derived
    assert verdict.best.artifact.name == name


GUTTERS = {
    "read_tool_arrow": renderings.read_tool_gutter,
    "cat_n_tab": renderings.cat_n_gutter,
    "colon": lambda text: "\n".join(
        f"{number}: {line}" for number, line in enumerate(text.split("\n"), 1)
    ),
}


@pytest.mark.parametrize("gutter", GUTTERS)
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_skill_as_a_file_reading_tool_shows_it_is_excluded(derived_filter, name, gutter):
    record = "I'll read the skill first.\n\n" + GUTTERS[gutter](skill(name))

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name == name
    assert verdict.best.overlap >= 0.95


READER_COMMENTS = [
    "Reading the skill before I start.",
    "OK, we already have all of that set up.",
    "This is the part that matters here.",
    "Noted, I'll keep that in mind.",
    "Fine, nothing surprising in this one.",
]


@pytest.mark.parametrize("name", SKILL_NAMES)
def test_skill_with_short_reader_comments_between_sections_is_excluded(derived_filter, name):
    parts = renderings.sections(skill(name))
    record = "\n\n".join(
        f"{part.strip()}\n\n{comment}" for part, comment in zip(parts, READER_COMMENTS, strict=True)
    )

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name == name


# -- a3, a4: discussion, mentions and shared topics are evidence -----------------------------


def test_a3_mention_not_excluded(derived_filter):
    record = turn("mention-by-name")
    assert "django-test-suite" in record

    verdict = derived_filter.check(record)

    assert not verdict.derived
    assert all(match.overlap < 0.2 for match in verdict.matches)


def test_genuine_discussion_quoting_one_sentence_of_the_skill_is_not_excluded(derived_filter):
    record = turn("discussion-quoting-one-sentence")
    quoted = (
        "Never just add a retry decorator: it hides the cause and the next flaky test joins it."
    )
    assert quoted in record and quoted in skill("flaky-test-triage")

    verdict = derived_filter.check(record)

    assert not verdict.derived
    assert all(match.overlap < 0.2 for match in verdict.matches)


@pytest.mark.parametrize(
    "reply",
    [
        "> {sentence}\n\nAgreed.",
        'Agreed with the skill here: "{sentence}"',
        "{sentence}",
    ],
)
def test_short_reply_quoting_one_long_sentence_of_the_skill_is_not_excluded(derived_filter, reply):
    # A sentence of about twenty words: a quote to agree with, not a copy of the skill.
    sentence = (
        "Never just add a retry decorator: it hides the cause and the next flaky test joins it."
    )
    assert sentence in skill("flaky-test-triage")

    verdict = derived_filter.check(reply.format(sentence=sentence))

    assert not verdict.derived


def test_two_quoted_paragraphs_of_a_skill_with_a_word_of_agreement_are_excluded(derived_filter):
    paragraphs = [p for p in skill("flaky-test-triage").split("\n\n") if len(p.split()) > 25]
    record = "> " + "\n>\n> ".join(paragraphs[:2]) + "\n\nAgreed, let's do that."

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.best.artifact.name == "flaky-test-triage"


@pytest.mark.parametrize(
    "record",
    [
        "Keep the test database between runs with `--keepdb`.",
        "Run the whole suite again exactly as CI runs it.",
        "Squash such commits before the branch is merged.",
        "A flaky test passes and fails on the same code.",
    ],
)
def test_record_of_a_few_words_that_all_occur_in_a_skill_is_not_excluded(derived_filter, record):
    skill_words = {word for name in SKILL_NAMES for word in skill(name).lower().split()}
    assert {word.strip("`.") for word in record.lower().split()} <= {
        word.strip("`.,:;") for word in skill_words
    }

    verdict = derived_filter.check(record)

    assert not verdict.derived


@pytest.mark.parametrize("name", ["unrelated-query-plan", "unrelated-asyncio"])
def test_a4_unrelated_not_excluded(derived_filter, name):
    verdict = derived_filter.check(turn(name))

    assert not verdict.derived
    assert all(match.overlap < 0.2 for match in verdict.matches)


@pytest.mark.parametrize(
    ("registered", "checked"),
    [
        ("ledgerly-running-tests", "tessera-testing"),
        ("tessera-testing", "ledgerly-running-tests"),
    ],
)
def test_two_projects_independent_docs_on_the_same_topic_are_not_excluded(
    artifacts, registered, checked
):
    # Both pages, and the django-test-suite skill, are about running a Django test suite.
    derived_filter = filter_of(*artifacts, reference_artifact(registered))

    verdict = derived_filter.check(reference(checked))

    assert not verdict.derived
    assert all(match.overlap < 0.2 for match in verdict.matches)


# -- a5..a10: what the verdict says, and how it is configured ---------------------------------


def test_a5_exclusion_logged(artifacts):
    derived_filter = filter_of(*artifacts, thresholds={"skill": 0.8, "reference": 0.7})
    guide_section = section(reference(GUIDE), "Settings for production")
    record = renderings.quote(skill("git-commit-message")) + "\n\n" + guide_section

    verdict = derived_filter.check(record)

    assert verdict.derived
    assert verdict.decided_by is verdict.best
    assert verdict.best.artifact.name == "git-commit-message"
    assert verdict.best.exceeds
    names = {artifact.name for artifact in artifacts}
    assert {match.artifact.name for match in verdict.matches} >= {"git-commit-message", GUIDE}
    for match in verdict.matches:
        assert match.artifact.name in names
        assert match.kind == match.artifact.kind
        assert match.threshold == derived_filter.threshold_for(match.kind)
        assert 0.0 <= match.overlap <= 1.0
        assert match.overlap == max(match.artifact_containment, match.record_containment)
        assert match.shared > 0
    (guide_match,) = [match for match in verdict.matches if match.artifact.name == GUIDE]
    assert guide_match.kind == "reference"
    assert guide_match.threshold == 0.7


def test_a6_threshold_configurable():
    assert DerivedFilter().threshold_for("skill") == 0.8
    configured = DerivedFilter(thresholds={"skill": 0.6}, default_threshold=0.9)
    assert configured.threshold_for("skill") == 0.6
    assert configured.threshold_for("reference") == 0.9

    record = half_skill_and_unrelated_turn()
    artifact = skill_artifact("django-test-suite")
    overlap = filter_of(artifact).check(record).best.overlap
    assert 0.3 < overlap < 0.7

    lenient = filter_of(artifact, thresholds={"skill": overlap - 0.05})
    strict = filter_of(artifact, thresholds={"skill": overlap + 0.05})
    assert lenient.check(record).derived
    assert not strict.check(record).derived
    assert strict.check(record).best.threshold == overlap + 0.05


def test_a6_threshold_applies_per_kind():
    guide = reference(GUIDE)
    skill_half = half_skill_and_unrelated_turn()
    guide_half = section(guide, "Configuring Nginx") + "\n\n" + turn("unrelated-asyncio")
    derived_filter = filter_of(
        skill_artifact("django-test-suite"),
        reference_artifact(GUIDE),
        thresholds={"skill": 0.3, "reference": 0.95},
    )

    skill_verdict = derived_filter.check(skill_half)
    guide_verdict = derived_filter.check(guide_half)

    assert skill_verdict.derived
    assert skill_verdict.best.threshold == 0.3
    assert not guide_verdict.derived
    assert guide_verdict.best.artifact.name == GUIDE
    assert guide_verdict.best.threshold == 0.95
    assert 0.3 < guide_verdict.best.overlap < 0.95


def test_a7_no_manifest_is_safe():
    derived_filter = DerivedFilter()
    assert len(derived_filter) == 0

    for record in [skill("django-test-suite"), "", "   \n", "ok"]:
        verdict = derived_filter.check(record)
        assert not verdict.derived
        assert verdict.matches == []
        assert verdict.best is None
        assert verdict.decided_by is None


def git_commit_message_v2() -> str:
    """The git-commit-message skill with its last section rewritten: a new version."""
    v1 = skill("git-commit-message")
    new_section = (
        "## Before you commit\n\n"
        "- Run the project's formatter and linter so that the commit does not mix style fixes "
        "with the change itself.\n"
        "- Make sure the tests pass locally; a commit that breaks the build makes `git bisect` "
        "harder for everyone who comes after you.\n"
        "- Look at `git diff --staged` one last time for debugging output, commented-out code "
        "and files you did not mean to add.\n"
        "- If the change is large, consider whether it should be a pull request of several "
        "commits, each of which builds and passes on its own.\n"
    )
    return v1.replace(section(v1, "What to avoid"), new_section.strip())


def test_a8_multiple_artifacts(artifacts):
    # Fillers: 120 artifacts made of the other texts' sentences, so that the index is crowded
    # with text on the same topics that shares stock phrases with the skills.
    rng = np.random.default_rng(8)
    sentences = [
        sentence.strip() + "."
        for name in ["long-session", "unrelated-query-plan", "unrelated-asyncio"]
        for sentence in turn(name).replace(SKILL_MARKER, "").split(". ")
        if len(sentence.split()) > 4
    ] + [
        sentence.strip() + "."
        for name in ["ledgerly-running-tests", "tessera-testing"]
        for sentence in reference(name).split(". ")
        if len(sentence.split()) > 4
    ]
    fillers = [
        ArtifactRecord.from_text(
            kind="skill",
            name=f"filler-{number}",
            text=" ".join(rng.choice(sentences, size=12, replace=False)),
        )
        for number in range(120)
    ]
    v2 = ArtifactRecord.from_text(
        kind="skill", name="git-commit-message-v2", text=git_commit_message_v2()
    )
    derived_filter = filter_of(*fillers[:60], *artifacts, v2, *fillers[60:])
    assert len(derived_filter) == 60 + len(artifacts) + 1 + 60

    for name in SKILL_NAMES:
        verdict = derived_filter.check(renderings.rewrap(skill(name)))
        assert verdict.derived
        assert verdict.best.artifact.name == name
    newer = derived_filter.check(git_commit_message_v2())
    assert newer.best.artifact.name == "git-commit-message-v2"
    assert "git-commit-message" in {match.artifact.name for match in newer.matches}
    chunk = derived_filter.check(section(reference(GUIDE), "Troubleshooting"))
    assert chunk.derived
    assert chunk.best.artifact.name == GUIDE


def test_a9_partial_overlap_below_threshold(derived_filter):
    review_skill = skill("pull-request-review")
    pasted = (
        section(review_skill, "What to check") + "\n\n" + section(review_skill, "Writing comments")
    )
    record = turn("review-discussion").replace(SECTION_MARKER, pasted)

    verdict = derived_filter.check(record)

    assert not verdict.derived
    assert verdict.best.artifact.name == "pull-request-review"
    assert 0.3 < verdict.best.overlap < 0.8
    assert not verdict.best.exceeds


def test_a10_artifact_provenance():
    text = skill("flaky-test-triage")
    emitted_at = datetime(2026, 11, 30, 17, 45, 12, tzinfo=UTC)

    artifact = ArtifactRecord.from_text(
        kind="skill", name="flaky-test-triage", text=text, emitted_at=emitted_at
    )

    assert artifact.kind == "skill"
    assert artifact.name == "flaky-test-triage"
    assert artifact.sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert artifact.emitted_at == emitted_at
    assert artifact.shingles.dtype == np.uint64
    assert len(artifact.shingles) == artifact.n_tokens - artifact.params.k + 1


def test_a10_emitted_at_defaults_to_now_in_utc():
    before = datetime.now(UTC)

    artifact = skill_artifact("git-commit-message")

    assert artifact.emitted_at.utcoffset() == timedelta(0)
    assert before <= artifact.emitted_at <= datetime.now(UTC)


@pytest.mark.parametrize("with_text", [True, False])
def test_a10_manifest_json_line_round_trip(with_text):
    emitted_at = datetime(2026, 11, 30, 17, 45, 12, tzinfo=UTC)
    artifact = ArtifactRecord.from_text(
        kind="skill",
        name="flaky-test-triage",
        text=skill("flaky-test-triage"),
        emitted_at=emitted_at,
    )
    line = artifact.to_json_line()
    if not with_text:
        data = json.loads(line)
        del data["text"]
        line = json.dumps(data)

    assert "\n" not in line
    data = json.loads(line)
    assert {"kind", "name", "sha256", "shingles", "emitted_at"} <= set(data)
    assert data["kind"] == "skill"
    assert data["shingles"] == [int(value) for value in artifact.shingles]

    back = ArtifactRecord.from_json_line(line)

    assert (back.kind, back.name, back.sha256) == (artifact.kind, artifact.name, artifact.sha256)
    assert back.emitted_at == emitted_at
    assert back.params == artifact.params
    assert np.array_equal(back.shingles, artifact.shingles)
    assert back.text == (artifact.text if with_text else None)


def test_a10_artifact_known_only_by_its_manifest_line_still_excludes_and_is_named():
    emitted_at = datetime(2026, 11, 30, 17, 45, 12, tzinfo=UTC)
    full = ArtifactRecord.from_text(
        kind="skill",
        name="pull-request-review",
        text=skill("pull-request-review"),
        emitted_at=emitted_at,
    )
    data = full.to_dict()
    del data["text"]
    from_manifest = ArtifactRecord.from_json_line(json.dumps(data), source="vault/.artifacts.jsonl")
    derived_filter = filter_of(from_manifest)

    verdict = derived_filter.check(renderings.quote(skill("pull-request-review")))

    assert verdict.derived
    assert verdict.best.artifact.name == "pull-request-review"
    assert verdict.best.artifact.sha256 == full.sha256
    assert verdict.best.artifact.emitted_at == emitted_at


def test_overlap_exactly_at_the_threshold_is_not_exceeds():
    record = half_skill_and_unrelated_turn()
    artifact = skill_artifact("django-test-suite")
    overlap = filter_of(artifact).check(record).best.overlap

    at_threshold = filter_of(artifact, thresholds={"skill": overlap}).check(record)
    just_below = filter_of(artifact, thresholds={"skill": overlap - 1e-9}).check(record)

    assert at_threshold.best.overlap == overlap
    assert not at_threshold.best.exceeds
    assert not at_threshold.derived
    assert just_below.derived


def test_verbatim_copy_under_threshold_one_is_not_exceeds():
    derived_filter = filter_of(skill_artifact("django-test-suite"), thresholds={"skill": 1.0})

    verdict = derived_filter.check(skill("django-test-suite"))

    assert verdict.best.overlap == 1.0
    assert not verdict.best.exceeds
    assert not verdict.derived


def test_coverage_exactly_at_the_threshold_is_not_exceeds(artifacts):
    record = (
        first_half(skill("git-commit-message")) + "\n" + second_half(skill("flaky-test-triage"))
    )
    coverage = filter_of(*artifacts).check(record).coverage["skill"]

    at_threshold = filter_of(*artifacts, thresholds={"skill": coverage}).check(record)
    just_below = filter_of(*artifacts, thresholds={"skill": coverage - 1e-9}).check(record)

    assert not at_threshold.derived
    assert just_below.derived
    assert just_below.decided_by == "skill"


def test_every_reference_page_is_its_own_best_match():
    derived_filter = filter_of(*(reference_artifact(name) for name in REFERENCE_NAMES))

    for name in REFERENCE_NAMES:
        verdict = derived_filter.check(renderings.rewrap(reference(name), width=72))
        assert verdict.derived
        assert verdict.best.artifact.name == name
