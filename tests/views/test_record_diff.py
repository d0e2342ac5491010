"""The record view marks, inside a passage, the words the record changed (<ins>) and the
artifact's words it lost (<del>), all of it escaped."""

import pytest
from django.urls import reverse

from tests.factories import demo_skill


@pytest.fixture
def paraphrase(make_artifact, tmp_path):
    import json

    from poimen.models import Record
    from poimen.services import records_ingest

    make_artifact(name="release-notes")
    text = demo_skill("release-notes").replace("upgrade", "<b>MIGRATE</b>", 1)
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "p", "text": text}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="para")
    return Record.objects.get(source="para")


def test_the_words_a_paraphrase_changed_are_marked_on_both_sides(client, reviewer, paraphrase):
    client.force_login(reviewer)
    html = client.get(reverse("record", args=[paraphrase.pk])).content.decode()
    # The markup is no word (the normaliser blanks it): the changed word is marked, the tags
    # around it are shown escaped.
    assert ">MIGRATE</ins>&lt;/b&gt;" in html and "&lt;b&gt;<ins" in html
    assert '<del class="word-change"' in html
    assert "<b>MIGRATE" not in html


def test_a_copy_read_with_line_numbers_shows_no_word_changes(
    client, reviewer, make_artifact, tmp_path
):
    import json

    from poimen.models import Record
    from poimen.services import records_ingest

    make_artifact(name="release-notes")
    read = "".join(
        f"{n:>6}→{line}\n" for n, line in enumerate(demo_skill("release-notes").splitlines(), 1)
    )
    path = tmp_path / "read.jsonl"
    path.write_text(json.dumps({"id": "read", "text": read}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="read")
    record = Record.objects.get(source="read")
    assert record.derived
    client.force_login(reviewer)
    html = client.get(reverse("record", args=[record.pk])).content.decode()
    assert 'data-passage="1"' in html
    assert "word-change" not in html
