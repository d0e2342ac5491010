"""ChatGPT's data export, conversations.json: a JSON array of conversations.

Each conversation holds its messages as a `mapping` tree (node id -> {"message", "parent",
"children"}); an edited prompt or a regenerated answer is a branch. The branch the user saw
ends at `current_node`: it is followed back to the root and read in order. A message's
`content` is "text" or "multimodal_text" (its `parts`: strings, image pointers), "code" (what
the model ran), "execution_output" (what the tool printed), browsing results, or context and
thoughts that are skipped and counted.
"""

from collections.abc import Iterator
from datetime import UTC, datetime

from poimen.readers.base import FileContext, Item, as_str

CHATGPT = "chatgpt"
TEXT_CONTENT = frozenset({"text", "multimodal_text"})
TOOL_TEXT_CONTENT = {"code": "text", "execution_output": "text", "tether_quote": "text"}


def is_chatgpt_conversation(value) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict)


def read_conversations(conversations: list, ctx: FileContext) -> Iterator[Item]:
    for number, conversation in enumerate(conversations):
        if not is_chatgpt_conversation(conversation):
            yield ctx.problem(f"conversation {number}: no mapping tree", line=None)
            continue
        yield from _conversation(conversation, number, ctx)


def _conversation(conversation: dict, number: int, ctx: FileContext) -> Iterator[Item]:
    mapping = conversation["mapping"]
    conversation_id = as_str(conversation.get("conversation_id") or conversation.get("id"))
    branch, node_id, seen = [], conversation.get("current_node"), set()
    if node_id not in mapping:  # an export without current_node: the last leaf
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        node_id = leaves[-1] if leaves else None
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        branch.append(node_id)
        node = mapping[node_id]
        node_id = node.get("parent") if isinstance(node, dict) else None
    branch.reverse()
    session = conversation_id or f"conversation {number}"
    for turn, node_id in enumerate(branch):
        ctx.place = f"conversation {number}, node {node_id}"
        node = mapping[node_id]
        message = node.get("message") if isinstance(node, dict) else None
        if not isinstance(message, dict):
            continue  # the root: a node without a message
        yield from _message(message, node_id, turn, session, conversation, ctx)


def _message(message, node_id, turn, session, conversation, ctx) -> Iterator[Item]:
    author = message.get("author") if isinstance(message.get("author"), dict) else {}
    role = as_str(author.get("role"))
    content = message.get("content") if isinstance(message.get("content"), dict) else {}
    content_type = as_str(content.get("content_type")) or "untyped"
    metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    if metadata.get("is_visually_hidden_from_conversation"):
        yield ctx.skip(f"hidden {role or 'untyped'} message")
        return
    tool = as_str(author.get("name")) if role == "tool" else None
    if content_type in TEXT_CONTENT:
        parts = []
        for part in content.get("parts") or []:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])  # an audio transcription
            else:
                kind = part.get("content_type") if isinstance(part, dict) else None
                yield ctx.skip(f"{kind or 'untyped'} part")
        text = "\n".join(parts)
    elif content_type in TOOL_TEXT_CONTENT:
        text = content.get(TOOL_TEXT_CONTENT[content_type])
        tool = tool or as_str(message.get("recipient")) or content_type
    elif content_type == "tether_browsing_display":
        text, tool = content.get("result"), tool or "browser"
    else:
        yield ctx.skip(f"{content_type} message")
        return
    if not isinstance(text, str) or not text.strip():
        yield ctx.skip(f"empty {role or 'untyped'} message")
        return
    yield ctx.candidate(
        fmt=CHATGPT,
        text=text,
        external_id=f"{session}/{node_id}",
        identity=f"{CHATGPT}:{session}/{node_id}" if as_str(node_id) else "",
        session=session,
        role=role,
        position=turn,
        turn=turn,
        node=node_id,
        title=as_str(conversation.get("title")),
        content_type=content_type,
        tool=tool,
        timestamp=_when(message.get("create_time")),
    )


def _when(seconds) -> str | None:
    if isinstance(seconds, int | float) and not isinstance(seconds, bool):
        try:
            return datetime.fromtimestamp(seconds, UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return None
