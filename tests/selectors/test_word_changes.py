"""Word-level differences inside a passage: what a paraphrase changed, inserted or dropped."""

from poimen.selectors.passages import word_changes


def test_changed_inserted_and_dropped_words_are_spans_of_each_side():
    artifact = "Read the draft aloud before you publish the notes to the team."
    record = "Read the draft out loud before you publish the notes to everyone, twice."
    changed, lost = word_changes(record, (0, len(record)), artifact, (0, len(artifact)))
    assert [record[a:b] for a, b in changed] == ["out loud", "everyone, twice."]
    assert [artifact[a:b] for a, b in lost] == ["aloud", "the team."]


def test_a_verbatim_copy_has_no_changes_whatever_the_case():
    text = "Group the changes by audience."
    assert word_changes(text.upper(), (0, len(text)), text, (0, len(text))) == ((), ())
