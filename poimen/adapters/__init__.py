"""poimen inside memory systems' own write paths: one small module per system, each behind an
extra (`pip install poimen[mem0]`, `poimen[langgraph]`, `poimen[mcp]`), each speaking to the
API through poimen.agent.client, so nothing here imports Django. docs/adapters.md shows each.

May import: filter, poimen.agent.
"""
