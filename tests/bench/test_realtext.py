"""bench/realtext.py's lock: the real-text corpus is the same documents on every machine, and a
corpus that is not is named, document by document."""

import hashlib
import zipfile

import pytest

from bench import realtext


def document(source: str, text: str) -> realtext.Document:
    return realtext.Document(source, text)


def test_the_locked_corpus_has_no_differences():
    documents = [document("pypi:a==1", "alpha text\n"), document("tests/texts/b.md", "beta\n")]
    locked = {d.source: d.sha256 for d in documents}

    assert realtext.differences(documents, locked) == []


def test_a_missing_changed_or_unlocked_document_is_named():
    locked = {
        "pypi:a==1": document("pypi:a==1", "alpha\n").sha256,
        "pypi:b==2": document("pypi:b==2", "beta\n").sha256,
    }
    found = [document("pypi:b==2", "beta, edited\n"), document("tests/texts/new.md", "new\n")]

    lines = realtext.differences(found, locked)

    assert lines[0] == "missing: pypi:a==1"
    assert lines[1].startswith("changed: pypi:b==2 (sha256 ")
    assert lines[2] == "not in the lock: tests/texts/new.md"


def test_the_digest_names_the_documents_not_their_order():
    one = {"pypi:a==1": "a" * 64, "pypi:b==2": "b" * 64}
    other = {"pypi:b==2": "b" * 64, "pypi:a==1": "a" * 64}

    assert realtext.lock_digest(one) == realtext.lock_digest(other)
    assert realtext.lock_digest(one) != realtext.lock_digest({"pypi:a==1": "a" * 64})


def test_a_lock_written_is_read_back(tmp_path):
    documents = [document("pypi:a==1", "alpha\n"), document("tests/texts/b.md", "beta\n")]
    path = tmp_path / "realtext.lock"
    path.write_text(realtext.lock_text(documents), encoding="utf-8")

    assert realtext.read_lock(path) == {d.source: d.sha256 for d in documents}


def test_a_bad_lock_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "realtext.lock"
    path.write_text("# header\n" + "a" * 64 + "  pypi:a==1\nnot a line\n", encoding="utf-8")

    with pytest.raises(ValueError, match=r"realtext\.lock:3: expected"):
        realtext.read_lock(path)


def test_only_the_pinned_packages_wheels_are_read(tmp_path, monkeypatch):
    """A wheel left in the cache by an older package list does not join the corpus."""
    monkeypatch.setattr(realtext, "WHEELS", tmp_path)
    monkeypatch.setattr(realtext, "PACKAGES", ["Pinned-Pkg==1.0"])
    for name in ("pinned_pkg-1.0-py3-none-any.whl", "stale_pkg-2.0-py3-none-any.whl"):
        with zipfile.ZipFile(tmp_path / name, "w") as wheel:
            package = name.split("-")[0]
            body = f"Metadata-Version: 2.1\nName: {package}\n\nThe {package} README.\n"
            wheel.writestr(f"{package}-x.dist-info/METADATA", body)

    documents = realtext._wheel_documents()

    assert [d.source for d in documents] == ["pypi:pinned_pkg==1.0"]
    assert documents[0].text == "The pinned_pkg README.\n"


def test_the_lock_pins_the_test_texts_the_repository_carries():
    """The corpus reads the test texts the lock names: editing one changes the benchmark's
    workload, so it must be a deliberate `python -m bench.realtext --relock`."""
    pinned = {s: h for s, h in realtext.read_lock().items() if s.startswith("tests/")}
    assert pinned, "the lock names no test text"
    for source, sha256 in pinned.items():
        path = realtext.ROOT / source
        assert path.exists(), f"{source} is in bench/realtext.lock but not in the repository"
        actual = hashlib.sha256(path.read_text(encoding="utf-8").encode("utf-8")).hexdigest()
        assert actual == sha256, (
            f"{source} changed since bench/realtext.lock pinned it: restore it, or run "
            "`python -m bench.realtext --relock` and say so in bench/README.md"
        )
