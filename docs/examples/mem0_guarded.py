"""mem0 with poimen in its write path: docs/adapters.md.

    pip install 'poimen[mem0]'
    POIMEN_URL=http://127.0.0.1:8000 POIMEN_TOKEN=poimen_... OPENAI_API_KEY=... \
        python docs/examples/mem0_guarded.py

OPENAI_BASE_URL points mem0 at any OpenAI-compatible service instead (a local model).
"""

import os

from mem0 import Memory

from poimen.adapters.mem0 import GuardedMemory, memories_block
from poimen.agent.client import Client

guard = Client(os.environ["POIMEN_URL"], os.environ["POIMEN_TOKEN"], timeout=2.0)
memory = GuardedMemory(Memory(), guard)

# What mem0 found goes into the prompt, and poimen registers it as the injected block.
found = memory.search("How does Ana like her releases?", filters={"user_id": "ana"})
prompt = "What you remember about the user:\n" + memories_block(found)

# After the turn: what copies a skill or restates that block never becomes a memory.
answer = memory.add(
    [
        {"role": "user", "content": "Cut the release branch on Thursday, as usual."},
        {"role": "assistant", "content": "Done: release/4.2 is cut."},
    ],
    user_id="ana",
)
for decision in answer["poimen"]:
    print(decision["status"], decision.get("matched", ""))
