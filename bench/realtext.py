"""Real text for the matcher's benchmark: documents nobody here wrote, gathered reproducibly.

    python -m bench.realtext          # gather the corpus once (downloads the pinned wheels)
    python -m bench.realtext --list   # what the cached corpus holds

The corpus is the long description (the README PyPI shows) in the METADATA of each wheel in
PACKAGES, pinned by version, plus the markdown the tests carry (tests/texts/, read as files).
About half of the packages were picked for READMEs in Chinese, Japanese, Korean, Russian,
Arabic, Vietnamese, Portuguese or Spanish, or leaning on emoji, arrows and box drawing (from
the package list's summaries); the rest are well-known English-documented projects, whose
READMEs carry em dashes, smart quotes and the odd emoji of their own. The texts stay under
their projects' licences, so they are not committed: `gather` downloads the wheels with pip (no
dependencies, wheels only) into bench/.cache/wheels/ and writes bench/.cache/realtext-v1.jsonl;
both are gitignored, and a second run reads them offline.

What the corpus holds is pinned by bench/realtext.lock: the sha256 and source of every
document, committed. Only the wheels of PACKAGES and the test texts the lock names are read (a
test text added later does not change the workload: the corpus grew from 171 to 177 documents
that way before the lock). A document that is missing, changed or not in the lock is named by
`gather` (which then exits 1) and by every bench run that loads the corpus, whose header says
whether the corpus is the locked one. `--relock` writes the lock from what was gathered, for a
deliberate change of PACKAGES or of the test texts.
"""

import argparse
import email.parser
import email.policy
import hashlib
import json
import random
import re
import subprocess
import sys
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
WHEELS = CACHE / "wheels"
CORPUS = CACHE / "realtext-v1.jsonl"
LOCK = ROOT / "bench" / "realtext.lock"
TEST_TEXTS = ROOT / "tests" / "texts"
# Shorter descriptions are a line of summary, not a document.
MIN_WORDS = 120

