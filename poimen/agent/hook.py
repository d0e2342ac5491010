"""poimen-hook: Claude Code's hooks, sent to poimen's API. Imports nothing of Django.

Reads one hook event (JSON) on stdin:
- Stop, SubagentStop, SessionEnd, PreCompact, PostCompact (they carry transcript_path and
  session_id; SubagentStop the sub-agent's own agent_transcript_path, which is the one sent):
  the transcript is read with poimen's own reader, and the records not sent yet are checked
  and stored (kept by their identity: a resend adds nothing on the server either);
- PostToolUse of Write, Edit or MultiEdit on a SKILL.md, a memory file (CLAUDE.md,
  CLAUDE.local.md, AGENTS.md, a file in a memory/ folder), or an agent or command definition
  in .claude/: the file's new content is registered as a new version of that artifact. The
  write is kept in the state folder's spool/ first (its content as written) and removed once
  registered; what poimen did not take (down, not configured, out of time) is sent, in the
  order written, by the next event that reaches poimen. The server registers a text once
  however often it comes, so a kept write counts exactly once.

It never blocks or fails the agent: whatever happens it exits 0 within POIMEN_HOOK_TIMEOUT
seconds, and says what it did, or why it could not, in its log file.

Configured by the environment: POIMEN_URL, POIMEN_TOKEN, POIMEN_HOOK_TIMEOUT (seconds,
default 20), POIMEN_HOOK_LOG (default ~/.poimen/hook.log), POIMEN_HOOK_STATE (the folder
remembering what was sent, each record by its identity, default ~/.poimen/hook-state).
"""

import hashlib
import json
import logging
import os
import signal
import stat
import sys
import tempfile
import time
from pathlib import Path

from poimen.agent.agent_files import file_artifact, is_agent_file
from poimen.agent.client import UNCHECKED, Client
from poimen.readers import Candidate, read_file, record_keys

TRANSCRIPT_EVENTS = frozenset({"Stop", "SubagentStop", "SessionEnd", "PreCompact", "PostCompact"})
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})

log = logging.getLogger("poimen.agent.hook")


class _OutOfTime(Exception):
    pass


def _home() -> Path:
    return Path(os.environ.get("HOME") or tempfile.gettempdir()) / ".poimen"


def _setup_log() -> None:
    path = Path(os.environ.get("POIMEN_HOOK_LOG") or _home() / "hook.log")
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in ("poimen.agent.hook", "poimen.agent.client"):
        logging.getLogger(name).addHandler(handler)
        logging.getLogger(name).setLevel(logging.INFO)


# The most of an event read from stdin (a Write's event holds the file it wrote), and of a
# written file read to register it (a skill or a memory file is a few kilobytes): a hook
# never reads what cannot be an artifact (/dev/zero, a 2 GB file).
MAX_EVENT_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 1024 * 1024
# The seconds a setting may say: under the least the alarm would fire before anything ran.
SECONDS_RANGE = (0.1, 3600.0)


def main() -> None:
    """The console script: handle one event, exit 0 whatever happens, by the deadline."""
    try:
        _setup_log()
    except OSError:
        pass  # no log file: the hook still must not fail the agent
    timeout = None
    try:
        timeout = _seconds("POIMEN_HOOK_TIMEOUT", 20)
        signal.signal(signal.SIGALRM, _out_of_time)
        try:
            # Armed inside the try: an alarm, however soon, ends up in the handlers below.
            signal.setitimer(signal.ITIMER_REAL, timeout)
            handle(_event(sys.stdin.buffer))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _OutOfTime:
        log.error(
            "gave up after %ss (POIMEN_HOOK_TIMEOUT): what was not answered is sent at the next "
            "event",
            timeout,
        )
    except BaseException:  # the agent must go on, whatever went wrong here (MemoryError too)
        log.exception("hook failed")
    sys.exit(0)


def _out_of_time(signum, frame):
    raise _OutOfTime


def _event(stream) -> dict:
    """The hook event on stdin, read up to MAX_EVENT_BYTES; {} (and a log line) for one
    larger, or not a JSON object."""
    raw = stream.read(MAX_EVENT_BYTES + 1)
    if len(raw) > MAX_EVENT_BYTES:
        log.warning("an event of over %d bytes on stdin: not read", MAX_EVENT_BYTES)
        return {}
    event = json.loads(raw or b"{}")
    if not isinstance(event, dict):
        log.warning("the event on stdin is a JSON %s, not an object", type(event).__name__)
        return {}
    return event


