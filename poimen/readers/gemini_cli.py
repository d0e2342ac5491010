"""Gemini CLI session files: ~/.gemini/tmp/<project hash>/chats/session-*.json, and since
0.39 the append-only session-*.jsonl (a sub-agent's in chats/<parent session id>/<id>.jsonl).

The JSON form is one object {sessionId, projectHash, startTime, lastUpdated, messages}. The
JSONL form starts with that object's metadata line (no messages) and appends each message as
a line, again under the same "id" each time it changes (its tool calls' results arrive so):
the last version counts, in the place of the first; {"$rewindTo": id} drops that message and
every later one (all of them when the id is unknown); {"$set": {...}} updates the metadata,
and a "messages" list there replaces the messages. This is how Gemini CLI's own loader reads
the file (chatRecordingService.ts, loadConversationRecord).

A message is {id, timestamp, type: user | gemini | info | error | warning, content (text, or
a list of parts with "text"), thoughts, toolCalls: [{id, name, args, result: [{
functionResponse: {id, name, response: {output}}}], status}], tokens, model}. A user or gemini
message's text is a record (role user or assistant); each tool call's result is a record of
its own (role tool, the tool's name); the calls, thoughts and info, error and warning messages
are skipped. `turn` counts conversation turns: it moves on at each user message.
"""

import json
from collections.abc import Iterable, Iterator

from poimen.readers.base import FileContext, Item, as_str

GEMINI_CLI = "gemini-cli"
ROLES = {"user": "user", "gemini": "assistant"}


def is_gemini_cli_session(value) -> bool:
    """A session's metadata: the JSON form's whole object, or the JSONL form's first line."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
        and "type" not in value
    )


def read_session(session: dict, ctx: FileContext) -> Iterator[Item]:
    """The items of the JSON form."""
    messages = session.get("messages")
    if not isinstance(messages, list):
        yield ctx.problem('a Gemini CLI session without a "messages" list', line=None)
        return
    yield from _read_messages(session, [(None, message) for message in messages], ctx)


def read_session_lines(lines: Iterable[tuple[int, dict] | Item], ctx: FileContext):
    """The items of the JSONL form: `lines` are (line number, object) pairs, or the problems
    met reading them, which are passed on."""
    metadata: dict = {}
    messages: dict[str, tuple[int, dict]] = {}  # by id, in the order first seen
    for line in lines:
        if not isinstance(line, tuple):
            yield line
            continue
        lineno, record = line
        if isinstance(record.get("$rewindTo"), str):
            ids = list(messages)
            kept = ids[: ids.index(record["$rewindTo"])] if record["$rewindTo"] in ids else []
            for _ in ids[len(kept) :]:
                yield ctx.skip("rewound message")
            messages = {id_: messages[id_] for id_ in kept}
            yield ctx.skip("$rewindTo line")
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = (lineno, record)
        elif isinstance(record.get("$set"), dict):
            metadata.update(record["$set"])
            yield ctx.skip("$set line")
        elif is_gemini_cli_session(record):
            metadata.update(record)
        else:
            keys = ", ".join(sorted(record)[:8]) or "none"
            yield ctx.problem(f"not a Gemini CLI session line (keys: {keys})", line=lineno)
    ctx.suspect = True  # the lines' escapes were judged line by line; the records come after
    if isinstance(metadata.get("messages"), list):
        found = [(None, message) for message in metadata["messages"]]
    else:
        found = list(messages.values())
    yield from _read_messages(metadata, found, ctx)


def _read_messages(session: dict, messages: list, ctx: FileContext) -> Iterator[Item]:
    session_id = as_str(session.get("sessionId")) or ctx.stem
    # a sub-agent's file (kind "subagent", in its parent session's folder) is the agent's own
    agent = session_id if session.get("kind") == "subagent" else None
    turn = -1
    for index, (lineno, message) in enumerate(messages):
        ctx.lineno, ctx.place = lineno, f"message {index}"
        if not isinstance(message, dict):
            yield ctx.problem("a Gemini CLI message that is not an object", line=lineno)
            continue
        kind, message_id = as_str(message.get("type")), as_str(message.get("id"))
        if kind == "user":
            turn += 1
        if kind not in ROLES:
            yield ctx.skip(f"{kind or 'untyped'} message")
            continue
        provenance = {
            "turn": max(turn, 0),
            "timestamp": as_str(message.get("timestamp")),
            "model": as_str(message.get("model")),
            "message_id": message_id,
            "agent": agent,
            # the JSONL line of the message's last version; its index in the JSON form
            "position": index if lineno is None else lineno,
        }
        for _ in message.get("thoughts") or []:
            yield ctx.skip("thought")
        text = _text(message.get("content"))
        if text.strip():
            key = f"{session_id}/{message_id}" if message_id else None
            yield _candidate(ctx, text, key, session_id, ROLES[kind], None, provenance)
        for number, call in enumerate(message.get("toolCalls") or []):
            yield from _tool_call(ctx, call, number, session_id, message_id, provenance)


def _tool_call(ctx, call, number, session_id, message_id, provenance) -> Iterator[Item]:
    yield ctx.skip("tool call")
    if not isinstance(call, dict):
        return
    name = as_str(call.get("name"))
    text = _result_text(call.get("result"))
    if not text.strip():
        yield ctx.skip("tool call without a result")
        return
    call_id = as_str(call.get("id")) or str(number)
    key = f"{session_id}/{message_id}/{call_id}" if message_id else None
    yield _candidate(ctx, text, key, session_id, "tool", name or None, provenance)


def _candidate(ctx, text, key, session_id, role, tool, provenance):
    """A record keyed by its session and message ids (the same record in both forms), or by
    the file and its text when the message has no id."""
    return ctx.candidate(
        fmt=GEMINI_CLI,
        text=text,
        external_id=key or ctx.content_id(text),
        identity=f"{GEMINI_CLI}:{key}" if key else "",
        session=session_id,
        role=role,
        tool=tool,
        **provenance,
    )


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _result_text(result) -> str:
    """A tool call's result: the functionResponse's output (or the response as JSON), and any
    text part, joined."""
    parts = result if isinstance(result, list) else [result]
    texts = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        response = part.get("functionResponse")
        if isinstance(response, dict):
            body = response.get("response")
            output = body.get("output", body.get("content")) if isinstance(body, dict) else body
            if isinstance(output, str):
                texts.append(output)
            elif body is not None:
                texts.append(json.dumps(body, ensure_ascii=False))
    return "\n".join(texts)
