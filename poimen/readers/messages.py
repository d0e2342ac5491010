"""JSON documents of messages, pretty-printed or not, and the dispatch of a JSON document.

- an array of {"role", "content"} messages, or an object with "messages" (OpenAI's chat
  completions and Anthropic's messages API shapes): content a string or a list of blocks
  (text, image, tool_use / tool_calls, tool_result / a "tool" message);
- Gemini: {"role": "user"|"model", "parts": [{"text"}, {"functionCall"},
  {"functionResponse"}]} messages, as an array (Gemini CLI's `/chat save` checkpoints) or
  under "contents" (the API's request shape);
- ChatGPT's conversations.json (chatgpt.py), Gemini CLI's session files (gemini_cli.py), Cline
  and Roo task folders' companion files and Continue's sessions (cline.py).
A message's text blocks are one record; each tool result is a record of its own, named by the
call it answers. These shapes carry no ids: records are keyed by file and content.
"""

import json
from collections.abc import Iterator

from poimen.readers.base import FileContext, Item, as_str
from poimen.readers.chatgpt import is_chatgpt_conversation, read_conversations
from poimen.readers.cline import (
    cline_companion,
    continue_messages,
    is_continue_session,
    task_session,
)
from poimen.readers.gemini_cli import is_gemini_cli_session, read_session

MESSAGES, GEMINI, CONTINUE = "messages", "gemini", "continue"
TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})


def _is_message(value) -> bool:
    return isinstance(value, dict) and "role" in value and ("content" in value or "parts" in value)


def read_json_document(value, ctx: FileContext) -> Iterator[Item] | None:
    """The items of a JSON document, or None when it is none of the shapes above."""
    if isinstance(value, list) and value and all(is_chatgpt_conversation(v) for v in value[:5]):
        return read_conversations(value, ctx)
    if is_chatgpt_conversation(value):
        return read_conversations([value], ctx)
    if is_gemini_cli_session(value) and isinstance(value.get("messages"), list):
        return read_session(value, ctx)
    if companion := cline_companion(value):
        return iter([ctx.skip(companion)])
    if is_continue_session(value):
        return _read_messages(continue_messages(value), ctx, value["sessionId"], fmt=CONTINUE)
    if isinstance(value, dict):
        for key in ("messages", "contents", "history"):
            if isinstance(value.get(key), list) and any(map(_is_message, value[key][:5])):
                session = as_str(value.get("sessionId") or value.get("id"))
                return _read_messages(value[key], ctx, session, system=value.get("system"))
        return None
    if isinstance(value, list) and value and any(map(_is_message, value[:5])):
        return _read_messages(value, ctx, "")
    return None


def _read_messages(
    messages: list, ctx: FileContext, session: str, system=None, fmt=None
) -> Iterator[Item]:
    # A Cline task's history is of the messages format (known by content); its session is
    # the task its folder names.
    session = session or task_session(ctx) or ctx.stem
    if fmt is None:
        gemini = any(isinstance(m, dict) and "parts" in m for m in messages[:5])
        fmt = GEMINI if gemini else MESSAGES
    # Anthropic's system prompt sits beside the messages: what the model loaded, so a record.
    if isinstance(system, list):
        system = _joined_text(system)
    if isinstance(system, str) and system.strip():
        yield _record(ctx, fmt, system, "system", None, session, None)
    tools: dict[str, str] = {}
    for turn, message in enumerate(messages):
        ctx.place = f"message {turn}"
        if not _is_message(message):
            yield ctx.problem(f"message {turn}: not a {{role, content}} message", line=None)
            continue
        role = as_str(message["role"])
        pieces = []  # (role, text, tool)
        if "parts" in message:
            blocks = message["parts"] if isinstance(message["parts"], list) else []
            yield from _gemini_parts(blocks, role, pieces, ctx)
        else:
            yield from _blocks(message, role, tools, pieces, ctx)
        texts = [text for piece_role, text, _ in pieces if piece_role == role != "tool"]
        if texts:
            yield _record(ctx, fmt, "\n\n".join(texts), role, turn, session, None)
        for piece_role, text, tool in pieces:
            if piece_role == "tool":
                yield _record(ctx, fmt, text, piece_role, turn, session, tool)


def _record(ctx, fmt, text, role, turn, session, tool):
    return ctx.candidate(
        fmt=fmt,
        text=text,
        external_id=ctx.content_id(text),
        session=session,
        role=role,
        position=turn,
        turn=turn,
        tool=tool,
    )


def _blocks(message: dict, role: str, tools: dict, pieces: list, ctx) -> Iterator[Item]:
    """OpenAI and Anthropic content: text pieces of the message's role, tool results as
    "tool" pieces; the rest is skipped."""
    for call in message.get("tool_calls") or []:  # OpenAI: the assistant's calls
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            tools[as_str(call.get("id"))] = as_str(function.get("name"))
        yield ctx.skip("tool_calls entry")
    content = message.get("content")
    if role == "tool":  # OpenAI: a tool message answers one call
        tool = tools.get(as_str(message.get("tool_call_id"))) or as_str(message.get("name"))
        text = content if isinstance(content, str) else _joined_text(content)
        if text and text.strip():
            pieces.append(("tool", text, tool or None))
        return
    if isinstance(content, str):
        if content.strip():
            pieces.append((role, content, None))
        return
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in TEXT_BLOCKS and isinstance(block.get("text"), str) and block["text"].strip():
            pieces.append((role, block["text"], None))
        elif kind == "tool_use":
            tools[as_str(block.get("id"))] = as_str(block.get("name"))
            yield ctx.skip("tool_use block")
        elif kind == "tool_result":
            result = block.get("content")
            text = result if isinstance(result, str) else _joined_text(result)
            if text and text.strip():
                pieces.append(("tool", text, tools.get(as_str(block.get("tool_use_id")))))
            else:
                yield ctx.skip("empty tool_result block")
        else:
            yield ctx.skip(f"{kind or 'untyped'} block")


def _joined_text(blocks) -> str:
    if not isinstance(blocks, list):
        return ""
    return "\n".join(
        b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)
    )


def _gemini_parts(parts: list, role: str, pieces: list, ctx) -> Iterator[Item]:
    for part in parts:
        if not isinstance(part, dict):
            yield ctx.skip("untyped part")
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            if part["text"].strip():
                pieces.append((role, part["text"], None))
        elif isinstance(part.get("functionResponse"), dict):
            response = part["functionResponse"]
            body = response.get("response")
            output = body.get("output", body.get("content")) if isinstance(body, dict) else body
            text = output if isinstance(output, str) else json.dumps(body, ensure_ascii=False)
            if text.strip():
                pieces.append(("tool", text, as_str(response.get("name")) or None))
        else:
            kind = "thought" if part.get("thought") else next(iter(part), "empty")
            yield ctx.skip(f"{kind} part")
