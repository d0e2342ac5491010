"""A client for poimen's JSON API that imports nothing of Django (only the standard library).

    from poimen.agent.client import Client
    guard = Client("http://poimen.internal:8000", token, timeout=2.0, on_error="allow")
    for result in guard.check([{"id": "m1", "text": text, "role": "assistant"}]):
        if result.keep:
            store(result.text_to_keep)

With on_error="allow" (the default: fail open), a guard that is down, slow or refusing never
stops the memory system: the records come back marked "unchecked" and the failure is logged.
With on_error="raise" (fail closed), a PoimenError is raised instead, and a write wrapped in
the check does not happen. Every failure counts: no answer, an error status, an answer that is
not what the API answers (not JSON, fields missing), a server that does not speak HTTP, one
that trickles its answer. `timeout` is the whole call's deadline (its requests together),
however the server drips its bytes. A token (or a source) in shadow mode has every record
decided and recorded, and kept (`keep`, `text_to_keep`), its `status` saying what would have
happened.
"""

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger("poimen.agent.client")

UNCHECKED = "unchecked"
# What a request may hold until the server says (GET /api/v1/health tells its limits).
FALLBACK_LIMITS = {"records": 100, "bytes": 1024 * 1024}


class PoimenError(Exception):
    """The API could not be reached or refused the request (status None: not reached)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Match:
    kind: str
    name: str
    sha256: str
    overlap: float
    threshold: float
    spans: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class CheckResult:
    """One record's answer: status "evidence", "redacted", "excluded", or "unchecked" (the
    guard could not answer), or an `error` of its own (the record was not readable)."""

    id: object
    status: str | None
    text: str
    derived: bool | None = None
    evidence_text: str | None = None
    matches: tuple[Match, ...] = ()
    stored: str | None = None
    error: str | None = None
    # Decided in shadow mode (the token's or the source's): `status` says what would have
    # happened, and the record is kept whole all the same.
    shadow: bool = False

    @property
    def keep(self) -> bool:
        """Whether a memory system may keep the record: not a copy of what it emitted (in
        shadow mode, every readable record)."""
        return self.error is None and (self.shadow or self.status != "excluded")

    @property
    def text_to_keep(self) -> str:
        """The genuine text: a redacted record's evidence text, else the record's own (in
        shadow mode, the record's own)."""
        return self.evidence_text if self.status == "redacted" and not self.shadow else self.text


@dataclass(frozen=True)
class Artifact:
    id: int
    kind: str
    name: str
    sha256: str
    n_tokens: int
    created: bool  # False: the same text was registered before


@dataclass(frozen=True)
class Health:
    up: bool
    database: str
    index_version: str | None
    artifacts: int | None
    limits: dict


class Client:
    def __init__(
        self, base_url: str, token: str, timeout: float = 2.0, on_error: str = "allow"
    ) -> None:
        if on_error not in ("allow", "raise"):
            raise ValueError(f'on_error is "allow" or "raise", not {on_error!r}')
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.on_error = on_error
        self._limits: dict | None = None

    # --- the three calls -------------------------------------------------------------------

    def check(self, records: Iterable[dict], store: bool = True) -> list[CheckResult]:
        """Each record ({"id", "text", "role"?, "session"?, "source"?, "metadata"?,
        "identity"?}) answered in order; sent in as many requests as the server's limits
        need."""
        records = list(records)
        deadline = time.monotonic() + self.timeout
        try:
            batches, unreached = list(self._batches(records, deadline)), None
        except PoimenError as error:  # its limits could not be asked: it is not there
            batches, unreached = [records], error  # one wait for the timeout, not two
        results: list[CheckResult] = []
        for batch in batches:
            try:
                if unreached is not None:
                    raise unreached
                body = {"records": batch, "store": store}
                answer = self._request("POST", "/api/v1/check", body, deadline=deadline)
                results.extend(_parsed("POST /api/v1/check", _check_results, batch, answer))
            except PoimenError as error:
                if self.on_error == "raise":
                    raise
                log.warning("poimen unchecked %d records: %s", len(batch), error)
                results.extend(
                    CheckResult(id=_id(r), status=UNCHECKED, text=_text(r)) for r in batch
                )
        return results

    def register(self, kind: str, name: str, text: str) -> Artifact | None:
        """Register an emitted artifact; None when the guard could not be reached (allow)."""
        deadline = time.monotonic() + self.timeout
        try:
            body = {"kind": kind, "name": name, "text": text}
            answer = self._request("POST", "/api/v1/artifacts", body, deadline=deadline)
            return _parsed("POST /api/v1/artifacts", _artifact, answer)
        except PoimenError as error:
            if self.on_error == "raise":
                raise
            log.warning("poimen did not register %s/%s: %s", kind, name, error)
            return None

    def health(self) -> Health:
        """The server's health; never raises (a server that cannot be reached is not up)."""
        deadline = time.monotonic() + self.timeout
        try:
            answer = self._request("GET", "/api/v1/health", accept=(200, 503), deadline=deadline)
            health = _parsed("GET /api/v1/health", _health, answer)
        except PoimenError as error:
            return Health(False, f"not reached: {error}", None, None, dict(FALLBACK_LIMITS))
        self._limits = health.limits
        return health

    # --- the wire --------------------------------------------------------------------------

    def _batches(self, records: list[dict], deadline: float) -> Iterable[list[dict]]:
        """`records` in requests the server takes; PoimenError when its limits cannot be
        asked (GET /api/v1/health), as then no request would be answered either."""
        if not records:
            return
        if self._limits is None:
            answer = self._request("GET", "/api/v1/health", accept=(200, 503), deadline=deadline)
            self._limits = _parsed("GET /api/v1/health", _health, answer).limits
        limits = self._limits
        budget = limits["bytes"] - 1024  # the envelope around the records
        batch, size = [], 0
        for record in records:
            length = len(json.dumps(record, ensure_ascii=False).encode("utf-8")) + 1
            if batch and (len(batch) >= limits["records"] or size + length > budget):
                yield batch
                batch, size = [], 0
            batch.append(record)
            size += length
        if batch:
            yield batch

    def _request(self, method: str, path: str, body=None, accept=(200, 201), *, deadline) -> dict:
        """The JSON object answered, by `deadline` (time.monotonic): the request runs in a
        thread of its own, given up when the deadline passes (a server dripping a byte a
        second never trips a socket's timeout)."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise PoimenError(f"{method} {path}: not sent, the {self.timeout}s deadline passed")
        outcome: list = []

        def send():
            try:
                outcome.append(self._exchange(method, path, body, accept, left))
            except BaseException as error:  # handed to the caller's thread
                outcome.append(error)

        # A daemon thread: one given up on never keeps the process from exiting.
        worker = threading.Thread(target=send, name="poimen-client", daemon=True)
        worker.start()
        worker.join(left)
        if not outcome:
            raise PoimenError(f"{method} {path}: timed out, no answer within {self.timeout}s")
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def _exchange(self, method: str, path: str, body, accept, timeout: float) -> dict:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    status, payload = response.status, response.read()
            except urllib.error.HTTPError as error:
                status, payload = error.code, error.read()
        except (OSError, ValueError, http.client.HTTPException) as error:
            # refused, timed out, a bad URL, a server that does not speak HTTP
            raise PoimenError(f"{method} {path}: {type(error).__name__}: {error}") from None
        try:
            answer = json.loads(payload)
        except (ValueError, RecursionError):
            raise PoimenError(f"{method} {path}: HTTP {status}, not JSON", status) from None
        if status not in accept:
            detail = answer.get("detail") if isinstance(answer, dict) else answer
            raise PoimenError(f"{method} {path}: HTTP {status}: {detail}", status)
        if not isinstance(answer, dict):
            raise PoimenError(f"{method} {path}: HTTP {status}, not a JSON object", status)
        answer["_status"] = status
        return answer


def _parsed(what: str, parse: Callable, *args):
    """parse(*args); an answer that is not what the API answers (a field missing, of another
    type, results not one per record) is a PoimenError like any other failure."""
    try:
        return parse(*args)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise PoimenError(
            f"{what}: an unexpected answer ({type(error).__name__}: {error})"
        ) from None


def _check_results(batch: list[dict], answer: dict) -> list["CheckResult"]:
    got = answer["results"]
    if len(got) != len(batch):
        raise ValueError(f"{len(got)} results for {len(batch)} records")
    shadow = bool(answer.get("shadow"))
    return [_check_result(sent, one, shadow=shadow) for sent, one in zip(batch, got, strict=True)]


def _artifact(answer: dict) -> Artifact:
    return Artifact(
        id=answer["id"],
        kind=answer["kind"],
        name=answer["name"],
        sha256=answer["sha256"],
        n_tokens=answer["n_tokens"],
        created=answer["_status"] == 201,
    )


def _health(answer: dict) -> Health:
    limits = answer["limits"]
    if not (isinstance(limits["records"], int) and isinstance(limits["bytes"], int)):
        raise TypeError(f"limits {limits!r} are not numbers")
    return Health(
        up=answer["status"] == "ok",
        database=answer["database"],
        index_version=answer["index_version"],
        artifacts=answer["artifacts"],
        limits=limits,
    )


def _id(record) -> object:
    return record.get("id") if isinstance(record, dict) else None


def _text(record: dict) -> str:
    text = record.get("text") if isinstance(record, dict) else None
    return text if isinstance(text, str) else ""


def _check_result(sent: dict, got: dict, shadow: bool = False) -> CheckResult:
    return CheckResult(
        id=got.get("id"),
        status=got.get("status"),
        text=_text(sent),
        derived=got.get("derived"),
        evidence_text=got.get("evidence_text"),
        matches=tuple(
            Match(
                kind=m["kind"],
                name=m["name"],
                sha256=m["sha256"],
                overlap=m["overlap"],
                threshold=m["threshold"],
                spans=tuple(tuple(span) for span in m["spans"]),
            )
            for m in got.get("matches") or ()
        ),
        stored=got.get("stored"),
        error=got.get("error"),
        # The token's mode (the answer's) or the record's source's (its own).
        shadow=shadow or got.get("shadow") is True,
    )
