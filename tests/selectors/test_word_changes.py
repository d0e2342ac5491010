"""Word-level differences inside a passage: what a paraphrase changed, inserted or dropped."""

from poimen.selectors.passages import word_changes


def test_changed_inserted_and_dropped_words_are_spans_of_each_side():
    artifact = "Read the draft aloud before you publish the notes to the team."
    record = "Read the draft out loud before you publish the notes to everyone, twice."
    changed, lost = word_changes(record, (0, len(record)), artifact, (0, len(artifact)))
    assert [record[a:b] for a, b in changed] == ["out loud", "everyone, twice"]
    assert [artifact[a:b] for a, b in lost] == ["aloud", "the team"]


def test_a_verbatim_copy_has_no_changes_whatever_the_case():
    text = "Group the changes by audience."
    assert word_changes(text.upper(), (0, len(text)), text, (0, len(text))) == ((), ())


def test_a_copy_read_with_line_numbers_has_no_changes():
    artifact = (
        "---\ndescription: Write release notes\n---\n\n# Release notes\n\nGroup the changes.\n"
    )
    record = "".join(f"{n:>6}→{line}\n" for n, line in enumerate(artifact.splitlines(), 1))
    assert word_changes(record, (0, len(record)), artifact, (0, len(artifact))) == ((), ())


def test_path_prefixes_and_markup_are_not_changes():
    artifact = "Group the changes by audience.\nLead with what breaks.\n"
    record = (
        "notes/SKILL.md:1:Group the <b>changes</b> by audience.\n"
        "notes/SKILL.md:2:Lead with what breaks.\n"
    )
    assert word_changes(record, (0, len(record)), artifact, (0, len(artifact))) == ((), ())


def test_a_changed_word_behind_a_gutter_is_still_marked():
    artifact = "Group the changes by audience.\nLead with what breaks.\n"
    record = "     1→Group the changes by team.\n     2→Lead with what breaks.\n"
    changed, lost = word_changes(record, (0, len(record)), artifact, (0, len(artifact)))
    assert [record[a:b] for a, b in changed] == ["team"]
    assert [artifact[a:b] for a, b in lost] == ["audience"]
