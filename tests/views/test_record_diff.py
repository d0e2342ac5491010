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
    text = demo_skill("release-notes").replace("upgrade", "<b>UPGRADE</b>", 1)
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "p", "text": text}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="para")
    return Record.objects.get(source="para")


def test_the_words_a_paraphrase_changed_are_marked_on_both_sides(client, reviewer, paraphrase):
    client.force_login(reviewer)
    html = client.get(reverse("record", args=[paraphrase.pk])).content.decode()
    assert '<ins class="word-change"' in html and "&lt;b&gt;UPGRADE&lt;/b&gt;" in html
    assert '<del class="word-change"' in html
    assert "<b>UPGRADE" not in html
