"""ArtifactRecord: what poimen knows of one emitted artifact, and its manifest line."""

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from filter.errors import ManifestError
from filter.shingles import DEFAULT_PARAMS, ShingleParams, shingle_text

_SHA256 = re.compile(r"[0-9a-f]{64}")
_MAX_UINT64 = 2**64 - 1


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, eq=False)
class ArtifactRecord:
    """One emitted artifact: a skill, a reference page, … identified by (kind, name, sha256).

    `shingles` are in text order (the i-th hash starts at the artifact's i-th token), so an
    artifact known only from its manifest line, without text, can still be aligned with a
    record. `params` is None for a line that did not say how its shingles were made.
    """

    kind: str
    name: str
    sha256: str
    shingles: np.ndarray
    emitted_at: datetime
    params: ShingleParams | None = DEFAULT_PARAMS
    text: str | None = None
    n_tokens: int = field(default=0)

    def __post_init__(self):
        object.__setattr__(self, "emitted_at", as_utc(self.emitted_at))
        shingles = np.asarray(self.shingles, dtype=np.uint64)
        shingles.flags.writeable = False
        object.__setattr__(self, "shingles", shingles)
        if not self.n_tokens and len(shingles):
            k = self.params.k if self.params else 1
            object.__setattr__(self, "n_tokens", len(shingles) + k - 1)

    @classmethod
    def from_text(
        cls,
        *,
        kind: str,
        name: str,
        text: str,
        emitted_at: datetime | None = None,
        params: ShingleParams = DEFAULT_PARAMS,
    ) -> "ArtifactRecord":
        shingles, n_tokens = shingle_text(text, params)
        return cls(
            kind=kind,
            name=name,
            sha256=sha256_hex(text),
            shingles=shingles,
            emitted_at=emitted_at or datetime.now(UTC),
            params=params,
            text=text,
            n_tokens=n_tokens,
        )

    @property
    def has_text(self) -> bool:
        return bool(self.text)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.name, self.sha256)

    def reshingled(self, params: ShingleParams) -> "ArtifactRecord":
        """The same artifact with shingles made again from its text under `params`."""
        if self.text is None:
            raise ValueError(f"{self.kind}/{self.name} has no text to shingle again")
        return ArtifactRecord.from_text(
            kind=self.kind,
            name=self.name,
            text=self.text,
            emitted_at=self.emitted_at,
            params=params,
        )

    def __repr__(self) -> str:
        return f"<ArtifactRecord {self.kind}/{self.name} {self.sha256[:12]}>"

    # -- the manifest line --------------------------------------------------------------------

    def to_dict(self, *, with_text: bool = True) -> dict:
        data = {
            "kind": self.kind,
            "name": self.name,
            "sha256": self.sha256,
            "shingles": self.shingles.tolist(),
            "emitted_at": self.emitted_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        }
        if self.params is not None:
            data["shingling"] = self.params.as_dict()
        if with_text and self.text is not None:
            data["text"] = self.text
        return data

    def to_json_line(self, *, with_text: bool = True) -> str:
        return json.dumps(self.to_dict(with_text=with_text), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "<manifest>", lineno: int = 1):
        def fail(why: str):
            raise ManifestError(why, source=source, lineno=lineno)

        if not isinstance(data, dict):
            fail(f"expected a JSON object, found {type(data).__name__}")
        missing = [key for key in ("kind", "name", "sha256", "shingles") if key not in data]
        if missing:
            fail("missing " + ", ".join(f'"{key}"' for key in missing))
        for key in ("kind", "name", "sha256"):
            if not isinstance(data[key], str) or not data[key].strip():
                fail(f'"{key}" must be a non-empty string')
        if not _SHA256.fullmatch(data["sha256"]):
            fail('"sha256" must be 64 lower-case hex digits')

        shingles = data["shingles"]
        if not isinstance(shingles, list) or not all(
            type(h) is int and 0 <= h <= _MAX_UINT64 for h in shingles
        ):
            fail('"shingles" must be a list of unsigned 64-bit integers')

        emitted_at = _parse_time(data.get("emitted_at"), fail)

        params = None
        if "shingling" in data:
            try:
                params = ShingleParams.from_dict(data["shingling"])
            except (KeyError, TypeError, ValueError):
                fail('"shingling" must be {"normaliser": str, "k": int, "hash": str}')

        text = data.get("text")
        if text is not None:
            if not isinstance(text, str):
                fail('"text" must be a string')
            try:
                text_sha256 = sha256_hex(text)
            except UnicodeEncodeError as error:
                fail(f'"text" holds a lone surrogate at {error.start}: not valid Unicode')
            if text_sha256 != data["sha256"]:
                fail('"sha256" is not the sha256 of "text"')

        return cls(
            kind=data["kind"],
            name=data["name"],
            sha256=data["sha256"],
            shingles=np.array(shingles, dtype=np.uint64),
            emitted_at=emitted_at,
            params=params,
            text=text,
        )

    @classmethod
    def from_json_line(cls, line: str, *, source: str = "<manifest>", lineno: int = 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ManifestError(
                f"not valid JSON: {exc.msg} at column {exc.colno}", source=source, lineno=lineno
            ) from None
        return cls.from_dict(data, source=source, lineno=lineno)


def as_utc(moment: datetime) -> datetime:
    """An aware UTC time; a naive one is taken to be UTC already. A time whose UTC falls
    outside years 1 to 9999 (9999-12-31T23:00-05:00) is a ValueError that says so."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{moment.isoformat()} is out of range in UTC (years 1 to 9999)") from None


def _parse_time(value, fail) -> datetime:
    if value is None:
        fail('missing "emitted_at"')
    if not isinstance(value, str):
        fail('"emitted_at" must be an ISO 8601 string')
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        fail(f'"emitted_at" is not an ISO 8601 time: {value!r}')
    try:
        return as_utc(moment)
    except ValueError as error:
        fail(f'"emitted_at": {error}')
