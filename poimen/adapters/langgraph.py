"""LangGraph's store with poimen in its write path (`pip install poimen[langgraph]`): what
LangMem and any graph write through `BaseStore.put`.

    from langgraph.store.memory import InMemoryStore
    from poimen.adapters.langgraph import GuardedStore
    from poimen.agent.client import Client

    store = GuardedStore(InMemoryStore(), Client(url, token))
    graph = builder.compile(store=store)

Every put is checked before the store sees it: each text in its value (a string anywhere in
it, of a shingle's words at least) is a record. A value with a text poimen excludes is not
stored; a redacted text is stored as its evidence text; the rest as it is. What a search
returns (the items' texts) is registered as the block that goes into the prompt, so that a
later put restating it is caught. Gets, lists and deletes are the store's own.
"""

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from langgraph.store.base import BaseStore, Op, PutOp, Result, SearchOp

from filter.normalise import words
from filter.shingles import DEFAULT_PARAMS
from poimen.adapters.records import INJECTED_KIND, injected_name, record_id
from poimen.agent.client import Client

SOURCE = "langgraph"


def value_texts(value: Any, path: tuple = ()) -> list[tuple[tuple, str]]:
    """Every string in a stored value that could share a shingle with an artifact (as many
    words as a shingle has, at least: a label such as "Memory" could not), with where it
    stands (keys and indexes)."""
    if isinstance(value, str):
        return [(path, value)] if len(words(value)) >= DEFAULT_PARAMS.k else []
    if isinstance(value, Mapping):
        return [found for key, item in value.items() for found in value_texts(item, (*path, key))]
    if isinstance(value, list | tuple):
        return [found for n, item in enumerate(value) for found in value_texts(item, (*path, n))]
    return []


def _replaced(value: Any, path: tuple, text: str) -> Any:
    """`value` with the string at `path` replaced by `text` (copies, never in place)."""
    if not path:
        return text
    head, rest = path[0], path[1:]
    if isinstance(value, Mapping):
        return {**value, head: _replaced(value[head], rest, text)}
    items = list(value)
    items[head] = _replaced(items[head], rest, text)
    return type(value)(items) if isinstance(value, tuple) else items


class GuardedStore(BaseStore):
    """A LangGraph `BaseStore` whose puts poimen checks; everything else is `store`'s."""

    def __init__(self, store: BaseStore, guard: Client, *, source: str = SOURCE):
        self.store, self.guard, self.source = store, guard, source
        self.supports_ttl = store.supports_ttl
        self.ttl_config = store.ttl_config

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        guarded = self._guarded(ops)
        results = self._results(ops, guarded, self.store.batch([op for op in guarded if op]))
        self._register_found(ops, results)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The client's calls block: in a thread, so the event loop runs on meanwhile.
        ops = list(ops)
        guarded = await asyncio.to_thread(self._guarded, ops)
        done = await self.store.abatch([op for op in guarded if op])
        results = self._results(ops, guarded, done)
        await asyncio.to_thread(self._register_found, ops, results)
        return results

    def _guarded(self, ops: list[Op]) -> list[Op | None]:
        """The ops as the store gets them: a put of a value holding an excluded text is
        None (not sent), a redacted text replaced by its evidence text."""
        puts = [(n, op) for n, op in enumerate(ops) if isinstance(op, PutOp) and op.value]
        sent = [(n, path, text) for n, op in puts for path, text in value_texts(dict(op.value))]
        records = [
            {
                "id": record_id(self.source, ops[n].namespace, ops[n].key, path, text),
                "text": text,
                "session": "/".join(ops[n].namespace),
                "source": self.source,
            }
            for n, path, text in sent
        ]
        checked = self.guard.check(records) if records else []
        guarded: list[Op | None] = list(ops)
        for (n, path, text), result in zip(sent, checked, strict=True):
            op = guarded[n]
            if op is None:
                continue
            if not result.keep:
                guarded[n] = None
            elif result.text_to_keep != text:
                guarded[n] = op._replace(value=_replaced(dict(op.value), path, result.text_to_keep))
        return guarded

    @staticmethod
    def _results(ops, guarded, done) -> list[Result]:
        """The store's results in the order of `ops` (None for a put not sent, as for one)."""
        answers = iter(done)
        return [next(answers) if op else None for op in guarded]

    def _register_found(self, ops: list[Op], results: list[Result]) -> None:
        for op, result in zip(ops, results, strict=True):
            if not isinstance(op, SearchOp) or not result:
                continue
            block = "\n".join(text for item in result for _, text in value_texts(item.value))
            if block.strip():
                self.guard.register(INJECTED_KIND, injected_name(self.source, block), block)
