"""The derived rule's settings per kind, as the database holds them, and the app's defaults.

A kind without a KindPolicy row uses the defaults in settings (POIMEN_DEFAULT_THRESHOLD,
POIMEN_DEFAULT_MIN_SHARED, POIMEN_DEFAULT_ON_DERIVED, POIMEN_DEFAULT_PASTE_WORDS); everything
that needs a kind's threshold, or what a derived record of the kind gets, asks a Policies.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from django.conf import settings
from django.db import connection

from poimen.models import KindPolicy
from poimen.web.request_memo import once_a_request


def report_floor() -> float:
    """Matches from this overlap up are stored; a threshold may not be set below it."""
    return settings.POIMEN_REPORT_FLOOR


# The per-kind values a policy change sets besides the threshold, which has a change of its
# own: KindPolicy's fields, Policies' dicts and their *_for methods share these names.
POLICY_VALUES = ("on_derived", "paste_words", "min_shared")


@dataclass(frozen=True)
class Policies:
    """Thresholds, minimum shared shingles and what a derived record gets (exclude or redact),
    per kind, as the database holds them now."""

    thresholds: dict[str, float]
    min_shared: dict[str, int]
    on_derived: dict[str, str] = field(default_factory=dict)
    paste_words: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, *, lock: bool = False) -> "Policies":
        """The policies now (read once a GET request, request_memo); with `lock`, read again
        and held (inside a transaction) until it ends, so that a threshold change waits for
        what is decided under them to be written."""
        if not lock:
            return once_a_request("policies", cls._read)
        if connection.vendor == "postgresql":
            # SHARE: concurrent ingests read together; a threshold change's write waits.
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {KindPolicy._meta.db_table} IN SHARE MODE")
        return cls._read()

    @classmethod
    def _read(cls) -> "Policies":
        return cls.from_rows(
            KindPolicy.objects.values(
                "kind", "threshold", "min_shared", "on_derived", "paste_words"
            )
        )

    @classmethod
    def from_rows(cls, rows: Iterable[dict]) -> "Policies":
        """The policies of KindPolicy rows read as dicts (kind, threshold, min_shared,
        on_derived; other fields are left)."""
        rows = list(rows)
        return cls(
            thresholds={p["kind"]: p["threshold"] for p in rows},
            min_shared={p["kind"]: p["min_shared"] for p in rows},
            on_derived={p["kind"]: p["on_derived"] for p in rows},
            paste_words={p["kind"]: p["paste_words"] for p in rows if "paste_words" in p},
        )

    @property
    def kinds(self) -> list[str]:
        """The kinds with a policy of their own."""
        return sorted(self.thresholds)

    @property
    def default_threshold(self) -> float:
        """The threshold of a kind without a policy of its own."""
        return settings.POIMEN_DEFAULT_THRESHOLD

    @property
    def default_min_shared(self) -> int:
        """The minimum shared shingles of a kind without a policy of its own."""
        return settings.POIMEN_DEFAULT_MIN_SHARED

    def threshold_for(self, kind: str) -> float:
        return self.thresholds.get(kind, self.default_threshold)

    def min_shared_for(self, kind: str) -> int:
        return self.min_shared.get(kind, self.default_min_shared)

    def on_derived_for(self, kind: str) -> str:
        return self.on_derived.get(kind, settings.POIMEN_DEFAULT_ON_DERIVED)

    def paste_words_for(self, kind: str) -> int:
        return self.paste_words.get(kind, settings.POIMEN_DEFAULT_PASTE_WORDS)

    def values_for(self, kind: str) -> dict:
        """`kind`'s POLICY_VALUES in force, by name."""
        return {name: getattr(self, f"{name}_for")(kind) for name in POLICY_VALUES}

    def with_values(self, kind: str, **values) -> "Policies":
        """These policies with `kind`'s threshold or POLICY_VALUES as given: what a change is
        decided under, before it is written (its preview too)."""
        changed = {name: {**getattr(self, name), kind: value} for name, value in values.items()}
        return replace(self, **changed)

    def redacts(self, kind: str) -> bool:
        """A derived record of `kind` has its copied passages cut rather than being excluded."""
        return self.on_derived_for(kind) == KindPolicy.OnDerived.REDACT
