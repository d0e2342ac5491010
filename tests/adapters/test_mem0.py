"""mem0's Memory (the real library) with poimen in its write path: what copies a registered
artifact or restates the block a search injected never becomes a memory; the rest is stored
with poimen's decision in its metadata."""

import os

import pytest

from poimen.models import Artifact, Record
from tests.adapters.openai_standin import DIMENSIONS
from tests.conftest import UNRELATED, demo_skill

os.environ.setdefault("MEM0_TELEMETRY", "false")
mem0 = pytest.importorskip("mem0", reason="pip install -e '.[mem0]'")

from poimen.adapters.mem0 import GuardedMemory, memories_block  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)

FACTS = [
    "Ana keeps the staging database on the second replica because the first one is reserved "
    "for the nightly analytics export that the finance team reads every Monday morning.",
    "Ana prefers release branches cut on Thursdays so that the weekend on-call engineer has a "
    "quiet Friday to watch the canary dashboards before the rollout reaches every region.",
    "Ana wants every migration reviewed by two people when it touches the billing schema, "
    "after the outage in March when a dropped index slowed the invoice run for six hours.",
]


@pytest.fixture
def memory(openai_standin, tmp_path):
    config = {
        "llm": {
            "provider": "openai",
            "config": {
                "model": "standin",
                "api_key": "standin",
                "openai_base_url": openai_standin.url,
            },
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "standin",
                "api_key": "standin",
                "openai_base_url": openai_standin.url,
                "embedding_dims": DIMENSIONS,
            },
        },
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": "memories",
                "path": str(tmp_path / "qdrant"),
                "embedding_model_dims": DIMENSIONS,
            },
        },
        "history_db_path": str(tmp_path / "history.db"),
    }
    return mem0.Memory.from_config(config)


def _stored(memory) -> list[dict]:
    return memory.get_all(filters={"user_id": "ana"})["results"]


def test_a_copy_of_a_skill_is_withheld_and_the_rest_stored_with_the_decision(memory, guard):
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    guarded = GuardedMemory(memory, guard)
    answer = guarded.add(
        [
            {"role": "user", "content": UNRELATED},
            {"role": "assistant", "content": demo_skill("release-notes")},
        ],
        user_id="ana",
        infer=False,
    )
    assert [d["status"] for d in answer["poimen"]] == ["evidence", "excluded"]
    stored = _stored(memory)
    assert [m["memory"] for m in stored] == [UNRELATED]
    assert stored[0]["metadata"]["poimen"][0]["status"] == "evidence"
    # poimen stored both records, the copy excluded, under the adapter's source
    assert set(Record.objects.values_list("source", "status")) == {
        ("mem0", "evidence"),
        ("mem0", "excluded"),
    }
    again = guarded.add([{"role": "user", "content": UNRELATED}], user_id="ana", infer=False)
    assert again["poimen"][0]["status"] == "evidence"
    assert Record.objects.count() == 2  # a resend adds nothing on poimen's side


def test_the_block_a_search_injects_is_registered_and_a_restatement_of_it_caught(memory, guard):
    guarded = GuardedMemory(memory, guard)
    guarded.add([{"role": "user", "content": fact} for fact in FACTS], user_id="ana", infer=False)
    assert len(_stored(memory)) == 3

    found = guarded.search("Ana database release migration", filters={"user_id": "ana"})
    block = memories_block(found)
    assert len(found["results"]) == 3
    injected = Artifact.objects.get(kind="memory")
    assert injected.text == block and injected.name.startswith("mem0-injected/")
    guarded.search("Ana database release migration", filters={"user_id": "ana"})
    assert Artifact.objects.filter(kind="memory").count() == 1  # the same block, once

    # The model restates the injected block in its answer; the transcript is added.
    restated = "Here is what I remember about you:\n" + block.replace("- ", "* ")
    answer = guarded.add(
        [
            {"role": "user", "content": "What do you remember about my setup?"},
            {"role": "assistant", "content": restated},
        ],
        user_id="ana",
        infer=False,
    )
    statuses = [d["status"] for d in answer["poimen"]]
    assert statuses[0] == "evidence" and statuses[1] in ("excluded", "redacted")
    assert answer["poimen"][1]["matched"] == injected_name_of(injected)
    texts = [m["memory"] for m in _stored(memory)]
    assert len(texts) == 4 and not any(FACTS[0] in t for t in texts if t not in FACTS)


def injected_name_of(artifact) -> str:
    return f"{artifact.kind}/{artifact.name}"


def test_with_inference_only_the_evidence_reaches_the_model(memory, guard, openai_standin):
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    openai_standin.reply = {"memory": [{"text": "Ana's replica filled up with WAL files"}]}
    answer = GuardedMemory(memory, guard).add(
        [
            {"role": "user", "content": UNRELATED},
            {"role": "assistant", "content": demo_skill("release-notes")},
        ],
        user_id="ana",
    )
    assert [d["status"] for d in answer["poimen"]] == ["evidence", "excluded"]
    prompts = [str(body["messages"]) for path, body in openai_standin.requests if "chat" in path]
    assert prompts and all("nightly backup" in p for p in prompts)
    skill_line = demo_skill("release-notes").splitlines()[-1]
    assert not any(skill_line in p for p in prompts)
    assert [m["memory"] for m in _stored(memory)] == ["Ana's replica filled up with WAL files"]


def test_everything_withheld_reaches_nothing(memory, guard):
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    answer = GuardedMemory(memory, guard).add(
        demo_skill("release-notes"), user_id="ana", infer=False
    )
    assert answer["results"] == [] and answer["poimen"][0]["status"] == "excluded"
    assert _stored(memory) == []


def test_a_guard_that_is_down_fails_closed_with_raise_and_open_by_default(memory, guard_down):
    from poimen.agent.client import PoimenError

    closed = GuardedMemory(memory, guard_down("raise"))
    with pytest.raises(PoimenError):
        closed.add([{"role": "user", "content": FACTS[0]}], user_id="ana", infer=False)
    assert _stored(memory) == []  # nothing reached mem0 unchecked

    opened = GuardedMemory(memory, guard_down("allow"))
    added = opened.add([{"role": "user", "content": FACTS[0]}], user_id="ana", infer=False)
    assert [d["status"] for d in added["poimen"]] == ["unchecked"]
    assert [m["memory"] for m in _stored(memory)] == [FACTS[0]]