# dbapi==0.0.14 was in the list: its wheel's metadata is refused by pip 24.1 and newer, so
# whether it was fetched depended on pip's version.
PACKAGES = """
pypinyin==0.55.0 xpinyin==0.7.7 lunardate==0.3.0 zhon==2.1.1 hanzidentifier==1.3.0
cn2an==0.5.24 pykakasi==2.3.0 jaconv==0.5.0 mojimoji==0.0.13 kanjize==1.6.1
habachen==0.6.0 jamo==0.4.1 hangul-romanize==0.1.0 g2pkk==0.1.2 soynlp==0.0.493 pyhwpx==1.7.2
vk-api==11.10.1 ncore==0.9.865 razdel==0.5.0 pymorphy3==2.0.6 cyrtranslit==1.2.0
transliterate==1.10.2 pyarabic==0.6.15 arabic-reshaper==3.1.0 pyvi==0.1.1
brazilnum==0.10.0 validate-docbr==2.0.1 pycpfcnpj==1.9 workadays==2023.12.30 nsj-rest-lib==6.4.1
nsj-flask-auth==0.11.1 nsj-sql-utils-lib==2.1.3 nsj-queue-lib==1.2.2 nsj-gcf-utils==1.1.0
nsj-multi-database-lib==2.1.0 atendentepro==0.75.0 spanishconjugator==2.3.9474
wechatpayv3==2.0.4 datarecorder==3.6.2 downloadkit==2.0.7 gggdtparser==0.1.6 mootdx==0.11.7
xmind==1.2.0 aukeys-opscli==0.0.145 wecom-aibot-python-sdk==1.0.2
rouge-chinese==1.0.3 pyluach==2.3.0 unidecode==1.4.0 anyascii==0.3.3 emoji==2.16.0 ftfy==6.3.1
python-slugify==9.1.3 wcwidth==0.9.4 pyhumps==3.8.0 questionary==2.1.1 validators==0.36.0
confusable-homoglyphs==3.3.1 emot==3.1 emoji-country-flag==2.1.0
asciichartpy==1.5.25 sparklines==1.0.0 style==1.1.6 click-extra==9.5.0 mergedeep==1.3.4
xmod==1.10.0 editor==2.0.1 runs==1.3.0 throttled-py==3.5.0 fox-progress-bar==0.1.3
fluent-runtime==0.4.0 fluent-syntax==0.19.0 flask-babel==4.0.0 pyuca==1.2
mail-parser-reply==1.36 sphinxemoji==0.3.2 pytest-cookies==0.7.0 unicode-slugify==0.1.5
morphys==1.0 case-conversion==3.0.2 segtok==1.5.11 courlan==1.4.0 pylatexenc==2.11
wadler-lindig==0.1.8 domdf-python-tools==3.11.0 nutree==1.2.0 poyo==0.5.0
lovely-numpy==0.2.24 cua-auto==0.1.2 savepagenow==1.3.1 text2num==3.1.0 python-bidi==0.6.12
linkify-it-py==2.2.0 uvicorn-worker==0.4.0 django-watchfiles==1.4.0 rich==15.0.0 typer==0.29.1
httpx==0.28.1 click==8.5.1 fastapi==0.163.2 attrs==26.1.0 pluggy==1.7.0 tox==4.67.13
nox==2026.10.20 structlog==26.1.0 loguru==0.7.3 tenacity==9.2.1 arrow==1.4.0 humanize==4.17.0
tabulate==0.10.0 tqdm==4.70.1 colorama==0.4.6 fire==0.7.1 sh==2.4.0 plumbum==2.0.2
invoke==3.0.3 boltons==26.2.0 toolz==1.2.0 more-itertools==11.2.1 sortedcontainers==2.4.0
cachetools==8.0.0 diskcache==5.6.3 marshmallow==4.4.0 cattrs==26.2.1 python-dotenv==1.2.4
environs==15.2.0 pytest-xdist==3.8.0 pytest-cov==7.1.0 freezegun==1.5.5 responses==0.26.3
factory-boy==3.3.3 django-extensions==4.1 django-filter==26.2 djangorestframework==3.18.3
celery==5.7.0 kombu==5.7.0 redis==8.1.0 alembic==1.20.1 beautifulsoup4==4.15.0 html5lib==1.1
markdown==3.11.3 mistune==3.4.0 pygments==2.21.0 jinja2==3.1.6 mako==1.4.3 watchdog==7.1.0
schedule==1.2.2 croniter==7.0.0 python-dateutil==4.0.0 packaging==26.3 filelock==4.2.11
twine==7.0.0 build==1.6.1 setuptools-scm==10.3.4 pre-commit==4.7.0 httpie==3.2.4
requests-toolbelt==1.0.0 pyperclip==1.11.0 pexpect==4.9.0 psutil==7.2.2 simplejson==4.3.0
tomlkit==0.15.2 jsonschema==4.26.0 pydantic-settings==2.16.3 aiofiles==25.1.0 websockets==17.4
starlette==1.10.0 uvicorn==0.54.0 anyio==4.16.0 trio==0.35.0 sniffio==1.3.1 h11==0.16.0
itsdangerous==2.2.0 werkzeug==3.1.9 flask==3.1.3 blinker==1.9.0 wrapt==2.5.2 decorator==5.3.1
six==1.17.0 pathspec==1.1.1
""".split()


@dataclass(frozen=True)
class Document:
    source: str  # "pypi:name==version" or "tests/texts/…"
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def _download(requirements: list[str], *, say) -> list[str]:
    """pip download what is not in WHEELS yet; the requirements pip could not fetch."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    have = {_wheel_key("==".join(path.name.split("-")[:2])) for path in WHEELS.glob("*.whl")}
    missing = [r for r in requirements if _wheel_key(r) not in have]
    failed: list[str] = []
    # One pip call per batch saves its start-up and index reads; a batch with a requirement
    # pip cannot meet fails whole, and then its requirements are fetched one at a time.
    for start in range(0, len(missing), 25):
        batch = missing[start : start + 25]
        say(f"pip download {len(batch)} wheels ({start + len(batch)}/{len(missing)})...")
        if _pip_download(batch):
            continue
        failed += [requirement for requirement in batch if not _pip_download([requirement])]
    return failed


def _wheel_key(requirement: str) -> str:
    name, version = requirement.split("==")
    return name.lower().replace("-", "_").replace(".", "_") + "==" + version


def _pip_download(requirements: list[str]) -> bool:
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    command += ["--only-binary=:all:", "--dest", str(WHEELS), *requirements]
    return subprocess.run(command, capture_output=True).returncode == 0


def long_description(metadata: str) -> str:
    """The long description in a METADATA file: its body, or an old-style Description field."""
    message = email.parser.Parser(policy=email.policy.compat32).parsestr(metadata)
    body = message.get_payload()
    if isinstance(body, str) and body.strip():
        return body.strip() + "\n"
    field = message.get("Description") or ""
    # Metadata 1.x folds the field with eight spaces (or "       |") before each later line.
    lines = field.split("\n")
    unfolded = [lines[0]] + [
        line[8:] if line[:8].strip() in ("", "|") else line for line in lines[1:]
    ]
    return "\n".join(unfolded).strip() + "\n"


def _wheel_documents() -> list[Document]:
    """The long descriptions of PACKAGES' wheels in WHEELS (other wheels there are not read)."""
    wanted = {_wheel_key(requirement) for requirement in PACKAGES}
    documents = []
    for path in sorted(WHEELS.glob("*.whl")):
        if _wheel_key("==".join(path.name.split("-")[:2])) not in wanted:
            continue
        with zipfile.ZipFile(path) as wheel:
            names = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
            if not names:
                continue
            metadata = wheel.read(names[0]).decode("utf-8", errors="replace")
        name, version = path.name.split("-")[:2]
        documents.append(Document(f"pypi:{name}=={version}", long_description(metadata)))
    return documents


