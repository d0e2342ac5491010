"""Reading rate per transcript format: records/s of `read_sources`, no database.

    python -m bench.formats                  # 20,000 records a format
    python -m bench.formats --records 5000
    python -m bench.formats --ingest         # and records_ingest of each into PostgreSQL

Each format's corpus holds the same kind of ~1 KB assistant turns, written in the shapes real
sessions have around them: Claude Code lines with their envelope, thinking and tool_use blocks
and file-history snapshots; Codex rollouts with session_meta, turn_context, event_msg lines,
reasoning and JSON-wrapped call outputs; Aider histories; ChatGPT mapping trees; Anthropic
request documents; Gemini checkpoints; one .md file a record. Target: no format reads slower
than half the records-JSONL rate. With --ingest, each corpus is also ingested (read, checked
against 200 artifacts, written) into a freshly created PostgreSQL database.
"""

import argparse
import itertools
import json
import os
import random
import tempfile
import time
from pathlib import Path

from bench.harness import recreate_database


class Texts:
    """Seeded prose of a 4,000-word Zipf-like vocabulary (real words at the top of it), so that
    unrelated texts share a 5-word window rarely, as real turns do."""

    COMMON = (
        "the a to of and in is for on that with as it be by this are or from at migration "
        "table column batch lock index query deploy release test skill session backfill"
    ).split()

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        vocabulary = self.COMMON + [f"w{number}" for number in range(4000 - len(self.COMMON))]
        self.words = vocabulary
        weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
        self.cumulative = list(itertools.accumulate(weights))

    def turn(self, size: int = 1000) -> str:
        words = self.rng.choices(self.words, cum_weights=self.cumulative, k=size // 4)
        text = " ".join(words)
        while len(text) < size:
            text += " " + " ".join(self.rng.choices(self.words, cum_weights=self.cumulative, k=16))
        return text[:size]


def _lines(path: Path, rows) -> None:
    with open(path, "w", encoding="utf-8") as stream:
        for row in rows:
            stream.write(json.dumps(row) + "\n")


def write_records(folder, n, texts):
    _lines(folder / "records.jsonl", ({"id": f"r{i}", "text": texts.turn()} for i in range(n)))


def write_chat(folder, n, texts):
    roles = ("user", "assistant")
    _lines(
        folder / "chat.jsonl", ({"role": roles[i % 2], "content": texts.turn()} for i in range(n))
    )


def write_claude_code(folder, n, texts):
    """A record per line, as sessions have them: a prompt, an answer with thinking and a
    tool call, the tool's result; a file-history snapshot now and then."""
    envelope = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/ledger",
        "sessionId": "5e1c2b7a-0d3f-4a9e-8c21-7f6b5a4d3c2e",
        "version": "2.0.31",
        "gitBranch": "main",
    }

    def rows():
        for i in range(n):
            ts = f"2026-11-30T10:{i // 600 % 60:02d}:{i // 10 % 60:02d}.{i % 1000:03d}Z"
            if i % 10 == 0:
                yield {
                    "type": "file-history-snapshot",
                    "messageId": f"m{i}",
                    "snapshot": {"trackedFileBackups": {}, "timestamp": ts},
                }
            if i % 3 == 0:
                content = texts.turn()
                kind = "user"
            elif i % 3 == 1:
                kind = "assistant"
                content = [
                    {"type": "thinking", "thinking": texts.turn(200), "signature": "Ep"},
                    {"type": "text", "text": texts.turn()},
                    {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": "Read",
                        "input": {"file_path": "/home/dev/ledger/README.md"},
                    },
                ]
            else:
                kind = "user"
                content = [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{i - 1}",
                        "content": [{"type": "text", "text": texts.turn()}],
                    }
                ]
            message = {"role": kind, "content": content}
            if kind == "assistant":
                message |= {
                    "id": f"msg_{i}",
                    "model": "claude-sonnet-4-5",
                    "usage": {"input_tokens": 4, "output_tokens": 300},
                }
            yield {
                "parentUuid": f"u{i - 1}",
                **envelope,
                "type": kind,
                "message": message,
                "uuid": f"u{i}",
                "timestamp": ts,
            }

    _lines(folder / "session.jsonl", rows())


