"""What the services share: the input error they raise, validation, the status rule."""

import re

from django.conf import settings
from django.core.exceptions import ValidationError

from filter import ArtifactRecord
from poimen.models import Record
from poimen.readers.base import text_problem

KIND_PATTERN = re.compile(r"[a-z][a-z0-9-]*(?:_[a-z0-9-]+)*")


class InputError(ValidationError):
    """Input the operator must fix (a bad kind, a threshold out of range, a missing reason).

    A ValidationError, so that forms and views show its messages as they show their own."""

    def __str__(self) -> str:
        return " ".join(self.messages)


def check_kind(kind: str) -> str:
    if not KIND_PATTERN.fullmatch(kind or "") or len(kind) > 50:
        raise InputError(
            f"kind {kind!r}: use lower-case letters, digits, '-' and single '_' (e.g. 'skill')"
        )
    return kind


def check_name(name: str) -> str:
    if not name.strip() or len(name) > 255:
        raise InputError("an artifact needs a name of 1 to 255 characters")
    why = text_problem(name)
    if why:
        raise InputError(f"the artifact's name {why}")
    return name


def check_artifact_text(artifact_record: ArtifactRecord) -> None:
    """An artifact's text is stored as records are: never a NUL or a lone surrogate."""
    why = text_problem(artifact_record.text) if artifact_record.text else None
    if why:
        raise InputError(f"{artifact_record.kind}/{artifact_record.name}: the text {why}")


def batch_size_or_default(value: int | None) -> int:
    value = settings.POIMEN_INGEST_BATCH_SIZE if value is None else value
    if value < 1:
        raise InputError(f"a batch size is at least 1, not {value}")
    return value


def status_in_force(record: Record) -> str:
    """What holds: a reviewer's verdict first, the filter's decision otherwise."""
    if record.review_id is not None:
        return record.review.status_for(record)
    return record.filter_status