def _test_documents(paths: list[Path]) -> list[Document]:
    return [
        Document(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for path in paths
        if path.exists()
    ]


def read_lock(path: Path = LOCK) -> dict[str, str]:
    """The locked corpus: {source: sha256}. A line is "<sha256>  <source>"."""
    locked = {}
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if not line.strip() or line.startswith("#"):
                continue
            sha256, _, source = line.rstrip("\n").partition("  ")
            if len(sha256) != 64 or not source:
                raise ValueError(f"{path}:{number}: expected '<sha256>  <source>', got {line!r}")
            locked[source] = sha256
    return locked


def lock_text(documents: list[Document]) -> str:
    header = "# bench/realtext.py corpus: the sha256 and source of each document (--relock)\n"
    return header + "".join(f"{d.sha256}  {d.source}\n" for d in documents)


def lock_digest(locked: dict[str, str]) -> str:
    """A short name for a corpus: the same documents give the same digest, in any order."""
    lines = sorted(f"{sha256}  {source}" for source, sha256 in locked.items())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:12]


def differences(documents: list[Document], locked: dict[str, str]) -> list[str]:
    """How `documents` differ from the lock, one line a document; empty when they are it."""
    found = {document.source: document.sha256 for document in documents}
    lines = [f"missing: {source}" for source in locked if source not in found]
    lines += [
        f"changed: {source} (sha256 {found[source][:12]}, locked {sha256[:12]})"
        for source, sha256 in locked.items()
        if source in found and found[source] != sha256
    ]
    lines += [f"not in the lock: {source}" for source in found if source not in locked]
    return lines


def describe(documents: list[Document], *, say) -> str:
    """Say how the corpus differs from the lock; the words a bench header prints for it."""
    locked = read_lock()
    lines = differences(documents, locked)
    for line in lines:
        say(f"bench corpus: {line}")
    if lines:
        return (
            f"NOT the locked corpus ({len(lines)} differences from bench/realtext.lock, "
            "figures not comparable)"
        )
    return f"the locked corpus {lock_digest(locked)}"


def gather(*, relock: bool = False, say=print) -> list[Document]:
    """Download the pinned wheels not cached yet and write the corpus file; the documents.
    With `relock`, every test text is read and the lock is written from the result."""
    failed = _download(PACKAGES, say=say)
    if failed:
        say(f"pip could not fetch {len(failed)}: {' '.join(failed)}")
    if relock:
        test_paths = sorted(TEST_TEXTS.glob("*/*.md"))
    else:
        test_paths = [ROOT / s for s in read_lock() if s.startswith("tests/")]
    documents, seen = [], set()
    for document in _wheel_documents() + _test_documents(test_paths):
        if len(document.text.split()) < MIN_WORDS or document.sha256 in seen:
            continue
        seen.add(document.sha256)
        documents.append(document)
    CORPUS.parent.mkdir(parents=True, exist_ok=True)
    with open(CORPUS, "w", encoding="utf-8") as file:
        for document in documents:
            line = {"source": document.source, "sha256": document.sha256, "text": document.text}
            file.write(json.dumps(line, ensure_ascii=False) + "\n")
    say(f"wrote {CORPUS.relative_to(ROOT)}: {len(documents)} documents")
    if relock:
        LOCK.write_text(lock_text(documents), encoding="utf-8")
        say(f"wrote {LOCK.relative_to(ROOT)}: {lock_digest(read_lock())}")
    return documents


