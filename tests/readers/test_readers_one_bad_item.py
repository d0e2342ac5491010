"""No item fails its neighbours in a reader: a number no database stores (NaN, Infinity, 1e400)
is that line's problem, named by file and line; the per-record limit holds in every reader
(a ChatGPT export's message, a document of messages, an Aider turn), the rest is read."""

import json

import pytest

BIG = 2 * 1024 * 1024  # over the 1 MiB limit of the `read` fixture


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_non_finite_number_is_its_lines_problem(read, tmp_path, number):
    path = tmp_path / "records.jsonl"
    bad = f'{{"id": "b", "text": "second", "metadata": {{"score": {number}}}}}'
    path.write_text(
        '{"id": "a", "text": "first"}\n' + bad + '\n{"id": "c", "text": "third"}\n',
        encoding="utf-8",
    )
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["a", "c"]
    (problem,) = problems
    assert str(problem).startswith(f"{path}:2: metadata holds")
    assert "NaN or Infinity" in str(problem)


def test_a_words_nan_in_text_is_no_problem(read, tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text('{"id": "a", "text": "NaN and Infinity e1000", "metadata": {"n": 1.5}}\n')
    records, problems, _ = read(path)
    assert [r.text for r in records] == ["NaN and Infinity e1000"] and not problems


def test_a_chatgpt_message_over_the_limit_is_refused_and_the_rest_read(read, transcripts, tmp_path):
    export = json.loads((transcripts / "chatgpt" / "conversations.json").read_text())
    records, problems, _ = read(transcripts / "chatgpt" / "conversations.json")
    assert not problems
    node = next(
        n for c in export for n in c["mapping"].values() if n.get("message") and n["id"] == "n-a1"
    )
    node["message"]["content"]["parts"] = ["word " * (BIG // 5)]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    big_records, big_problems, _ = read(path)
    assert len(big_records) == len(records) - 1
    (problem,) = big_problems
    assert str(problem).startswith(f"{path}: record of 2.1 MB exceeds the limit of 1.0 MB")


def test_a_message_over_the_limit_in_a_document_is_refused(read, transcripts, tmp_path):
    document = json.loads((transcripts / "messages" / "openai-chat.json").read_text())
    records, _, _ = read(transcripts / "messages" / "openai-chat.json")
    document["messages"][-1]["content"] = "word " * (BIG // 5)
    path = tmp_path / "openai-chat.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")  # a document, not a line
    big_records, problems, _ = read(path)
    assert len(big_records) == len(records) - 1
    assert [str(p).split(": ", 1)[1][:30] for p in problems] == ["record of 2.1 MB exceeds the l"]


def test_an_aider_turn_over_the_limit_is_refused_with_its_line(read, tmp_path):
    huge = "".join(f"line {i} of a very long reply, said at length\n" for i in range(BIG // 40))
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "\n# aider chat started at 2026-11-28 09:14:02\n\n"
        "#### Make the backfill resumable  \n\nFiltered on settled_at.\n\n"
        "#### Now a huge answer please  \n\n" + huge + "\n"
        "#### And a short one  \n\nDone.\n",
        encoding="utf-8",
    )
    records, problems, _ = read(tmp_path)
    assert [r.text.strip() for r in records] == [
        "Make the backfill resumable",
        "Filtered on settled_at.",
        "Now a huge answer please",
        "And a short one",
        "Done.",
    ]
    (problem,) = problems
    assert str(problem).startswith(f"{history}:10: record of 2.5 MB exceeds the limit of 1.0 MB")
