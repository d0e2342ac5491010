"""Aider chat histories (.aider.chat.history.md), as aider/io.py writes them.

`# aider chat started at <time>` opens a session. A user prompt is written as `#### ` lines,
each ending in two spaces (a markdown line break); consecutive ones are one prompt. Tool
output (aider's own messages, a /run's output) is `> ` lines, also ending in two spaces, up
to a blank line. Everything else is the assistant's reply, up to the next prompt or tool
line, so a `####` heading or a `> ` quote inside a reply stays in the reply. One record per
prompt, per reply and per block of tool output, with the session start as provenance.
"""

import re
from collections.abc import Iterable, Iterator

from poimen.readers.base import FileContext, Item, Problem

AIDER = "aider"
SESSION_START = re.compile(r"^# aider chat started at (.+?)\s*$")
USER_LINE = re.compile(r"^#### ?(.*?)  \r?\n?$")
TOOL_LINE = re.compile(r"^> ?(.*?)  \r?\n?$")


def looks_like_aider(lines: list[str]) -> bool:
    """A history opens with a session start line (aider writes one at every start)."""
    return any(SESSION_START.match(line) for line in lines)


def read_aider(lines: Iterable[tuple[int, str] | Problem], ctx: FileContext) -> Iterator[Item]:
    block: list[str] = []
    role, start, prompt = None, None, ""
    for entry in lines:
        if isinstance(entry, Problem):
            yield from _flush(ctx, role, block, start, prompt)
            role, block = None, []
            yield entry
            continue
        lineno, line = entry
        session = SESSION_START.match(line)
        user, tool = USER_LINE.match(line), TOOL_LINE.match(line)
        if session:
            yield from _flush(ctx, role, block, start, prompt)
            role, block, prompt = None, [], ""
            ctx.state.update(session=session.group(1), turn=None)
            ctx.lineno = lineno
            yield ctx.skip("session start line")
            continue
        if user:
            if role != "user":
                yield from _flush(ctx, role, block, start, prompt)
                role, block, start = "user", [], lineno
                turn = ctx.state.get("turn")
                ctx.state["turn"] = 0 if turn is None else turn + 1
            block.append(user.group(1))
            prompt = block[0]
        elif tool and role != "tool":
            yield from _flush(ctx, role, block, start, prompt)
            role, block, start = "tool", [tool.group(1)], lineno
        elif not line.strip():
            if role in ("user", "tool"):
                yield from _flush(ctx, role, block, start, prompt)
                role, block = None, []
            elif role == "assistant":
                block.append("")
        elif role == "tool":
            block.append(tool.group(1) if tool else line.rstrip("\r\n").removesuffix("  "))
        elif role == "assistant":
            block.append(line.rstrip("\r\n"))
        else:
            yield from _flush(ctx, role, block, start, prompt)
            role, block, start, prompt = "assistant", [line.rstrip("\r\n")], lineno, ""
    yield from _flush(ctx, role, block, start, prompt)


def _flush(ctx: FileContext, role, block, start, prompt) -> Iterator[Item]:
    text = "\n".join(block).strip()
    if role is None or not text:
        return
    ctx.lineno = start
    if role == "user" and text == "<blank>":
        yield ctx.skip("blank prompt")
        return
    # Tool output after a slash command is that command's; the rest is aider's own.
    command = prompt.split()[0] if role == "tool" and prompt.startswith("/") else None
    session = ctx.state.get("session", "")
    yield ctx.candidate(
        fmt=AIDER,
        text=text,
        external_id=ctx.content_id(text),
        session=session or ctx.stem,
        role=role,
        turn=ctx.state.get("turn"),
        started_at=session,
        tool=(command or "aider") if role == "tool" else None,
    )
