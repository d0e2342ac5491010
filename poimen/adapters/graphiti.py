"""Graphiti with poimen in its write path (`pip install poimen[graphiti]`).

    from graphiti_core import Graphiti
    from poimen.adapters.graphiti import GuardedGraphiti
    from poimen.agent.client import Client

    graphiti = GuardedGraphiti(Graphiti(...), Client(url, token))
    facts = await graphiti.search("where does staging live?")  # the facts are registered
    await graphiti.add_episode(name=..., episode_body=..., source_description=...,
                               reference_time=...)  # None: withheld, a copy

`add_episode` (and `add_episode_bulk`) check each episode's body before Graphiti sees it: an
excluded one is withheld (`add_episode` answers None, and Graphiti's LLM never reads it), a
redacted one passes its evidence text alone. `search` registers the facts it returns, as the
block that goes into the prompt, so that a later episode restating them is caught. Everything
else is Graphiti's. The client's calls block, so they run in a thread.
"""

import asyncio

from poimen.adapters.records import INJECTED_KIND, injected_name, record_id
from poimen.agent.client import CheckResult, Client

SOURCE = "graphiti"


def facts_block(edges) -> str:
    """The facts a search found as they go into a prompt, one per line (Graphiti's own
    examples write them so)."""
    return "\n".join(f"- {edge.fact}" for edge in edges if getattr(edge, "fact", None))


class GuardedGraphiti:
    """A `Graphiti` (or anything with its add_episode and search) checked by poimen."""

    def __init__(self, graphiti, guard: Client, *, source: str = SOURCE):
        self.graphiti, self.guard, self.source = graphiti, guard, source

    async def add_episode(self, name: str, episode_body: str, *args, **kwargs):
        """Graphiti's add_episode of what poimen leaves of the body; None when the body is
        withheld (a copy of an artifact or of an injected block)."""
        group_id = kwargs.get("group_id")
        (result,) = await self._checked([(name, episode_body, group_id)])
        if not result.keep:
            return None
        return await self.graphiti.add_episode(name, result.text_to_keep, *args, **kwargs)

    async def add_episode_bulk(self, bulk_episodes, *args, **kwargs):
        """Graphiti's add_episode_bulk of the episodes poimen keeps (their kept text)."""
        group_id = kwargs.get("group_id")
        episodes = list(bulk_episodes)
        sent = [(e.name, e.content, group_id) for e in episodes]
        results = await self._checked(sent)
        kept = [
            e if r.text_to_keep == e.content else e.model_copy(update={"content": r.text_to_keep})
            for e, r in zip(episodes, results, strict=True)
            if r.keep
        ]
        if not kept:
            return None
        return await self.graphiti.add_episode_bulk(kept, *args, **kwargs)

    async def search(self, query: str, *args, **kwargs):
        """Graphiti's search; the facts it found are registered as the block injected into
        the prompt (a block registered before is not registered again)."""
        edges = await self.graphiti.search(query, *args, **kwargs)
        block = facts_block(edges)
        if block:
            name = injected_name(self.source, block)
            await asyncio.to_thread(self.guard.register, INJECTED_KIND, name, block)
        return edges

    async def _checked(self, episodes: list[tuple]) -> list[CheckResult]:
        records = [
            {
                "id": record_id(self.source, group_id, name, body),
                "text": body,
                "session": None if group_id is None else str(group_id),
                "source": self.source,
            }
            for name, body, group_id in episodes
        ]
        return await asyncio.to_thread(self.guard.check, records)

    def __getattr__(self, name):
        return getattr(self.graphiti, name)
