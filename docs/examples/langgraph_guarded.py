"""LangGraph's store (what LangMem writes through) with poimen in its write path:
docs/adapters.md.

    pip install 'poimen[langgraph]'
    POIMEN_URL=http://127.0.0.1:8000 POIMEN_TOKEN=poimen_... \
        python docs/examples/langgraph_guarded.py
"""

import os

from langgraph.store.memory import InMemoryStore

from poimen.adapters.langgraph import GuardedStore
from poimen.agent.client import Client

guard = Client(os.environ["POIMEN_URL"], os.environ["POIMEN_TOKEN"], timeout=2.0)
store = GuardedStore(InMemoryStore(), guard)  # then builder.compile(store=store)

namespace = ("memories", "ana")
store.put(namespace, "m1", {"content": "Ana cuts release branches on Thursdays, never Fridays."})
for item in store.search(namespace):  # what a search returns is registered as injected
    print(item.key, item.value)