def write_codex(folder, n, texts):
    def rows():
        ts = "2026-11-30T11:00:00.000Z"
        yield {
            "timestamp": ts,
            "type": "session_meta",
            "payload": {
                "id": "019ad3b2-5c4e-7a10-9f2b-6e8d4c2a1b07",
                "cwd": "/home/dev",
                "cli_version": "0.63.0",
                "git": {"branch": "main"},
            },
        }
        for i in range(n):
            if i % 3 == 0:
                yield {
                    "timestamp": ts,
                    "type": "turn_context",
                    "payload": {"cwd": "/home/dev", "model": "gpt-5-codex", "effort": "medium"},
                }
                text = texts.turn()
                yield {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": text}],
                    },
                }
                yield {
                    "timestamp": ts,
                    "type": "event_msg",
                    "payload": {"type": "user_message", "message": text},
                }
            elif i % 3 == 1:
                yield {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": "**Plan**"}],
                        "encrypted_content": "gAAAA" * 40,
                    },
                }
                yield {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "shell",
                        "call_id": f"call_{i}",
                        "arguments": json.dumps({"command": ["bash", "-lc", "cat README.md"]}),
                    },
                }
                yield {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "function_call_output",
                        "call_id": f"call_{i}",
                        "output": json.dumps(
                            {
                                "output": texts.turn(),
                                "metadata": {"exit_code": 0, "duration_seconds": 0.1},
                            }
                        ),
                    },
                }
            else:
                yield {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": texts.turn()}],
                    },
                }
                yield {
                    "timestamp": ts,
                    "type": "event_msg",
                    "payload": {"type": "token_count", "info": {"total": i}},
                }

    _lines(folder / "rollout-2026-11-30T11-00-00-bench.jsonl", rows())


def write_aider(folder, n, texts):
    with open(folder / "aider.chat.history.md", "w", encoding="utf-8") as stream:
        stream.write("\n# aider chat started at 2026-11-28 09:14:02\n\n")
        for i in range(n):
            if i % 3 == 0:
                stream.write(f"\n#### {texts.turn(300)}  \n#### {texts.turn(300)}  \n")
            elif i % 3 == 1:
                stream.write("\n" + texts.turn() + "\n\n" + texts.turn(200) + "\n\n")
            else:
                stream.write(f"> {texts.turn(120)}  \n> Applied edit to ledger/x.py  \n")


def write_chatgpt(folder, n, texts):
    conversations = []
    for c in range(0, n, 50):
        mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["n0"]}}
        parent = "root"
        for i in range(min(50, n - c)):
            node = f"n{i}"
            mapping[node] = {
                "id": node,
                "parent": parent,
                "children": [],
                "message": {
                    "id": node,
                    "author": {"role": ("user", "assistant")[i % 2], "name": None, "metadata": {}},
                    "create_time": 1764497000.0 + i,
                    "content": {"content_type": "text", "parts": [texts.turn()]},
                    "status": "finished_successfully",
                    "weight": 1.0,
                    "metadata": {},
                    "recipient": "all",
                },
            }
            mapping[parent]["children"].append(node)
            parent = node
        conversations.append(
            {
                "title": f"c{c}",
                "mapping": mapping,
                "current_node": parent,
                "conversation_id": f"conv-{c}",
                "id": f"conv-{c}",
            }
        )
    (folder / "conversations.json").write_text(json.dumps(conversations), encoding="utf-8")


def write_messages(folder, n, texts):
    for d in range(0, n, 100):
        messages = []
        for i in range(min(100, n - d)):
            if i % 2 == 0:
                messages.append({"role": "user", "content": texts.turn()})
            else:
                messages.append(
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": texts.turn()},
                            {"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {}},
                        ],
                    }
                )
        document = {"model": "claude-sonnet-4-5", "system": "Be careful.", "messages": messages}
        (folder / f"request-{d}.json").write_text(json.dumps(document, indent=2), "utf-8")


def write_gemini(folder, n, texts):
    for d in range(0, n, 100):
        chat = [
            {"role": ("user", "model")[i % 2], "parts": [{"text": texts.turn()}]}
            for i in range(min(100, n - d))
        ]
        (folder / f"checkpoint-{d}.json").write_text(json.dumps(chat, indent=2), "utf-8")


def write_documents(folder, n, texts):
    for i in range(n):
        (folder / f"note-{i:06d}.md").write_text("# Note\n\n" + texts.turn(), "utf-8")


