"""records_export: every record's decision as JSONL, for other tools."""

import json
from typing import TextIO

from poimen.keyset import keyset_pages
from poimen.models import Record


def records_export(*, stream: TextIO) -> int:
    """A JSONL line per record with its decision, for other tools; returns how many."""
    written = 0
    records = Record.objects.select_related("best_artifact").only(
        "pk",
        "source",
        "external_id",
        "status",
        "derived",
        "best_overlap",
        "best_artifact__name",
        "best_artifact__kind",
    )
    for page in keyset_pages(records, 2000):
        for record in page:
            best = record.best_artifact
            line = {
                "id": record.external_id,
                "source": record.source,
                "status": record.status,
                "derived": record.derived,
                "matched": best.name if best else None,
                "kind": best.kind if best else None,
                "overlap": round(record.best_overlap, 6) if best else None,
            }
            stream.write(json.dumps(line, ensure_ascii=False) + "\n")
            written += 1
    return written
