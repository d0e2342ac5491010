"""LangGraph's store (the real library's InMemoryStore) behind poimen's GuardedStore: a put
copying an artifact is not stored, a pasted passage is cut, a search's block is registered
and a put restating it caught; sync and async alike."""

import asyncio

import pytest

from poimen.models import Artifact, Record
from tests.conftest import UNRELATED, demo_skill

pytest.importorskip("langgraph", reason="pip install -e '.[langgraph]'")

from langgraph.store.memory import InMemoryStore  # noqa: E402

from poimen.adapters.langgraph import GuardedStore, value_texts  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)
NAMESPACE = ("memories", "ana")


@pytest.fixture
def store(guard):
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    return GuardedStore(InMemoryStore(), guard)


def test_value_texts_finds_every_text_where_it_stands():
    five = "one two three four five"
    value = {"kind": "Memory", "content": {"text": five, "tags": ["b", 3, five, " "]}}
    assert value_texts(value) == [(("content", "text"), five), (("content", "tags", 2), five)]


def test_a_copy_is_not_stored_and_evidence_is(store):
    store.put(NAMESPACE, "genuine", {"content": UNRELATED})
    store.put(NAMESPACE, "copy", {"kind": "Memory", "content": demo_skill("release-notes")})
    assert store.get(NAMESPACE, "genuine").value == {"content": UNRELATED}
    assert store.get(NAMESPACE, "copy") is None
    assert set(Record.objects.values_list("source", "status")) >= {
        ("langgraph", "evidence"),
        ("langgraph", "excluded"),
    }


def test_a_pasted_passage_is_cut_and_the_rest_stored(store):
    skill = demo_skill("release-notes")
    store.put(NAMESPACE, "mixed", {"kind": "Memory", "content": f"{UNRELATED}\n\n{skill}"})
    kept = store.get(NAMESPACE, "mixed").value
    assert kept["kind"] == "Memory"
    assert UNRELATED.split(".")[0] in kept["content"]
    assert len(kept["content"]) < len(UNRELATED) + len(skill) / 2
    assert Record.objects.filter(status="redacted").count() == 1


def test_a_search_block_is_registered_and_a_restatement_caught(store):
    facts = [UNRELATED, UNRELATED.replace("backup", "restore").replace("replica", "primary")]
    for n, fact in enumerate(facts):
        store.put(NAMESPACE, f"fact-{n}", {"content": fact})
    found = store.search(NAMESPACE)
    assert len(found) == 2
    block = Artifact.objects.get(kind="memory")
    assert block.name.startswith("langgraph-injected/")
    store.put(("memories", "ana", "chat"), "turn-9", {"content": "You told me:\n" + block.text})
    assert store.get(("memories", "ana", "chat"), "turn-9") is None


def test_the_async_path_is_guarded_too(store):
    async def run():
        await store.aput(NAMESPACE, "copy", {"content": demo_skill("release-notes")})
        await store.aput(NAMESPACE, "genuine", {"content": UNRELATED})
        return await store.aget(NAMESPACE, "copy"), await store.aget(NAMESPACE, "genuine")

    copy, genuine = asyncio.run(run())
    assert copy is None and genuine.value == {"content": UNRELATED}


@pytest.mark.parametrize("example", ["langgraph_guarded.py"])
def test_the_documented_example_runs(live_server, guard_token, example):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "docs" / "examples" / example
    done = subprocess.run(
        [sys.executable, str(script)],
        env={"POIMEN_URL": live_server.url, "POIMEN_TOKEN": guard_token, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Thursdays" in done.stdout
    assert Record.objects.filter(source="langgraph").count() == 1


def test_a_guard_that_is_down_fails_closed_with_raise_and_open_by_default(guard_down):
    from poimen.agent.client import PoimenError

    closed = GuardedStore(InMemoryStore(), guard_down("raise"))
    with pytest.raises(PoimenError):
        closed.put(NAMESPACE, "note", {"content": UNRELATED})
    with pytest.raises(PoimenError):
        asyncio.run(closed.aput(NAMESPACE, "note", {"content": UNRELATED}))
    assert closed.get(NAMESPACE, "note") is None  # nothing stored unchecked

    opened = GuardedStore(InMemoryStore(), guard_down("allow"))
    opened.put(NAMESPACE, "note", {"content": UNRELATED})
    assert opened.get(NAMESPACE, "note").value == {"content": UNRELATED}