FORMATS = {
    "records": write_records,
    "chat": write_chat,
    "claude-code": write_claude_code,
    "codex": write_codex,
    "aider": write_aider,
    "chatgpt": write_chatgpt,
    "messages": write_messages,
    "gemini": write_gemini,
    "document": write_documents,
}


def measure(folder: Path) -> dict:
    from poimen.readers import Candidate, read_sources

    started = time.perf_counter()
    items = read_sources([folder], max_record_bytes=1 << 20, max_document_bytes=256 << 20)
    n = sum(isinstance(item, Candidate) for item in items)
    seconds = time.perf_counter() - started
    return {"records": n, "seconds": seconds, "rate": n / seconds}


def measure_ingest(folder: Path) -> dict:
    """records_ingest of the folder into tables emptied first (the artifacts stay), so that
    no format writes into a table the others filled."""
    from django.db import connection

    from poimen.services import records_ingest

    with connection.cursor() as cursor:
        # The event table refuses TRUNCATE; a bench starting over steps around its triggers.
        cursor.execute("SET session_replication_role = replica")
        cursor.execute(
            "TRUNCATE poimen_event, poimen_match, poimen_review, poimen_record, poimen_ingestrun"
        )
        cursor.execute("SET session_replication_role = origin")
    started = time.perf_counter()
    result = records_ingest(paths=[folder], workers=0)
    seconds = time.perf_counter() - started
    assert result.errors == 0, result.problems[:3]
    return {"records": result.new, "seconds": seconds, "rate": result.new / seconds}


def _ingest_setup(database_url: str, tmp: Path, seed: int) -> None:
    """A fresh PostgreSQL database holding 200 artifacts."""

    recreate_database(database_url)
    os.environ["DATABASE_URL"] = database_url
    os.environ["POIMEN_MANIFEST"] = str(tmp / "manifest.jsonl")
    import django

    django.setup()
    from django.core.management import call_command

    from poimen.services import artifact_register

    call_command("migrate", verbosity=0)
    texts = Texts(seed - 1)
    for number in range(200):
        artifact_register(kind="skill", name=f"skill-{number}", text=texts.turn(3000))


def format_rates(n: int, seed: int = 7, passes: int = 3, database_url=None) -> dict:
    """Per format, the best of `passes` reads and one ingest. The passes interleave the
    formats, so that a burst of load elsewhere on the machine does not fall on one only."""
    rows = {name: {} for name in FORMATS}
    with tempfile.TemporaryDirectory(prefix="poimen-bench-formats-") as tmp:
        if database_url:
            _ingest_setup(database_url, Path(tmp), seed)
        for number, (name, write) in enumerate(FORMATS.items()):
            (Path(tmp) / name).mkdir()
            write(Path(tmp) / name, n, Texts(seed + number))
        for _ in range(passes):
            for name in FORMATS:
                row = measure(Path(tmp) / name)
                if "read" not in rows[name] or row["seconds"] < rows[name]["read"]["seconds"]:
                    rows[name]["read"] = row
        if database_url:
            for name in FORMATS:
                rows[name]["ingest"] = measure_ingest(Path(tmp) / name)
    return rows


def print_rates(rows: dict) -> bool:
    ok = True
    for phase in ("read", "ingest"):
        if phase not in rows["records"]:
            continue
        base = rows["records"][phase]["rate"]
        print(f"\n{phase}: records/s per format, against records JSONL")
        print(f"{'format':<14}{'records':>10}{'seconds':>10}{'records/s':>12}{'x records':>11}")
        for name, row in rows.items():
            row = row[phase]
            print(
                f"{name:<14}{row['records']:>10,}{row['seconds']:>10.2f}{row['rate']:>12,.0f}"
                f"{row['rate'] / base:>11.2f}"
            )
        slow = [name for name, row in rows.items() if row[phase]["rate"] < base / 2]
        print("every format at least half the records-JSONL rate" if not slow else f"SLOW: {slow}")
        ok = ok and not slow
    return ok


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--ingest", action="store_true", help="ingest each corpus too")
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/poimen_bench"
        ),
        help="the PostgreSQL database --ingest drops and creates",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    url = args.database_url if args.ingest else None
    print_rates(format_rates(args.records, passes=args.passes, database_url=url))


if __name__ == "__main__":
    main()
