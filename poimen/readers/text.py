"""Plain text files (.md, .txt, anything not recognised as another format): one record each."""

from collections.abc import Iterator

from poimen.readers.base import FileContext, Item, too_big

DOCUMENT = "document"


def read_document(
    stream, ctx: FileContext, *, size: int, max_record_bytes: int, raw: bytes | None = None
) -> Iterator[Item]:
    """The file as one record; `raw` is its content when it was read already."""
    if raw is None or len(raw) > max_record_bytes:
        raw = stream.read(min(size, max_record_bytes) + 1)
    if len(raw) > max_record_bytes:
        yield ctx.problem(too_big(size, max_record_bytes), line=None)
        return
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        yield ctx.problem(f"invalid UTF-8 at byte {error.start}", line=None)
        return
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        yield ctx.problem("NUL bytes in the text (a crash often leaves them): not stored", line)
        return
    if not text.strip():
        yield ctx.problem("empty text", line=None)
        return
    yield ctx.candidate(fmt=DOCUMENT, text=text, external_id=ctx.content_id(text), position=None)
