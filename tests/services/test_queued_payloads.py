"""A queued batch's records as they wait in the broker: what is packed is what a worker reads."""

import dataclasses
import json

import pytest

from poimen.readers import Candidate
from poimen.services.queued_payloads import payload_pack, payload_unpack


def candidate(number: int, text: str, **fields) -> Candidate:
    return Candidate(
        source="transcripts",
        external_id=f"rec-{number}",
        source_path="/var/spool/agents/session.jsonl",
        position=number,
        session="s-1",
        role="assistant",
        text=text,
        **fields,
    )


def test_a_packed_batch_unpacks_to_the_same_candidates():
    batch = [
        candidate(1, "plain ASCII text\nover two lines"),
        candidate(2, "non-ASCII: naïve café, 日本語, a 😀 and a \\u0000 spelt out"),
        candidate(3, "", identity="session-uuid:message-uuid"),
        candidate(4, "nested", metadata={"model": "m", "tools": [{"name": "é", "n": 2}]}),
        dataclasses.replace(candidate(5, "read from no line"), position=None),
    ]
    assert payload_unpack(payload_pack(batch)) == batch


def test_a_batch_packed_by_another_version_of_poimen_is_refused_by_name():
    packed = payload_pack([candidate(1, "text")])
    head, texts = packed.split(b"\n", 1)
    other = json.loads(head)
    other["fields"] = [*other["fields"], "added_later"]
    with pytest.raises(ValueError, match="added_later.*same version of poimen"):
        payload_unpack(json.dumps(other).encode() + b"\n" + texts)
