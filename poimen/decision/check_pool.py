"""Checking batches of records in worker processes, in order, while the caller writes.

The workers are forked after the filter is built, so each starts with the index already in
memory and never touches the database.
"""

import multiprocessing
from collections import deque
from collections.abc import Iterator

from filter import DerivedFilter
from poimen.decision.checked import Checked, check_texts

# The filter a forked worker inherited; set in the parent just before the fork.
_worker_filter: DerivedFilter | None = None


def _check_in_worker(texts: list[str]) -> list[Checked]:
    return check_texts(_worker_filter, texts)


class BatchChecker:
    """Checks batches in order, with up to `workers` batches in flight in worker processes
    (0: in this process, one at a time). Memory is bounded by the batches in flight.

    The workers start with the second batch: an input of one batch is not worth a fork."""

    def __init__(self, derived_filter: DerivedFilter, *, workers: int = 0):
        self.derived_filter = derived_filter
        self.workers = workers
        self.pool = None
        self.retired: list = []  # pools of a filter no longer in use, finishing their batches
        self.submitted = 0
        self.pending: deque = deque()

    def __enter__(self) -> "BatchChecker":
        return self

    def __exit__(self, *exc_info) -> None:
        for pool in [*self.retired, self.pool]:
            if pool is not None:
                pool.terminate()
                pool.join()
        self.pool, self.retired = None, []

    def use(self, derived_filter: DerivedFilter) -> None:
        """Check the batches submitted from now on with `derived_filter`; those in flight
        are checked with the filter they were sent to. Workers hold the filter they were
        forked with: the next batch forks new ones, and the old finish what they hold."""
        self.derived_filter = derived_filter
        if self.pool is not None:
            self.pool.close()
            self.retired.append(self.pool)
            self.pool = None

    def _start_workers(self) -> None:
        global _worker_filter
        _worker_filter = self.derived_filter
        # fork: the workers start with the index built; they never use the parent's database
        # connection, and exit without running its finalizers.
        self.pool = multiprocessing.get_context("fork").Pool(self.workers)

    def submit(self, batch, texts: list[str]) -> Iterator[tuple[object, list[Checked]]]:
        """Queue `batch` (any payload) for checking; yield the batches that are done, in order."""
        self.submitted += 1
        if self.pool is None and self.workers > 0 and self.submitted > 1:
            self._start_workers()
        if self.pool is None:
            yield batch, check_texts(self.derived_filter, texts)
            return
        self.pending.append((batch, self.pool.apply_async(_check_in_worker, (texts,))))
        # Keep the workers busy while the parent writes: one batch in flight beyond them.
        while len(self.pending) > self.workers:
            done, result = self.pending.popleft()
            yield done, result.get()

    def drain(self) -> Iterator[tuple[object, list[Checked]]]:
        while self.pending:
            done, result = self.pending.popleft()
            yield done, result.get()
