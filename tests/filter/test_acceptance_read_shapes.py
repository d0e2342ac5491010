"""Acceptance tests for the read shapes (issue 21, norm-v3, docs/read-shapes.md): every way a
coding agent's tool or a shell shows a file. A registered skill shown in any of them is derived;
an unregistered text shown the same way stays evidence; the passages of a copy, and so a
redaction, cut the copied text and nothing around it, because the offsets still point into
the text as the agent saw it.

The shapes are the tools' own (tests/renderings.py): the prefixes `rg -n`, `grep -Hn` and
grep's context lines print (ripgrep's and GNU grep's manuals: `path:N:` for a match, `path-N-`
for context, rg --column's `path:N:C:`), git diff's and Codex apply_patch's added file (`+` on
every line, Codex's `*** Add File:` envelope), an MCP tool's result (a JSON string, Python's
json.dumps), html.escape in `<pre>`, `cat -A` (coreutils' `$`, `^I`, `M-` notation) and bat's
full style (its decorations: a 4-wide number, a git mark, `│`).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filter import ArtifactRecord, DerivedFilter, match_passages
from filter.normalise import tokenise, words
from filter.redaction import evidence_text, redaction
from tests import renderings
from tests.texts import REFERENCE_NAMES, SKILL_NAMES, reference, skill

PATH = ".claude/skills/{name}/SKILL.md"

SHAPES = {
    "rg -n": lambda text, path: renderings.path_prefixed(text, path),
    "rg --column": lambda text, path: renderings.path_prefixed(text, path, column=True),
    "grep -Hn -C": lambda text, path: renderings.path_prefixed(text, path, context_every=3),
    "grep -n -C, one file": lambda text, path: renderings.path_prefixed(text, context_every=2),
    "git diff": renderings.git_diff_added,
    "apply_patch": renderings.apply_patch_added,
    "JSON string": lambda text, path: renderings.json_string(text),
    "JSON string, UTF-8": lambda text, path: renderings.json_string(text, ensure_ascii=False),
    "rg -n in a JSON string": lambda text, path: renderings.json_string(
        renderings.path_prefixed(text, path)
    ),
    "HTML <pre>": lambda text, path: renderings.html_pre(text),
    "HTML <pre> in a JSON string": lambda text, path: renderings.json_string(
        renderings.html_pre(text)
    ),
    "cat -A": lambda text, path: renderings.cat_a(text),
    "bat": renderings.bat_full,
    "bat with git marks": lambda text, path: renderings.bat_full(text, path, changed_every=3),
}

INTRO = (
    "I looked for the instructions this repository gives before changing the test setup, "
    "because the last run failed in a way that did not match the error we saw yesterday on "
    "the build machine. Here is what the search printed:\n"
)
OUTRO = (
    "\nSo the setup has to change in two places: the settings module that the runner imports "
    "first, and the fixture that creates the temporary database. I will make both changes and "
    "run the whole suite again before opening the pull request."
)


def shaped(shape: str, name: str, text: str) -> str:
    return SHAPES[shape](text, PATH.format(name=name))


@pytest.fixture(scope="module")
def skills() -> dict[str, ArtifactRecord]:
    return {
        name: ArtifactRecord.from_text(kind="skill", name=name, text=skill(name))
        for name in SKILL_NAMES
    }


@pytest.fixture(scope="module")
def all_but_the_last(skills) -> DerivedFilter:
    """Every skill registered but the last, which stands for a file nobody registered."""
    derived_filter = DerivedFilter()
    for name in SKILL_NAMES[:-1]:
        derived_filter.add(skills[name])
    return derived_filter


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", SKILL_NAMES[:-1])
def test_a_skill_read_in_each_shape_is_derived(all_but_the_last, shape, name):
    record = shaped(shape, name, skill(name))

    verdict = all_but_the_last.check(record)

    assert verdict.derived
    assert verdict.matches[0].artifact.name == name
    assert verdict.matches[0].artifact_containment >= 0.99
    assert all_but_the_last.check_many([record])[0].derived


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("text", [SKILL_NAMES[-1], *REFERENCE_NAMES])
def test_an_unregistered_text_in_each_shape_is_evidence(all_but_the_last, shape, text):
    body = skill(text) if text in SKILL_NAMES else reference(text)
    record = INTRO + shaped(shape, text, body) + OUTRO

    verdict = all_but_the_last.check(record)

    assert not verdict.derived
    assert not verdict.matches or verdict.matches[0].overlap < 0.2


@pytest.mark.parametrize("shape", SHAPES)
def test_the_passages_and_the_redaction_cut_exactly_the_copied_text(skills, shape):
    name = SKILL_NAMES[0]
    shown = shaped(shape, name, skill(name))
    record = INTRO + shown + OUTRO
    first, last = len(INTRO), len(INTRO) + len(shown)

    passages = match_passages(record, skills[name])

    assert passages
    spans = [passage.record_span for passage in passages]
    assert all(first <= start and end <= last for start, end in spans)
    skill_words = tokenise(skill(name))
    record_tokens = tokenise(record)
    # the first and last copied words are where the skill's first and last words stand
    copied = [
        i for i, start in enumerate(record_tokens.starts) if spans[0][0] <= start < spans[-1][1]
    ]
    assert record_tokens.words[copied[0]] == skill_words.words[0]
    assert record_tokens.words[copied[-1]] == skill_words.words[-1]
    cuts = redaction(record, spans)
    assert cuts is not None
    kept = evidence_text(record, cuts)
    assert kept.startswith(INTRO.split(" Here")[0])
    assert kept.rstrip().endswith(OUTRO.strip().split(". ")[-1])
    assert not all_but_the_last_words_kept(kept, skill(name))


def all_but_the_last_words_kept(kept: str, text: str) -> bool:
    """Whether a distinctive run of the skill's words is still in what the redaction kept."""
    skill_words = words(text)
    run = " ".join(skill_words[len(skill_words) // 2 : len(skill_words) // 2 + 8])
    return run in " ".join(words(kept))


def test_every_word_s_offsets_point_at_it_in_every_shape():
    for shape in SHAPES:
        for name in SKILL_NAMES:
            record = shaped(shape, name, skill(name))
            tokens = tokenise(record)
            for word, start, end in zip(tokens.words, tokens.starts, tokens.ends, strict=True):
                assert words(record[start:end]) == [word], (shape, record[start - 10 : end + 10])


# Lines as skills have them, and lines that look like a shape's prefix and are not one.
LINES = st.sampled_from(
    [line for name in SKILL_NAMES for line in skill(name).split("\n")]
    + ["", "a+b", 'say "hi" \\ there', "x & y < z", "<b>bold</b>"]
)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(LINES, min_size=1, max_size=25), shape=st.sampled_from(sorted(SHAPES)))
def test_a_shape_adds_no_word_and_takes_none_away(lines, shape):
    """The file's words are the shaped file's, in order, between what the tool adds before and
    after (a header, a path once): whatever the lines hold."""
    text = "\n".join(lines)
    expected = words(text)
    found = words(shaped(shape, "some-skill", text))
    if shape == "cat -A":  # "M-" notation spells a non-ASCII byte, not a character
        expected = words(text.encode("ascii", "ignore").decode())
    if shape in ("JSON string", "rg -n in a JSON string", "HTML <pre> in a JSON string"):
        expected = words(text.encode("ascii", "ignore").decode())  # "\u00e9" is blanked
        found = words(shaped(shape, "some-skill", text.encode("ascii", "ignore").decode()))
    assert contains_run(found, expected), (shape, text)


def contains_run(found: list[str], run: list[str]) -> bool:
    return any(found[at : at + len(run)] == run for at in range(len(found) - len(run) + 1))