def _seconds(variable: str, default: float) -> float:
    """A number of seconds in SECONDS_RANGE from the environment; else `default`, said in the
    log (0 would turn the alarm off: the hook could then hang the agent)."""
    value = os.environ.get(variable)
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    least, most = SECONDS_RANGE
    if not least <= seconds <= most:
        log.warning(
            "%s=%r is not a number of seconds from %g to %g: %ss instead",
            variable,
            value,
            least,
            most,
            default,
        )
        return default
    return seconds


def handle(event: dict) -> None:
    state_dir = Path(os.environ.get("POIMEN_HOOK_STATE") or _home() / "hook-state")
    name = event.get("hook_event_name")
    writes = name == "PostToolUse" and event.get("tool_name") in WRITE_TOOLS
    if writes:  # kept first, whatever follows: not configured yet, down, out of time
        keep_written_file(event, state_dir)
    url, token = os.environ.get("POIMEN_URL"), os.environ.get("POIMEN_TOKEN")
    if not url or not token:
        log.error("POIMEN_URL and POIMEN_TOKEN must be set; nothing sent")
        return
    timeout = _seconds("POIMEN_HOOK_REQUEST_TIMEOUT", 10)
    client = Client(url, token, timeout=timeout, on_error="allow")
    send_spooled(client, state_dir)
    if name in TRANSCRIPT_EVENTS and _transcript_path(event):
        send_transcript(client, event, state_dir)
    elif not writes:
        log.info("%s: nothing to do", name)


def _transcript_path(event: dict) -> str | None:
    """The transcript an event is about: a sub-agent's own on SubagentStop (the main
    session's transcript_path does not hold the sub-agent's turns)."""
    if event.get("hook_event_name") == "SubagentStop" and event.get("agent_transcript_path"):
        return event["agent_transcript_path"]
    return event.get("transcript_path")


# --- transcripts -----------------------------------------------------------------------------


# What a state file remembers records by: 2, a record's identity where it has one (the same
# record under any source label, as the server stores it once), else its source and id; a
# file without a version (1) remembers each by its source and id, and is read once so, then
# written again by identity.
STATE_VERSION = 2


def _digest(key: tuple) -> str:
    label, value = key  # label None: an identity, under any label (sources are never empty)
    return hashlib.sha256(f"{label or ''}\0{value}".encode()).hexdigest()[:24]


def _key(candidate: Candidate) -> str:
    return _digest(record_keys(candidate)[-1])


def _key_by_source_and_id(candidate: Candidate) -> str:
    """What a state file of version 1 remembers `candidate` by."""
    return _digest((candidate.source, candidate.external_id))


def _state_file(state_dir: Path, session: str, transcript: Path) -> Path:
    # The transcript's path is in the name: a sub-agent's transcript shares its session id.
    digest = hashlib.sha256(f"{session}\0{transcript}".encode()).hexdigest()[:24]
    return state_dir / f"{digest}.json"


