"""The card's acceptance (docs/card.md) end to end: a skill, however a model or a tool
re-renders it, in any transcript shape ingest reads, is excluded with an event naming it; a
mention is not."""

import json

import pytest

from poimen.models import Event, Record
from poimen.services import records_ingest
from tests import renderings
from tests.factories import demo_skill

pytestmark = pytest.mark.django_db

RENDERINGS = {
    "verbatim": lambda t: t,
    "other whitespace": renderings.other_whitespace,
    "re-indented": renderings.reindent,
    "wrapped in fences": renderings.wrap_in_fences,
    "fences removed": renderings.remove_fences,
    "bullets as *": lambda t: renderings.change_bullets(t, "*"),
    "bullets as 1.": lambda t: renderings.change_bullets(t, "1."),
    "re-wrapped": renderings.rewrap,
    "quoted with >": renderings.quote,
    "CRLF": renderings.crlf,
    "smart quotes": renderings.smart_quotes,
    "read tool gutter": renderings.read_tool_gutter,
    "cat -n gutter": renderings.cat_n_gutter,
    "a word in ten changed": lambda t: renderings.edit_one_word_in_ten(t, "changed", seed=3),
}


def as_records_line(text):
    return {"id": "r1", "text": text}


def as_chat_message(text):
    return {"role": "assistant", "content": [{"type": "text", "text": "Here it is:\n\n" + text}]}


def as_tool_result(text):
    return {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": text}],
        },
    }


SHAPES = {"records": as_records_line, "chat": as_chat_message, "agent": as_tool_result}


@pytest.fixture
def skill(make_artifact):
    return make_artifact(name="postgres-migrations")


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("rendering", list(RENDERINGS))
def test_a_rendered_skill_is_excluded_in_every_shape(skill, tmp_path, rendering, shape):
    text = RENDERINGS[rendering](demo_skill("postgres-migrations"))
    path = tmp_path / "input.jsonl"
    path.write_text(json.dumps(SHAPES[shape](text)) + "\n", encoding="utf-8")
    result = records_ingest(paths=[path])
    assert (result.new, result.errors, result.excluded) == (1, 0, {"skill": 1})
    record = Record.objects.get()
    assert record.status == "excluded" and record.best_artifact == skill
    event = Event.objects.get(type=Event.Type.DERIVED_EXCLUDED)
    assert event.artifact == skill and event.data["artifact"]["name"] == "postgres-migrations"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_mention_of_the_skill_is_not_excluded_in_any_shape(skill, tmp_path, shape):
    text = (
        "Let's follow the postgres-migrations skill for the orders table: add the column as "
        "nullable, backfill in batches, and build the index concurrently."
    )
    path = tmp_path / "input.jsonl"
    path.write_text(json.dumps(SHAPES[shape](text)) + "\n", encoding="utf-8")
    records_ingest(paths=[path])
    assert Record.objects.get().status == "evidence"
    assert not Event.objects.filter(type=Event.Type.DERIVED_EXCLUDED).exists()
