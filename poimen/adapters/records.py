"""What every adapter sends and keeps: a text as a record with a stable id, a decision as
metadata, and the block of memories a system injects as the artifact it is."""

import hashlib

from poimen.agent.client import CheckResult

# The kind a block of injected memories is registered as: the desk's own kind for what
# an agent loads from its memory (CLAUDE.md, memory files).
INJECTED_KIND = "memory"


def record_id(*parts: object) -> str:
    """An id that is the same whenever the same text is sent from the same place, so that a
    resend adds nothing on the server."""
    joined = "\x1f".join("" if part is None else str(part) for part in parts)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def decision_metadata(result: CheckResult) -> dict:
    """poimen's decision on one record, as it goes into the memory's metadata."""
    decision = {"status": result.status, "id": str(result.id)}
    if result.shadow:
        decision["shadow"] = True
    if result.matches:
        best = result.matches[0]
        decision["matched"] = f"{best.kind}/{best.name}"
        decision["overlap"] = best.overlap
    return decision


def injected_name(system: str, block: str) -> str:
    """The name a block is registered under: its system and its digest (the same block is
    registered once)."""
    return f"{system}-injected/{hashlib.sha256(block.encode('utf-8')).hexdigest()[:16]}"