def load(*, say=print) -> list[Document]:
    """The cached corpus, gathered first if there is none."""
    if not CORPUS.exists():
        return gather(say=say)
    with open(CORPUS, encoding="utf-8") as file:
        return [Document(line["source"], line["text"]) for line in map(json.loads, file)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.realtext", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--list", action="store_true", help="list the cached corpus")
    parser.add_argument(
        "--relock", action="store_true", help="write bench/realtext.lock from what is gathered"
    )
    options = parser.parse_args(argv)
    documents = load() if options.list else gather(relock=options.relock)
    non_ascii = [d for d in documents if not d.text.isascii()]
    size = sum(len(d.text.encode()) for d in documents)
    which = describe(documents, say=print)
    print(
        f"{len(documents)} documents, {size / 1e6:.2f} MB, {len(non_ascii)} with non-ASCII text: "
        f"{which}"
    )
    if options.list:
        for document in documents:
            print(f"  {document.source:48} {len(document.text.split()):>7,} words")
    if which.startswith("NOT"):
        sys.exit(1)


if __name__ == "__main__":
    main()


@dataclass
class Workload:
    """Artifacts and records made from the corpus: which records are planted copies, and how."""

    artifacts: list[str]
    artifact_names: list[str]
    records: list[str]
    planted: list[bool]
    planting: list[str]

    @property
    def record_bytes(self) -> int:
        return sum(len(record.encode("utf-8")) for record in self.records)


def paragraphs(text: str) -> list[str]:
    return [part for part in re.split(r"\n[^\S\n]*\n", text) if part.strip()]


def excerpt(text: str, rng: random.Random, *, words: tuple[int, int]) -> str:
    """Consecutive paragraphs of `text` from a random one on, until about `words` words."""
    parts = paragraphs(text)
    target = rng.randint(*words)
    start = rng.randrange(len(parts))
    chosen, count = [], 0
    for part in parts[start:] + parts[:start]:
        chosen.append(part)
        count += len(part.split())
        if count >= target:
            break
    return "\n\n".join(chosen)


_WORD = re.compile(r"\w+")


def _grams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def build_workload(
    documents: list[Document],
    plantings: dict,
    *,
    seed: int,
    n_records: int,
    planted_share: float,
    planted_from: int = 50,
    paired: bool = False,
) -> Workload:
    """Half the documents (seeded) become artifacts; records are excerpts of the others (an
    assistant turn quoting docs nobody registered), and planted copies of the first
    `planted_from` artifacts made each of the `plantings` ways, in turn. A planting is called
    with (artifact text, a function giving an unrelated excerpt). With `paired`, pastes from
    two of them are planted too (bench.corpus.PAIRED_PLANTINGS), of one kind or of two
    (artifact i is of bench.corpus.artifact_kind(i))."""
    from bench.corpus import PAIRED_PLANTINGS, paired_sources, pasted_from_two

    rng = random.Random(seed)
    shuffled = sorted(documents, key=lambda document: document.sha256)
    rng.shuffle(shuffled)
    registered, others = shuffled[: len(shuffled) // 2], shuffled[len(shuffled) // 2 :]
    # Projects of one family share sections (the Pallets projects' "Donate", one author's
    # sponsors): an excerpt of an unregistered README may be a copy of a registered one. Such
    # an excerpt is not unrelated, so it is drawn again; what is a copy is judged by plain
    # 8-word sets, independently of the matcher.
    seen = set().union(*(_grams(document.text) for document in registered))

    def unrelated() -> str:
        while True:
            text = excerpt(rng.choice(others).text, rng, words=(40, 400))
            grams = _grams(text)
            if len(grams & seen) * 5 <= len(grams):
                return text

    records, planted, planting = [], [], []
    kinds = list(plantings) + (list(PAIRED_PLANTINGS) if paired else [])
    for number in range(n_records):
        if rng.random() < planted_share:
            how = kinds[number % len(kinds)]
            if how in PAIRED_PLANTINGS:
                first, second = paired_sources(rng, min(planted_from, len(registered)), how)
                records.append(
                    pasted_from_two(registered[first].text, registered[second].text, rng)
                )
            else:
                source = registered[rng.randrange(min(planted_from, len(registered)))]
                records.append(plantings[how](source.text, unrelated))
            planted.append(True)
            planting.append(how)
        else:
            records.append(unrelated())
            planted.append(False)
            planting.append("unrelated")
    return Workload(
        artifacts=[document.text for document in registered],
        artifact_names=[document.source for document in registered],
        records=records,
        planted=planted,
        planting=planting,
    )
