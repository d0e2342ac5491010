"""The ways a model or a tool re-renders a text it quotes, one function per way.

Each takes markdown and returns the same words laid out differently, the way they show up in
transcripts: re-indented, re-wrapped, quoted, fenced, numbered by a file-reading tool, typed with
smart quotes... A copy must survive every one of them (the card: "matching must survive the model
reformatting the text"; docs/card.md), so they are the filter's contract seen from the other side.
The acceptance tests check that a copy survives each; the benchmarks (bench/) plant copies with
them. They are test support, so they live beside the tests and not in filter/, which ships in the
wheel as the matcher alone.
"""

import html
import json
import random
import re
import textwrap

LIST_ITEM = re.compile(r"^(\s*)([-*]|\d+[.)])\s+")
FENCE = re.compile(r"^\s*```")
WORD = re.compile(r"[A-Za-z][A-Za-z']*")

# Plausible words for the edit functions: a swapped word should read like a model's rewording,
# not like noise.
REPLACEMENT_WORDS = (
    "quickly",
    "always",
    "usually",
    "project",
    "server",
    "simply",
    "carefully",
    "output",
    "change",
    "branch",
    "really",
    "then",
    "code",
    "each",
    "whole",
    "first",
    "later",
    "again",
    "small",
    "clear",
    "often",
    "local",
    "other",
    "new",
    "main",
    "check",
    "note",
    "team",
)


def other_whitespace(text: str, *, seed: int = 1) -> str:
    """Doubled spaces, tabs, trailing blanks and extra empty lines, as pasted text collects."""
    rng = random.Random(seed)
    lines = []
    for line in text.split("\n"):
        line = re.sub(" ", lambda _: rng.choice(("  ", "\t", " ", " ")), line)
        if rng.random() < 0.3:
            line += " " * rng.randint(1, 3)
        lines.append(line)
        if not line.strip():
            lines.append("")
    return "\n".join(lines)


def reindent(text: str, indent: str = "    ") -> str:
    return "\n".join(indent + line if line else line for line in text.split("\n"))


def wrap_in_fences(text: str, info: str = "markdown") -> str:
    return f"```{info}\n{text.rstrip()}\n```\n"


def remove_fences(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not FENCE.match(line))


def change_bullets(text: str, style: str) -> str:
    """Every list item, bulleted or numbered, re-marked with `style`: "*", "-" or "1."."""
    lines = []
    number = 0
    for line in text.split("\n"):
        item = LIST_ITEM.match(line)
        if not item or FENCE.match(line):
            number = 0 if not line.strip() or line.startswith("#") else number
            lines.append(line)
            continue
        number += 1
        marker = f"{number}." if style == "1." else style
        lines.append(f"{item.group(1)}{marker} {line[item.end() :]}")
    return "\n".join(lines)


