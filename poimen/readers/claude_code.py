"""Claude Code session files (~/.claude/projects/<project>/<session>.jsonl).

A line is {"type", "uuid", "parentUuid", "sessionId", "timestamp", "isSidechain", "message":
{"role", "content"}, ...}. "user" and "assistant" lines carry the conversation: their text
blocks and tool_result blocks become records, each with the tool that produced it (known from
the assistant's tool_use block of the same id). Thinking, tool_use and image blocks, and the
other line types (summary, system, progress, file-history-snapshot, queue-operation, ...)
are skipped and counted by what they are. A sub-agent's lines (`isSidechain`, `agentId`, in
agent-*.jsonl files) keep the agent as provenance; `isMeta` lines (what Claude Code injects:
a loaded skill, a command's caveat) are read and marked; the summary `/compact` writes
(`isCompactSummary`) is marked as the session's own restatement, and so is the answer of a
compaction sub-agent (`agentId` "acompact-…", in subagents/agent-acompact-*.jsonl), which holds
the same summary word for word.
"""

from collections.abc import Iterator

from poimen.readers.base import MAX_EXTERNAL_ID, FileContext, Item, Skipped, as_str

CLAUDE_CODE = "claude-code"
MESSAGE_TYPES = frozenset({"user", "assistant"})
COMPACT_SUMMARY = "compact-summary"
# The agent id (and file name) prefix of the sub-agent that writes a compact summary.
COMPACTION_AGENT = "acompact"


def is_claude_code_line(obj: dict) -> bool:
    return isinstance(obj.get("type"), str) and any(
        key in obj for key in ("sessionId", "uuid", "message", "leafUuid", "messageId")
    )


def claude_code_line(obj: dict, ctx: FileContext) -> Iterator[Item]:
    line_type = obj["type"]
    if line_type not in MESSAGE_TYPES:
        yield ctx.skip(f"{line_type} line")
        return
    message, uuid = obj.get("message"), obj.get("uuid")
    if not isinstance(message, dict):
        yield ctx.problem(f'a "{line_type}" line without a "message" object')
        return
    if not isinstance(uuid, str) or not uuid:
        yield ctx.problem(f'a "{line_type}" line without a "uuid"')
        return
    session = as_str(obj.get("sessionId"))
    if len(uuid) + len(session) > MAX_EXTERNAL_ID - 40:
        yield ctx.problem(f'"sessionId" and "uuid" are longer than {MAX_EXTERNAL_ID} characters')
        return
    content = message.get("content")
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        yield ctx.problem('"message.content" is neither text nor a list of blocks')
        return
    turn = ctx.state["turn"] = ctx.state.get("turn", -1) + 1
    tools = ctx.state.setdefault("tools", {})
    role = as_str(message.get("role")) or line_type
    line_provenance = {
        "turn": turn,
        "uuid": uuid,
        "timestamp": as_str(obj.get("timestamp")),
        "agent": as_str(obj.get("agentId")),
        "sidechain": True if obj.get("isSidechain") is True else None,
        "meta": True if obj.get("isMeta") is True else None,
        "restatement": COMPACT_SUMMARY if obj.get("isCompactSummary") is True else None,
    }
    if role == "assistant" and _compaction_agent(obj, ctx):
        line_provenance["restatement"] = COMPACT_SUMMARY
    for index, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        tool = tool_use_id = None
        if kind == "text":
            text, block_role = block.get("text"), role
        elif kind == "tool_result":
            text = yield from _tool_result_text(block.get("content"), ctx)
            block_role = "tool"
            tool_use_id = as_str(block.get("tool_use_id"))
            tool = tools.get(tool_use_id)
        else:
            if kind == "tool_use" and isinstance(block.get("id"), str):
                tools[block["id"]] = as_str(block.get("name"))
            yield ctx.skip(f"{kind or 'untyped'} block")
            continue
        if not isinstance(text, str) or not text.strip():
            yield ctx.skip(f"empty {kind} block")
            continue
        yield ctx.candidate(
            fmt=CLAUDE_CODE,
            text=text,
            external_id=f"{session}/{uuid}/{index}",
            identity=f"{CLAUDE_CODE}:{session}/{uuid}/{index}",
            session=session,
            role=block_role,
            block=index,
            block_type=kind,
            tool=tool,
            tool_use_id=tool_use_id,
            is_error=True if kind == "tool_result" and block.get("is_error") is True else None,
            **line_provenance,
        )


def _compaction_agent(obj: dict, ctx: FileContext) -> bool:
    """The line is a compaction sub-agent's (by its agent id, or its file's name)."""
    agent = as_str(obj.get("agentId")) or ""
    return agent.startswith(COMPACTION_AGENT) or ctx.stem.startswith(f"agent-{COMPACTION_AGENT}")


def _tool_result_text(content, ctx: FileContext) -> Iterator[Skipped]:
    """A generator whose return value is the result's text; it yields the blocks it skips."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        else:
            yield ctx.skip(f"{kind or 'untyped'} block in a tool result")
    return "\n".join(parts)
