"""What a folder of artifacts holds, and what an agent working in a project loads.

A folder of skills (NAME/SKILL.md with its supporting files) is read as such: every text file
in a skill's folder is that skill's (kind `skill`, the supporting files named NAME/path).
Files outside any skill's folder keep the older rule: the kind is the folder holding them.
Licence files and files that are not text are skipped and counted everywhere.

A project (`import_artifacts --project DIR`) is read as Claude Code and Codex read one: its
memory files (CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md, AGENTS.md, in the project and its
folders), .claude/skills/*/ (kind `skill`), .claude/agents/*.md (`agent`) and
.claude/commands/*.md (`command`).
"""

import os
import re
from collections.abc import Iterator
from pathlib import Path

from filter import ArtifactRecord
from poimen.services.common import InputError, check_kind, check_name

ARTIFACT_SUFFIXES = (".md", ".markdown", ".txt")
LICENCE = re.compile(r"^(licen[cs]e|copying|notice|copyright)([.-].*)?$", re.IGNORECASE)
MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")
# Folders a project's memory files are not looked for in: tools' and dependencies' own.
NOT_PROJECT_FOLDERS = frozenset({"node_modules", "venv", "__pycache__", "site-packages"})
SKILL, MEMORY, AGENT, COMMAND = "skill", "memory", "agent", "command"

FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
FRONT_MATTER_NAME = re.compile(r"^name:[ \t]*(.+?)[ \t]*$", re.MULTILINE)


def artifact_name_from_text(text: str, *, fallback: str) -> str:
    """The `name:` of the YAML front matter, else `fallback` (a file's stem)."""
    front = FRONT_MATTER.match(text)
    if front:
        found = FRONT_MATTER_NAME.search(front.group(1))
        if found:
            name = found.group(1).strip().strip("'\"").strip()
            if name:
                return name
    return fallback


def _walk(folder: Path, *, hidden: bool = False) -> Iterator[Path]:
    """Files under `folder` in a stable order; links to folders are not followed (no loops),
    hidden folders are left unless `hidden`."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if hidden or not d.startswith("."))
        for name in sorted(files):
            if hidden or not name.startswith("."):
                yield Path(root) / name


def _text_of(path: Path, result) -> str | None:
    """The file's text, or None (counted as skipped, or reported) when it is no artifact."""
    if LICENCE.match(path.name):
        result.skipped["licence file"] += 1
        return None
    if path.suffix.lower() not in ARTIFACT_SUFFIXES:
        result.skipped["not a text file"] += 1
        return None
    try:
        if not path.is_file():
            result.skipped["not a regular file"] += 1
            return None
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        result.problems.append(f"{path}: invalid UTF-8 at byte {error.start}")
        return None
    except OSError as error:
        result.problems.append(f"{path}: cannot read: {error.strerror or error}")
        return None
    if not text.strip():
        result.problems.append(f"{path}: empty text")
        return None
    if "\0" in text:
        result.problems.append(f"{path}: binary file (NUL bytes), not an artifact")
        return None
    return text


def _artifact(path: Path, kind: str, name: str, text: str, result) -> ArtifactRecord | None:
    try:
        check_kind(kind)
    except InputError as error:
        result.problems.append(f"{path}: {error}; give --kind")
        return None
    try:
        check_name(name)
    except InputError as error:
        result.problems.append(f"{path}: {error}")
        return None
    return ArtifactRecord.from_text(kind=kind, name=name, text=text)


def _skill_artifacts(skill_dir: Path, kind: str, result) -> Iterator[ArtifactRecord]:
    """A skill's SKILL.md and its supporting text files, all of one kind."""
    main = next(p for p in skill_dir.iterdir() if p.name.lower() == "skill.md")
    main_text = _text_of(main, result)
    skill_name = artifact_name_from_text(main_text or "", fallback=skill_dir.name)
    for path in _walk(skill_dir):
        text = main_text if path == main else _text_of(path, result)
        if text is None:
            continue
        name = skill_name if path == main else f"{skill_name}/{path.relative_to(skill_dir)}"
        artifact = _artifact(path, kind, name, text, result)
        if artifact:
            yield artifact


def _skill_dirs(folder: Path) -> list[Path]:
    """Folders holding a SKILL.md, outermost only (a skill's own subfolders are its files)."""
    found = sorted({p.parent for p in _walk(folder) if p.name.lower() == "skill.md"})
    return [d for d in found if not any(o != d and o in d.parents for o in found)]


def folder_artifacts(folder: Path, kind: str | None, result) -> Iterator[ArtifactRecord]:
    skill_dirs = _skill_dirs(folder)
    for skill_dir in skill_dirs:
        yield from _skill_artifacts(skill_dir, kind or SKILL, result)
    for path in _walk(folder):
        if any(d in skill_dirs for d in path.parents):
            continue  # a skill's, read above
        text = _text_of(path, result)
        if text is None:
            continue
        artifact = _artifact(
            path,
            kind or path.parent.name,
            artifact_name_from_text(text, fallback=path.stem),
            text,
            result,
        )
        if artifact:
            yield artifact


def project_artifacts(project: Path, kind: str | None, result) -> Iterator[ArtifactRecord]:
    claude = project / ".claude"
    memories = [claude / "CLAUDE.md"] + [
        path
        for path in _walk(project)
        if path.name in MEMORY_FILES and not NOT_PROJECT_FOLDERS & set(path.parts)
    ]
    for path in memories:
        if path.is_file():
            text = _text_of(path, result)
            name = path.relative_to(project).as_posix()
            artifact = text and _artifact(path, kind or MEMORY, name, text, result)
            if artifact:
                yield artifact
    skills = claude / "skills"
    if skills.is_dir():
        for skill_dir in _skill_dirs(skills):
            yield from _skill_artifacts(skill_dir, kind or SKILL, result)
    for folder, own_kind in ((claude / "agents", AGENT), (claude / "commands", COMMAND)):
        if not folder.is_dir():
            continue
        for path in _walk(folder):
            text = _text_of(path, result)
            if text is None:
                continue
            fallback = path.relative_to(folder).with_suffix("").as_posix()
            name = artifact_name_from_text(text, fallback=fallback)
            artifact = _artifact(path, kind or own_kind, name, text, result)
            if artifact:
                yield artifact
