"""OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

Each line is {"timestamp", "type", "payload"} (codex-rs protocol's RolloutLine): a
`session_meta` first (the session id, cwd, cli version), `turn_context` at each turn,
`response_item` for what the model saw and said, `event_msg` for the UI's events (which
repeat the messages), `compacted` for a compaction's summary. Of the response items, a
`message` (input_text / output_text parts) is a record, and so is a `function_call_output`
(its output a string, or JSON holding one as "output"), named by the `function_call` of the
same call id; `reasoning`, calls and images are skipped and counted. A shell call's exit code
and time are kept as `exit_code` and `duration_seconds`: from the JSON's "metadata" (before
0.60), or from the header 0.60 and later write before the output as text ("Exit code: 0",
"Wall time: 0.4 seconds", "Output:"; unified exec's "Process exited with code 0"), which
stays in the record's text.
"""

import json
import re
from collections.abc import Iterator

from poimen.readers.base import FileContext, Item, as_str, path_key

CODEX = "codex"
LINE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
TEXT_PARTS = frozenset({"input_text", "output_text", "text", "summary_text"})
CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
# The header of a shell call's output as text (codex-rs 0.60+), up to its "Output:" line.
EXIT_CODE = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d+)$", re.MULTILINE)
WALL_TIME = re.compile(r"^Wall time: (\d+(?:\.\d+)?) seconds$", re.MULTILINE)


def is_codex_line(obj: dict) -> bool:
    return obj.get("type") in LINE_TYPES and isinstance(obj.get("payload"), dict)


def codex_line(obj: dict, ctx: FileContext) -> Iterator[Item]:
    line_type, payload = obj["type"], obj["payload"]
    if line_type == "session_meta":
        ctx.state["session"] = as_str(payload.get("id"))
        yield ctx.skip("session_meta line")
        return
    if line_type == "turn_context":
        ctx.state["turn"] = ctx.state.get("turn", -1) + 1
        yield ctx.skip("turn_context line")
        return
    if line_type == "event_msg":
        yield ctx.skip(f"{as_str(payload.get('type')) or 'untyped'} event")
        return
    item = ctx.state["item"] = ctx.state.get("item", -1) + 1
    if line_type == "compacted":
        yield from _record(ctx, payload.get("message"), item, "assistant", obj, compacted=True)
        return
    kind = payload.get("type")
    if kind == "message":
        yield from _message(payload, item, obj, ctx)
    elif kind in CALLS:
        ctx.state.setdefault("tools", {})[as_str(payload.get("call_id"))] = _tool_name(payload)
        yield ctx.skip(f"{kind} item")
    elif kind in OUTPUTS:
        output = payload.get("output")
        text, extra = _output_text(output)
        if text is None:
            yield ctx.problem(f'"{kind}" output is {type(output).__name__}, not text')
            return
        tool = ctx.state.get("tools", {}).get(as_str(payload.get("call_id")))
        yield from _record(ctx, text, item, "tool", obj, tool=tool, **extra)
    else:
        yield ctx.skip(f"{as_str(kind) or 'untyped'} item")


def _message(payload: dict, item: int, obj: dict, ctx: FileContext) -> Iterator[Item]:
    content = payload.get("content")
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        yield ctx.problem('a "message" item without a content list')
        return
    parts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in TEXT_PARTS and isinstance(part.get("text"), str):
            parts.append(part["text"])
        else:
            yield ctx.skip(f"{kind or 'untyped'} part")
    if parts:
        yield from _record(ctx, "\n\n".join(parts), item, as_str(payload.get("role")), obj)


def _record(ctx, text, item, role, obj, *, compacted=False, **extra) -> Iterator[Item]:
    if not isinstance(text, str) or not text.strip():
        yield ctx.skip(f"empty {role or 'untyped'} item")
        return
    session = ctx.state.get("session", "")
    own = f"{session}/{item}" if session else f"{path_key(ctx.resolved)}#{item}"
    yield ctx.candidate(
        fmt=CODEX,
        text=text,
        external_id=own,
        identity=f"{CODEX}:{own}" if session else "",
        session=session or ctx.stem,
        role=role,
        turn=ctx.state.get("turn"),
        item=item,
        timestamp=as_str(obj.get("timestamp")),
        restatement="compact-summary" if compacted else None,
        **extra,
    )


def _tool_name(payload: dict) -> str:
    if payload.get("type") == "local_shell_call":
        return "shell"
    return as_str(payload.get("name"))


def _output_text(output) -> tuple[str | None, dict]:
    """The text of a call's output and what it says of the run (exit code, duration)."""
    if isinstance(output, dict):
        inner = output.get("output", output.get("content"))
        return (inner if isinstance(inner, str) else None), _run_facts(output)
    if not isinstance(output, str):
        return None, {}
    if output.startswith("{"):
        try:
            decoded = json.loads(output)
        except (ValueError, RecursionError):
            return output, {}
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            return decoded["output"], _run_facts(decoded)
    return output, _header_facts(output)


def _header_facts(output: str) -> dict:
    """The exit code and time a text output's header says, before its "Output:" line."""
    header = output.split("\nOutput:", 1)[0] if "\nOutput:" in output else ""
    exit_code, seconds = EXIT_CODE.search(header), WALL_TIME.search(header)
    if exit_code is None and seconds is None:
        return {}
    return {
        "exit_code": int(exit_code.group(1)) if exit_code else None,
        "duration_seconds": float(seconds.group(1)) if seconds else None,
    }


def _run_facts(output: dict) -> dict:
    facts = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
    exit_code, seconds = facts.get("exit_code"), facts.get("duration_seconds")
    return {
        "exit_code": exit_code if isinstance(exit_code, int) else None,
        "duration_seconds": seconds if isinstance(seconds, int | float) else None,
    }