def rewrap(text: str, width: int = 52) -> str:
    """Paragraphs and list items re-filled at `width`; code, headings and front matter kept."""
    out: list[str] = []
    pending: list[str] = []  # the words of the paragraph or list item being collected
    marker = ""

    def flush() -> None:
        nonlocal pending, marker
        if pending:
            out.append(
                textwrap.fill(
                    " ".join(pending),
                    width=width,
                    initial_indent=marker,
                    subsequent_indent=" " * len(marker),
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
        pending, marker = [], ""

    verbatim = False
    lines = text.split("\n")
    if lines and lines[0] == "---":
        end = lines.index("---", 1)
        out.extend(lines[: end + 1])
        lines = lines[end + 1 :]
    for line in lines:
        if FENCE.match(line):
            flush()
            verbatim = not verbatim
            out.append(line)
        elif verbatim or line.startswith("#"):
            flush()
            out.append(line)
        elif not line.strip():
            flush()
            out.append("")
        elif item := LIST_ITEM.match(line):
            flush()
            marker = item.group(0)
            pending = [line[item.end() :].strip()]
        else:
            pending.append(line.strip())
    flush()
    return "\n".join(out)


def quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def smart_quotes(text: str) -> str:
    text = re.sub(r"(?<=\w)'", "\u2019", text)
    text = re.sub(r"'(?=\w)", "\u2018", text)
    text = re.sub(r'"(?=\w)', "\u201c", text)
    return text.replace('"', "\u201d")


def fullwidth_letters(text: str, *, every: int = 3) -> str:
    """Every `every`-th word typed in fullwidth forms (ｐｙｔｅｓｔ), which NFKC folds back."""
    words = iter(range(10**9))

    def widen(match: re.Match) -> str:
        if next(words) % every:
            return match.group(0)
        return "".join(chr(ord(char) + 0xFEE0) for char in match.group(0))

    return re.sub(r"[A-Za-z0-9]+", widen, text)


def _widened(text: str) -> str:
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


def fullwidth_tags(text: str) -> str:
    """Every HTML tag typed in fullwidth forms (`＜ｔｄ ａｌｉｇｎ＝＂ｒｉｇｈｔ＂＞`), which
    NFKC folds back into the tag."""
    return re.sub(r"</?[A-Za-z][^<>\n]*>", lambda m: _widened(m.group(0)), text)


def fullwidth_forms(text: str) -> str:
    """All of it typed in fullwidth forms, as an East Asian input method does: letters, digits,
    punctuation and markup (`｀｀｀`, `１．`, `＞`); spaces as ideographic spaces."""
    return _widened(text).replace(" ", "\u3000")


def colon_gutter(text: str) -> str:
    """The text as a tool prints it with `N: ` before each line (grep -n style, with a space)."""
    return "\n".join(f"{number:>4}: {line}" for number, line in enumerate(text.split("\n"), 1))


def non_breaking_spaces(text: str) -> str:
    """Spaces between words as no-break and narrow no-break spaces, as word processors paste."""
    spaces = iter(range(10**9))
    return re.sub(" ", lambda _: "\u00a0" if next(spaces) % 2 else "\u202f", text)


def ligatures(text: str) -> str:
    return text.replace("ffi", "\ufb03").replace("fi", "\ufb01").replace("fl", "\ufb02")


def read_tool_gutter(text: str) -> str:
    """The skill as a file-reading tool prints it: right-aligned line numbers and an arrow."""
    return "\n".join(f"{number:>6}\u2192{line}" for number, line in enumerate(text.split("\n"), 1))


def cat_n_gutter(text: str) -> str:
    """The skill as `cat -n` prints it: right-aligned line numbers and a tab."""
    return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(text.split("\n"), 1))


def edit_one_word_in_ten(text: str, how: str, *, seed: int) -> str:
    """One word in each run of ten changed, inserted after, or deleted (`how`), at a seeded place.

    A copy a model rewords lightly: every shingle touching an edited word breaks, so this is
    where counting shared shingles alone stops seeing the copy.
    """
    rng = random.Random(seed)
    words = list(WORD.finditer(text))
    chosen = {
        start + rng.randrange(min(10, len(words) - start)) for start in range(0, len(words), 10)
    }
    pieces = []
    position = 0
    for index, word in enumerate(words):
        if index not in chosen:
            continue
        pieces.append(text[position : word.start()])
        replacement = rng.choice([w for w in REPLACEMENT_WORDS if w != word.group(0).lower()])
        if how == "changed":
            pieces.append(replacement)
        elif how == "inserted":
            pieces.append(f"{word.group(0)} {replacement}")
        elif how == "deleted":
            pass
        else:
            raise ValueError(f"unknown edit {how!r}")
        position = word.end()
    pieces.append(text[position:])
    return "".join(pieces)


def sections(text: str) -> list[str]:
    """The text cut before each "## " heading: front matter and title first, then each section."""
    return re.split(r"\n(?=## )", text)


def render_html(text: str) -> str:
    """The markdown as a renderer turns it into HTML: tags around every block, text escaped."""
    out: list[str] = []
    open_list = ""
    in_code = False

    def inline(line: str) -> str:
        line = html.escape(line, quote=False)
        line = re.sub(r"`([^`]+)`", r"<code>\1</code>", line)
        return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", line)

    def close_list() -> None:
        nonlocal open_list
        if open_list:
            out.append(f"</{open_list}>")
            open_list = ""

    for line in text.split("\n"):
        if FENCE.match(line):
            if in_code:
                out.append("</code></pre>")
            else:
                close_list()
                language = line.strip().strip("`")
                out.append(f'<pre><code class="language-{language}">')
            in_code = not in_code
        elif in_code:
            out.append(html.escape(line, quote=False))
        elif heading := re.match(r"^(#+)\s+(.*)", line):
            close_list()
            level = len(heading.group(1))
            slug = re.sub(r"\W+", "-", heading.group(2).lower()).strip("-")
            out.append(f'<h{level} id="{slug}">{inline(heading.group(2))}</h{level}>')
        elif item := LIST_ITEM.match(line):
            wanted = "ol" if item.group(2)[0].isdigit() else "ul"
            if open_list != wanted:
                close_list()
                out.append(f"<{wanted}>")
                open_list = wanted
            out.append(f"<li>{inline(line[item.end() :])}</li>")
        elif line.strip():
            close_list()
            out.append(f"<p>{inline(line)}</p>")
        else:
            close_list()
    close_list()
    return "\n".join(out)


def edit_words_at_random(text: str, *, rate: float = 0.1, seed: int) -> str:
    """About one word in 1/rate substituted, inserted after or deleted, each word by chance:
    unlike edit_one_word_in_ten, edits may cluster, three in a stretch of ten words."""
    rng = random.Random(seed)
    pieces, position = [], 0
    for word in WORD.finditer(text):
        if rng.random() >= rate:
            continue
        pieces.append(text[position : word.start()])
        how = rng.choice(("changed", "inserted", "deleted"))
        replacement = rng.choice([w for w in REPLACEMENT_WORDS if w != word.group(0).lower()])
        if how == "changed":
            pieces.append(replacement)
        elif how == "inserted":
            pieces.append(f"{word.group(0)} {replacement}")
        position = word.end()
    pieces.append(text[position:])
    return "".join(pieces)


def word_slice(text: str, *, words: int, seed: int) -> str:
    """`words` consecutive words of `text` from a seeded place, as a record quotes a stretch:
    cut at word boundaries, markup and line breaks between them kept."""
    found = list(re.finditer(r"\S+", text))
    start = random.Random(seed).randrange(len(found) - words)
    return text[found[start].start() : found[start + words - 1].end()]


def path_prefixed(
    text: str, path: str = "", *, context_every: int = 0, column: bool = False
) -> str:
    """The file as `rg -n` over several files and `grep -Hn` print it (Claude Code's Grep tool
    too): `path:N:` before each line, or `N:` without a path (grep -n of one file); with
    `context_every`, all but every such line are grep -C's context lines (`path-N-`, `N-`);
    with `column`, rg --column's `path:N:1:`."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        start = f"{path}-{number}-" if path else f"{number}-"
        if not (context_every and number % context_every):
            start = f"{path}:{number}:" if path else f"{number}:"
            start += "1:" if column else ""
        out.append(start + line)
    return "\n".join(out)


def git_diff_added(text: str, path: str) -> str:
    """The file as `git diff` shows it added: headers, one hunk, `+` before every line."""
    lines = text.split("\n")
    head = [
        f"diff --git a/{path} b/{path}",
        "new file mode 100644",
        "index 0000000..3b18e51",
        "--- /dev/null",
        f"+++ b/{path}",
        f"@@ -0,0 +1,{len(lines)} @@",
    ]
    return "\n".join(head + [f"+{line}" for line in lines])


def apply_patch_added(text: str, path: str) -> str:  # Codex's apply_patch envelope
    added = "\n".join(f"+{line}" for line in text.split("\n"))
    return f"*** Begin Patch\n*** Add File: {path}\n{added}\n*** End Patch"


def json_string(text: str, *, ensure_ascii: bool = True) -> str:
    """The file inside a JSON string, as an MCP tool's result carries it: line breaks, tabs and
    quotes escaped (and, as Python's json does by default, every non-ASCII character)."""
    body = json.dumps(text, ensure_ascii=ensure_ascii)
    return f'{{"content": [{{"type": "text", "text": {body}}}], "isError": false}}'


def html_pre(text: str) -> str:
    return f"<pre>{html.escape(text)}</pre>"  # a web page's or an HTML report's


def cat_a(text: str) -> str:
    """The file as `cat -A` prints it: `$` at each line end, `^I` for a tab, other control
    bytes in caret notation and bytes over 127 as `M-` (cat's own notation)."""
    out = []
    for byte in text.encode():
        prefix = "M-" if byte >= 128 else ""
        byte &= 127
        if byte == 10 and not prefix:
            out.append("$\n")
        elif byte < 32 or byte == 127:
            out.append(f"{prefix}^{chr(byte ^ 64)}")
        else:
            out.append(f"{prefix}{chr(byte)}")
    return "".join(out) + "$"


def bat_full(text: str, path: str, *, changed_every: int = 0) -> str:
    """The file as `bat --style=full` prints it: a header grid, `   N │ ` before each line and,
    with `changed_every`, git's `~` mark on every such line (` ` on the others)."""
    rule = "\u2500" * 7
    lines = text.split("\n")
    out = [f"{rule}\u252c{rule * 6}", f"{'':7}\u2502 File: {path}", f"{rule}\u253c{rule * 6}"]
    for number, line in enumerate(lines, 1):
        mark = ("  ", "~ ")[number % changed_every == 0] if changed_every else ""
        out.append(f"{number:>4} {mark}\u2502 {line}")
    out.append(f"{rule}\u2534{rule * 6}")
    return "\n".join(out)
