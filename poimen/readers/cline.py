"""Cline and Roo Code task folders, and Continue's session files.

A Cline (or Roo Code) task is a folder named by the task id holding api_conversation_history.json
(the messages the model saw, in Anthropic's shape: messages.py reads them), ui_messages.json
(what the extension's panel showed: a list of {ts, type: say | ask, say | ask, text}) and
task_metadata.json ({files_in_context, model_usage, ...}). The panel log repeats the history
and the metadata holds no text a memory learns from, so each is one skipped companion, not an
error; the history's records are of the session the folder names.

A Continue session (~/.continue/sessions/<id>.json) is {sessionId, title, workspaceDirectory,
history: [{message: {role, content, toolCalls}, contextItems: [{name, content}]}]}: its
messages are read as messages.py reads any, with the context items a message carried (files
and docs attached to the prompt: what the model loaded) as a record of role "context" before it.
"""

from pathlib import Path

from poimen.readers.base import FileContext, as_str

HISTORY_STEM = "api_conversation_history"
UI_MESSAGE_TYPES = frozenset({"say", "ask"})
METADATA_KEYS = frozenset({"files_in_context", "model_usage", "environment_history"})


def cline_companion(value) -> str | None:
    """What a Cline or Roo companion file is ("Cline UI log", "Cline task metadata"), or None."""
    if isinstance(value, list) and value and all(_is_ui_message(v) for v in value[:5]):
        return "Cline UI log (ui_messages.json)"
    if isinstance(value, dict) and value and METADATA_KEYS.intersection(value):
        return "Cline task metadata (task_metadata.json)"
    return None


def _is_ui_message(value) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("ts"), int | float)
        and value.get("type") in UI_MESSAGE_TYPES
    )


def task_session(ctx: FileContext) -> str:
    """The task id a Cline or Roo history belongs to (its folder's name), or ""."""
    if ctx.stem != HISTORY_STEM:
        return ""
    return Path(ctx.resolved).parent.name


def is_continue_session(value) -> bool:
    history = value.get("history") if isinstance(value, dict) else None
    return (
        isinstance(history, list)
        and isinstance(value.get("sessionId"), str)
        and any(
            isinstance(item, dict) and isinstance(item.get("message"), dict) for item in history[:5]
        )
    )


def continue_messages(value: dict) -> list:
    """A Continue session's history as messages of the shapes messages.py reads."""
    messages = []
    for item in value["history"]:
        if not isinstance(item, dict):
            messages.append(item)  # refused by the reader, with its place
            continue
        context = [
            as_str(context_item.get("content"))
            for context_item in item.get("contextItems") or []
            if isinstance(context_item, dict) and as_str(context_item.get("content")).strip()
        ]
        if context:
            messages.append({"role": "context", "content": "\n\n".join(context)})
        message = dict(item.get("message") or {})
        if "toolCalls" in message:
            message["tool_calls"] = message.pop("toolCalls")
        if "toolCallId" in message:
            message["tool_call_id"] = message.pop("toolCallId")
        messages.append(message)
    return messages
