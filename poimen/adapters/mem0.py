"""mem0 with poimen in its write path (`pip install poimen[mem0]`).

    from mem0 import Memory
    from poimen.adapters.mem0 import GuardedMemory
    from poimen.agent.client import Client

    memory = GuardedMemory(Memory(), Client(url, token))
    found = memory.search(question, filters={"user_id": "ana"})  # the block is registered
    memory.add(messages, user_id="ana")  # what copies an artifact or the block never reaches mem0

`add` checks the messages before mem0 sees them: an excluded message is withheld, a redacted
one passes its evidence text alone, and the memory's metadata carries poimen's decision
(`metadata["poimen"]`). `search` registers what it returns, as the block that goes into the
prompt, so that a later transcript restating that block is caught. Everything else is mem0's.
"""

from typing import Any

from poimen.adapters.records import INJECTED_KIND, decision_metadata, injected_name, record_id
from poimen.agent.client import Client

SOURCE = "mem0"


def memories_block(found: dict | list) -> str:
    """The memories a search found as they go into a prompt, one per line (mem0's own
    examples write them so)."""
    results = found.get("results", []) if isinstance(found, dict) else found
    return "\n".join(f"- {item['memory']}" for item in results if item.get("memory"))


def _messages(messages) -> list[dict]:
    """mem0's three shapes of `messages` as its list of role/content dicts."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, dict):
        return [messages]
    return list(messages)


class GuardedMemory:
    """A mem0 `Memory` (or anything with its add and search) checked by poimen."""

    def __init__(self, memory, guard: Client, *, source: str = SOURCE):
        self.memory, self.guard, self.source = memory, guard, source

    def add(self, messages, *, metadata: dict | None = None, **kwargs) -> dict:
        """mem0's add of what poimen leaves: its answer, with `poimen` (each message's
        decision, withheld ones too). Messages whose content is not text (images) pass as
        they are; nothing reaches mem0 when every message is withheld."""
        messages = _messages(messages)
        scope = kwargs.get("run_id") or kwargs.get("agent_id") or kwargs.get("user_id")
        texts = [(n, m) for n, m in enumerate(messages) if isinstance(m, dict) and _is_text(m)]
        records = [
            {
                "id": record_id(self.source, scope, m.get("role"), m["content"]),
                "text": m["content"],
                "role": m.get("role"),
                "session": None if scope is None else str(scope),
                "source": self.source,
            }
            for _, m in texts
        ]
        results = self.guard.check(records) if records else []
        decided = {n: result for (n, _), result in zip(texts, results, strict=True)}
        kept = []
        for n, message in enumerate(messages):
            result = decided.get(n)
            if result is None:
                kept.append(message)
            elif result.keep:
                kept.append({**message, "content": result.text_to_keep})
        decisions = [decision_metadata(result) for result in results]
        answer: dict[str, Any] = {"results": []}
        if kept:
            kept_decisions = [decision_metadata(r) for r in results if r.keep]
            metadata = {**(metadata or {}), "poimen": kept_decisions}
            answer = self.memory.add(kept, metadata=metadata, **kwargs)
        return {**answer, "poimen": decisions}

    def search(self, query: str, **kwargs) -> dict:
        """mem0's search; what it found is registered as the block injected into the
        prompt (a block registered before is not registered again)."""
        found = self.memory.search(query, **kwargs)
        block = memories_block(found)
        if block:
            self.guard.register(INJECTED_KIND, injected_name(self.source, block), block)
        return found

    def __getattr__(self, name):
        return getattr(self.memory, name)


def _is_text(message: dict) -> bool:
    return isinstance(message.get("content"), str) and bool(message["content"].strip())
