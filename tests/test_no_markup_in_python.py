"""Markup lives in templates, not in Python: no module under poimen/ writes an HTML element
(a string literal holding a tag such as <form, <button, <tr, <input). The desk's template
helpers that mark spans inside untrusted text (<mark>, <del> in templatetags/desk.py, a
passage or a search hit, which no template can place) and the <time> of its `when` filter (a
date that does not wrap, a filter used inside sentences of many templates) are the only tags
allowed. Docstrings may name a tag."""

import ast
import re
from pathlib import Path

import poimen

PACKAGE = Path(poimen.__file__).parent
# A tag opened or closed, e.g. "<tr", "</td>", "<input type=": not "<" in prose or a comparison.
TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)[\s>/]")
# Inline marks inside a piece of untrusted text: written where the text is cut, by desk.py.
INLINE_MARKS = {"mark", "del", "time"}
# Element names that are HTML: a tag-like string of another language (an e-mail address in
# angle brackets, a placeholder "<name>") is not markup.
HTML = set(
    "a abbr b br button caption code dd del details div dl dt em form h1 h2 h3 h4 hr i input "
    "kbd label li mark ol optgroup option p pre section select small span strong summary table "
    "tbody td textarea th thead time tr ul datalist script style".split()
)


def _docstrings(tree) -> set[int]:
    """The ids of the docstring nodes of `tree`'s module, classes and functions."""
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _tags(path: Path) -> set[str]:
    found = set()
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            found |= {name.lower() for name in TAG.findall(node.value)} & HTML
    return found


def test_no_python_module_writes_markup():
    written = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        tags = _tags(path)
        if path.relative_to(PACKAGE).as_posix() == "templatetags/desk.py":
            tags -= INLINE_MARKS
        if tags:
            written[path.relative_to(PACKAGE).as_posix()] = sorted(tags)
    assert written == {}, f"markup written in Python (move it to a template): {written}"
