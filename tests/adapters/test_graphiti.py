"""Graphiti (the real library, on its embedded Kuzu graph) behind poimen's GuardedGraphiti: an
episode copying an artifact never reaches the graph, a pasted passage is cut, the facts a
search returns are registered and an episode restating them caught; fail-closed holds."""

import asyncio
import os
import warnings
from datetime import UTC, datetime

import pytest

from poimen.models import Artifact, Record
from tests.conftest import UNRELATED, demo_skill

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
pytest.importorskip("graphiti_core", reason="pip install -e '.[graphiti]'")
pytest.importorskip("kuzu", reason="pip install -e '.[graphiti]'")

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.driver.driver import GraphProvider  # noqa: E402
from graphiti_core.driver.kuzu_driver import KuzuDriver  # noqa: E402
from graphiti_core.graph_queries import get_fulltext_indices  # noqa: E402

from poimen.adapters.graphiti import GuardedGraphiti, facts_block  # noqa: E402
from poimen.agent.client import PoimenError  # noqa: E402
from tests.adapters.graphiti_standin import (  # noqa: E402
    StandInEmbedder,
    StandInLLM,
    StandInReranker,
)

pytestmark = pytest.mark.django_db(transaction=True)

FACT = (
    "Ana keeps the staging database on the second replica because the first one is reserved "
    "for the nightly analytics export that the finance team reads every Monday morning."
)


@pytest.fixture
def graphiti(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Kuzu's, in graphiti-core 0.31
        driver = KuzuDriver(db=str(tmp_path / "graph"))
    graph = Graphiti(
        graph_driver=driver,
        llm_client=StandInLLM(),
        embedder=StandInEmbedder(),
        cross_encoder=StandInReranker(),
    )

    async def indices():
        # The full-text indices graphiti-core's Kuzu driver does not build itself (its
        # build_indices_and_constraints is a no-op), from the library's own queries.
        for query in get_fulltext_indices(GraphProvider.KUZU):
            await driver.execute_query(query)

    asyncio.run(indices())
    return graph


def _add(guarded, name, body):
    return asyncio.run(
        guarded.add_episode(
            name=name,
            episode_body=body,
            source_description="chat",
            reference_time=datetime.now(UTC),
        )
    )


def _episodes(graph) -> list[str]:
    found = asyncio.run(graph.retrieve_episodes(datetime.now(UTC), last_n=20))
    return sorted(episode.content for episode in found)


def test_a_copy_is_withheld_and_evidence_stored(graphiti, guard):
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    guarded = GuardedGraphiti(graphiti, guard)
    assert _add(guarded, "copy", demo_skill("release-notes")) is None
    assert _add(guarded, "genuine", UNRELATED).episode.content == UNRELATED
    assert _episodes(graphiti) == [UNRELATED]
    assert set(Record.objects.values_list("source", "status")) == {
        ("graphiti", "evidence"),
        ("graphiti", "excluded"),
    }


def test_a_pasted_passage_is_cut_and_the_rest_stored(graphiti, guard):
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    guarded = GuardedGraphiti(graphiti, guard)
    added = _add(guarded, "pasted", f"{UNRELATED}\n\n{demo_skill('release-notes')}")
    assert UNRELATED in added.episode.content
    assert demo_skill("release-notes") not in added.episode.content
    assert Record.objects.get(source="graphiti").status == "redacted"


def test_the_facts_a_search_returns_are_registered_and_a_restatement_caught(graphiti, guard):
    guarded = GuardedGraphiti(graphiti, guard)
    _add(guarded, "fact", FACT)
    edges = asyncio.run(guarded.search("staging database replica"))
    assert [edge.fact for edge in edges] == [FACT]
    injected = Artifact.objects.get(kind="memory")
    assert injected.text == facts_block(edges) and injected.name.startswith("graphiti-injected/")
    restated = f"What you remember:\n{facts_block(edges)}\nThanks, noted."
    assert _add(guarded, "restated", restated) is None
    assert _episodes(graphiti) == [FACT]


def test_bulk_episodes_are_guarded_too(graphiti, guard):
    from graphiti_core.nodes import EpisodeType
    from graphiti_core.utils.bulk_utils import RawEpisode

    guard.register("skill", "release-notes", demo_skill("release-notes"))
    guarded = GuardedGraphiti(graphiti, guard)
    episodes = [
        RawEpisode(
            name=name,
            content=text,
            source=EpisodeType.message,
            source_description="chat",
            reference_time=datetime.now(UTC),
        )
        for name, text in [("copy", demo_skill("release-notes")), ("genuine", UNRELATED)]
    ]
    asyncio.run(guarded.add_episode_bulk(episodes))
    assert _episodes(graphiti) == [UNRELATED]


def test_a_guard_that_is_down_fails_closed_with_raise_and_open_by_default(graphiti, guard_down):
    with pytest.raises(PoimenError):
        _add(GuardedGraphiti(graphiti, guard_down("raise")), "note", UNRELATED)
    assert _episodes(graphiti) == []  # nothing reached the graph unchecked
    assert _add(GuardedGraphiti(graphiti, guard_down("allow")), "note", UNRELATED)
    assert _episodes(graphiti) == [UNRELATED]
