"""The desk's stylesheets through the checker CI runs (scripts/lint-css, stylelint): the
shipped ones pass, and an unclosed block — which a browser silently reads as swallowing every
rule after it — fails with its line."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_CSS = ROOT / "scripts" / "lint-css"


def lint(*paths) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_CSS), *map(str, paths)], capture_output=True, text=True, timeout=300
    )


def test_shipped_stylesheets_pass():
    result = lint()
    assert result.returncode == 0, result.stdout + result.stderr


def test_unclosed_block_fails_with_its_line(tmp_path):
    sheet = tmp_path / "broken.css"
    sheet.write_text(".a {\n  color: red;\n}\n\n.b {\n  margin: 0;\n\n.c {\n  color: blue;\n}\n")
    result = lint(sheet)
    assert result.returncode != 0
    assert "Unclosed block" in result.stdout + result.stderr
    assert "5:1" in result.stdout + result.stderr


def test_a_rule_nested_by_a_missing_brace_fails(tmp_path):
    # A brace missing before the next rule reads as CSS nesting, which is valid syntax: only
    # the nesting ban catches it.
    sheet = tmp_path / "nested.css"
    sheet.write_text(".a {\n  margin: 0;\n.b {\n  color: blue;\n}\n}\n")
    result = lint(sheet)
    assert result.returncode != 0
    assert "max-nesting-depth" in result.stdout + result.stderr
