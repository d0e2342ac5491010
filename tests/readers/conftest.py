"""The readers' tests read files into (records, problems, skips)."""

from pathlib import Path

import pytest

from poimen.readers import Candidate, Problem, Skipped, read_sources

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "texts" / "transcripts"
LIMIT = 1024 * 1024


@pytest.fixture
def read():
    """read(*paths, default_source=None, limit=1 MiB) -> (records, problems, skips)."""

    def read(*paths, default_source=None, limit=LIMIT):
        items = list(
            read_sources(
                paths,
                max_record_bytes=limit,
                max_document_bytes=64 * limit,
                default_source=default_source,
            )
        )
        return (
            [i for i in items if isinstance(i, Candidate)],
            [i for i in items if isinstance(i, Problem)],
            [i for i in items if isinstance(i, Skipped)],
        )

    return read


@pytest.fixture
def transcripts() -> Path:
    return TRANSCRIPTS
