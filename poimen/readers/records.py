"""Records JSONL ({"id", "text", ...} a line) and chat lines ({"role", "content"} a line)."""

from collections.abc import Iterator

from poimen.readers.base import (
    MAX_EXTERNAL_ID,
    MAX_SOURCE,
    Candidate,
    FileContext,
    Item,
    as_str,
    source_label_problem,
)

RECORDS, CHAT = "records", "chat"
CHAT_TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})


def is_records_line(obj: dict) -> bool:
    return "text" in obj or "id" in obj


def is_chat_line(obj: dict) -> bool:
    return "role" in obj and "content" in obj


def records_line(obj: dict, ctx: FileContext) -> Iterator[Item]:
    record_id, text = obj.get("id"), obj.get("text")
    if record_id is None or isinstance(record_id, bool) or not isinstance(record_id, str | int):
        yield ctx.problem('a records line needs an "id" (a string or an integer)')
        return
    if isinstance(record_id, str) and not record_id.strip():
        yield ctx.problem('"id" is empty: a record is stored once by its id, so it needs one')
        return
    if "text" not in obj:
        yield ctx.problem('line without "text"')
        return
    if not isinstance(text, str):
        yield ctx.problem(f'"text" is {type(text).__name__}, not a string')
        return
    if not text.strip():
        yield ctx.problem("empty text")
        return
    if len(str(record_id)) > MAX_EXTERNAL_ID:
        yield ctx.problem(f'"id" is longer than {MAX_EXTERNAL_ID} characters')
        return
    source = obj.get("source")
    if isinstance(source, str) and len(source) > MAX_SOURCE:
        yield ctx.problem(f'"source" is longer than {MAX_SOURCE} characters')
        return
    if isinstance(source, str) and source and source_label_problem(source):
        yield ctx.problem(f'"source": {source_label_problem(source)}')
        return
    # The record's own identity, as the reader of its original gives it ("claude-code:<session>/
    # <uuid>/<block>"): a line sent by the hook and the transcript ingested are one record.
    identity = obj.get("identity")
    if identity is not None and not isinstance(identity, str):
        yield ctx.problem(f'"identity" is {type(identity).__name__}, not a string')
        return
    if identity and len(identity) > MAX_EXTERNAL_ID:
        yield ctx.problem(f'"identity" is longer than {MAX_EXTERNAL_ID} characters')
        return
    # A records line is poimen's own format: its metadata is its provenance, kept as given.
    metadata = obj.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        # Dropped, it would lose the provenance the line meant to keep.
        yield ctx.problem(f'"metadata" is {type(metadata).__name__}, not an object')
        return
    if metadata:
        ctx.suspect = True  # nested as deep as the line likes: `unstorable` walks it
    yield Candidate(
        source=source if isinstance(source, str) and source else ctx.default_source or RECORDS,
        external_id=str(record_id),
        source_path=ctx.resolved,
        position=ctx.lineno,
        session=as_str(obj.get("session")),
        role=as_str(obj.get("role")),
        text=text,
        metadata=metadata or {},
        identity=identity or "",
    )


def chat_line(obj: dict, ctx: FileContext) -> Iterator[Item]:
    content = obj["content"]
    if content is None:
        yield ctx.skip("chat message without content")
        return
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in CHAT_TEXT_BLOCKS and isinstance(block.get("text"), str):
                parts.append(block["text"])
            else:
                yield ctx.skip(f"{kind or 'untyped'} block")
        if not parts:
            return
        text = "\n\n".join(parts)
    else:
        yield ctx.problem(f'"content" is {type(content).__name__}, not text or blocks')
        return
    if not text.strip():
        yield ctx.problem("empty text")
        return
    own_id = obj.get("id")
    if isinstance(own_id, str | int) and not isinstance(own_id, bool) and own_id != "":
        external_id = str(own_id)
    else:
        external_id = ctx.content_id(text)
    yield ctx.candidate(
        fmt=CHAT,
        text=text,
        external_id=external_id,
        session=as_str(obj.get("session") or obj.get("conversation_id")) or ctx.stem,
        role=as_str(obj["role"]),
        timestamp=as_str(obj.get("timestamp")),
    )
