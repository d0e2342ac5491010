"""Realistic texts for the matcher's tests: emitted skills, reference pages, assistant turns.

The files are plain markdown so that a reader can open them; the functions here only load them.
Other test modules (ingest, views) reuse them, so keep the names stable. The ways a model or a
tool re-renders such a text live in tests/renderings.py, which the benchmarks use too.
"""

from pathlib import Path

TEXTS_DIR = Path(__file__).parent

SKILL_NAMES = (
    "django-test-suite",
    "git-commit-message",
    "flaky-test-triage",
    "pull-request-review",
)
REFERENCE_NAMES = (
    "django-deployment-guide",
    "ledgerly-running-tests",
    "tessera-testing",
)

# Markers in turn files where a test splices in the text of an artifact.
SKILL_MARKER = "<<SKILL>>"
SECTION_MARKER = "<<SECTION>>"


def _read(folder: str, name: str) -> str:
    # newline="" keeps the file's own line ends: the CRLF test must add them, not find them.
    with open(TEXTS_DIR / folder / f"{name}.md", encoding="utf-8", newline="") as file:
        return file.read()


def skill(name: str) -> str:
    return _read("skills", name)


def reference(name: str) -> str:
    return _read("references", name)


def turn(name: str) -> str:
    return _read("turns", name)


COLLECTION_PAGES = ("install", "backup", "upgrade", "troubleshooting")
SHARED_MARKER = "<<SHARED>>"


def collection_page(name: str) -> str:
    """A page of one project's docs; every page holds the collection's shared sections."""
    return _read("collection", name).replace(SHARED_MARKER, _read("collection", "_shared").strip())