def _read_sent(path: Path) -> tuple[set[str], set[str]]:
    """The records a state file says were sent: (by identity, by source and id) as its
    version remembers them; both empty when there is no file or it cannot be read."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        sent = set(state["sent"])
        version = state.get("version", 1)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return set(), set()
    if version == STATE_VERSION:
        return sent, set()
    if version == 1:
        return set(), sent
    log.warning(
        "%s: a state file of version %s, not read: its records are sent again", path, version
    )
    return set(), set()


def _write_sent(path: Path, sent: set[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        json.dump({"version": STATE_VERSION, "sent": sorted(sent)}, stream)
    os.replace(temporary, path)


def send_transcript(client: Client, event: dict, state_dir: Path) -> None:
    transcript = Path(_transcript_path(event)).expanduser()
    session = str(event.get("session_id") or transcript.stem)
    state = _state_file(state_dir, session, transcript)
    health = client.health()
    if not health.up:
        # Nothing is marked sent: the next event sends it all, the server keeping each once.
        log.warning(
            "%s %s: poimen is not up (%s); nothing sent, the next event sends it",
            event.get("hook_event_name"),
            transcript,
            health.database,
        )
        return
    sent, sent_by_source_and_id = _read_sent(state)
    limits = health.limits
    records, keys, problems = [], [], 0
    for item in read_file(
        transcript, max_record_bytes=limits["bytes"], max_document_bytes=limits["bytes"]
    ):
        if not isinstance(item, Candidate):
            problems += hasattr(item, "why")
            continue
        key = _key(item)
        if key in sent:
            continue
        if _key_by_source_and_id(item) in sent_by_source_and_id:  # a version 1 file's
            sent.add(key)
            continue
        metadata = {**item.metadata, "transcript": str(transcript), "line": item.position}
        records.append(
            {
                "id": item.external_id,
                "text": item.text,
                "role": item.role,
                "session": item.session,
                "source": item.source,
                "metadata": metadata,
                # the same as `ingest` of this transcript gives it: stored once either way
                "identity": item.identity or None,
            }
        )
        keys.append(key)
    results = client.check(records) if records else []
    counts = {"evidence": 0, "redacted": 0, "excluded": 0, UNCHECKED: 0, "error": 0}
    for key, result in zip(keys, results, strict=True):
        if result.error:
            counts["error"] += 1
            log.warning("%s: record %s refused: %s", transcript, result.id, result.error)
        else:
            counts[result.status] = counts.get(result.status, 0) + 1
        if result.status != UNCHECKED:  # unchecked ones go again next time
            sent.add(key)
    _write_sent(state, sent)
    log.info(
        "%s %s: %d new records sent (%s), %d problems in the file",
        event.get("hook_event_name"),
        transcript,
        len(records),
        ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "none",
        problems,
    )


# --- artifacts -------------------------------------------------------------------------------


def keep_written_file(event: dict, state_dir: Path) -> None:
    """Keep the written file's content in the spool if it is an artifact: kept before it is
    sent, so no timeout, crash or server down between the two loses it."""
    file_path = (event.get("tool_input") or {}).get("file_path")
    if not isinstance(file_path, str):
        log.info("PostToolUse %s without a file_path: nothing to do", event.get("tool_name"))
        return
    project = Path(event.get("cwd") or os.getcwd())
    path = Path(file_path) if Path(file_path).is_absolute() else project / file_path
    if not is_agent_file(path):
        return  # decided by its path alone, before a byte of it is read
    text = _artifact_text(path)
    if text is None:
        return
    named = file_artifact(path, text, project)  # as import_artifacts --project names it
    if named is None:
        return
    kind, name = named
    if not text.strip():
        log.info("%s: empty, not registered", path)
        return
    _spool(state_dir, {"kind": kind, "name": name, "text": text, "path": str(path)})


def _spool(state_dir: Path, write: dict) -> Path:
    """Keep an artifact write that could not be sent; its name orders it after every earlier
    one (the later version of a file must be registered last)."""
    spool = state_dir / "spool"
    spool.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(f"{write['kind']}\0{write['name']}\0{write['text']}".encode())
    path = spool / f"{time.time_ns():020d}-{digest.hexdigest()[:16]}.json"
    fd, temporary = tempfile.mkstemp(dir=spool, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        json.dump(write, stream)
    os.replace(temporary, path)  # whole or not at all: a crash leaves no half a write
    return path


def send_spooled(client: Client, state_dir: Path) -> None:
    """Send the kept artifact writes (this event's too), oldest first, each removed once poimen
    registered it; at the first that cannot be sent the rest wait for the next event. A write
    sent twice (two hooks at once, a crash before the removal) is one artifact: the server
    keeps a text once."""
    spool = state_dir / "spool"
    try:
        kept = sorted(spool.glob("*.json"))
    except OSError:
        return
    for path in kept:
        try:
            write = json.loads(path.read_text(encoding="utf-8"))
            kind, name, text = write["kind"], write["name"], write["text"]
        except FileNotFoundError:
            continue  # another hook sent it
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.error("%s: a kept write that cannot be read (%s): left for a person", path, error)
            continue
        artifact = client.register(kind, name, text)
        if artifact is None:
            log.warning(
                "%s/%s and the writes after it are kept, sent with the next event", kind, name
            )
            return
        path.unlink(missing_ok=True)
        state = "registered" if artifact.created else "known already"
        log.info("%s: %s/%s %s (%s)", write.get("path"), kind, name, state, artifact.sha256[:12])


def _artifact_text(path: Path) -> str | None:
    """A written file's text, read only when it is a regular file of at most MAX_FILE_BYTES;
    None (and a log line) otherwise."""
    try:
        # Asked before it is opened: opening a FIFO waits for a writer.
        if not stat.S_ISREG(os.stat(path).st_mode):
            log.warning("%s: not a regular file (a device, a FIFO), not read", path)
            return None
        with open(path, "rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            log.warning("%s: over %d bytes, no artifact: not registered", path, MAX_FILE_BYTES)
            return None
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        log.warning("%s: cannot read it: %s", path, error)
        return None
