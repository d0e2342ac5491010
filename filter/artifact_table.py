"""The artifacts a DerivedFilter holds, numbered in the order they were added.

Append-only and shared between a filter and its copies: a copy is the same columns and a
length, made in constant time, so a process that registers an artifact a second into a filter
of a million does not copy a million of anything a second (filter.DerivedFilter.copy). A table
reads only its first `len` rows; the rows a later copy appended are not its own. Appending to
a table that is not the longest of its family first detaches it (copies its own rows): rare,
and what keeps every table's rows as they were when it was made.

Besides the records: each one's token count, min_shared and kind (a code into `kind_names`)
as arrays (what choosing candidates and measuring a batch's matches read, no Python loop),
and a dict of keys to numbers (an artifact is held once).
"""

import numpy as np

from filter.artifacts import ArtifactRecord


class _Columns:
    __slots__ = ("records", "numbers", "tokens", "min_shared", "kinds", "kind_names", "codes")

    def __init__(self, capacity: int = 1024):
        self.records: list[ArtifactRecord] = []
        self.numbers: dict[tuple[str, str, str], int] = {}
        self.tokens = np.empty(capacity, dtype=np.int64)
        self.min_shared = np.empty(capacity, dtype=np.int64)
        self.kinds = np.empty(capacity, dtype=np.int64)
        # each kind's code, in the order they came (append-only: a code never changes)
        self.kind_names: list[str] = []
        self.codes: dict[str, int] = {}

    def code_of(self, kind: str) -> int:
        code = self.codes.get(kind)
        if code is None:
            code = self.codes[kind] = len(self.kind_names)
            self.kind_names.append(kind)
        return code

    def grown(self) -> None:
        """Twice the room in the arrays: new arrays, so that a table reading the old ones
        (its first rows, which are copied as they are) is not disturbed."""
        for name in ("tokens", "min_shared", "kinds"):
            old = getattr(self, name)
            new = np.empty(2 * len(old), dtype=np.int64)
            new[: len(old)] = old
            setattr(self, name, new)


class ArtifactTable:
    __slots__ = ("_columns", "_n")

    def __init__(self, columns: _Columns | None = None, n: int = 0):
        self._columns, self._n = columns or _Columns(), n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, at):
        if isinstance(at, slice):
            return self._columns.records[: self._n][at]
        if not -self._n <= at < self._n:
            raise IndexError("artifact number out of range")
        return self._columns.records[at % self._n]

    def take(self, numbers: list[int]) -> list[ArtifactRecord]:
        """The records numbered `numbers` (each below len: what a lookup of this table's
        index gives), without a bounds check each."""
        if numbers and not 0 <= min(numbers) <= max(numbers) < self._n:
            raise IndexError("artifact number out of range")
        records = self._columns.records
        return [records[n] for n in numbers]

    def __iter__(self):
        records = self._columns.records
        return (records[i] for i in range(self._n))

    def holds(self, key: tuple[str, str, str]) -> bool:
        number = self._columns.numbers.get(key)
        return number is not None and number < self._n

    def number_of(self, key: tuple[str, str, str]) -> int:
        """The artifact's number here; KeyError when this table does not hold it."""
        number = self._columns.numbers[key]
        if number >= self._n:
            raise KeyError(key)
        return number

    def append(self, record: ArtifactRecord, min_shared: int) -> None:
        columns = self._columns
        if self._n != len(columns.records):
            columns = self._columns = self._detached(lambda _, shared: shared)
        if self._n == len(columns.tokens):
            columns.grown()
        columns.tokens[self._n] = record.n_tokens
        columns.min_shared[self._n] = min_shared
        columns.kinds[self._n] = columns.code_of(record.kind)
        columns.numbers.setdefault(record.key, self._n)
        columns.records.append(record)
        self._n += 1

    def copy(self) -> "ArtifactTable":
        return ArtifactTable(self._columns, self._n)

    def with_min_shared(self, min_shared_of) -> "ArtifactTable":
        """A table of the same records whose min_shared is min_shared_of(record, old value)."""
        return ArtifactTable(self._detached(min_shared_of), self._n)

    def _detached(self, min_shared_of) -> _Columns:
        own = _Columns(max(1024, 2 * self._n))
        own.records = self._columns.records[: self._n]
        own.numbers = {k: v for k, v in self._columns.numbers.items() if v < self._n}
        own.tokens[: self._n] = self._columns.tokens[: self._n]
        own.kinds[: self._n] = self._columns.kinds[: self._n]
        own.kind_names, own.codes = list(self._columns.kind_names), dict(self._columns.codes)
        own.min_shared[: self._n] = [
            min_shared_of(record, int(shared))
            for record, shared in zip(own.records, self._columns.min_shared[: self._n], strict=True)
        ]
        return own

    @property
    def tokens(self) -> np.ndarray:
        return self._columns.tokens[: self._n]

    @property
    def min_shared(self) -> np.ndarray:
        return self._columns.min_shared[: self._n]

    @property
    def kinds(self) -> np.ndarray:
        """Each artifact's kind as a code: kind_names[code] is its name."""
        return self._columns.kinds[: self._n]

    @property
    def kind_names(self) -> list[str]:
        return self._columns.kind_names
