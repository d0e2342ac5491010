"""What a folder of artifacts holds, and what an agent working in a project loads.

A folder of skills (NAME/SKILL.md with its supporting files) is read as such: every text file
in a skill's folder is that skill's (kind `skill`, the supporting files named NAME/path).
Files outside any skill's folder keep the older rule: the kind is the folder holding them.
Licence files and files that are not text are skipped and counted everywhere.

A project (`import_artifacts --project DIR`) is read as Claude Code and Codex read one: its
memory files, .claude/skills/*/ (kind `skill`), .claude/agents/ (`agent`) and
.claude/commands/ (`command`), kinds and names by poimen.agent.agent_files (the rule poimen-hook
follows too).
"""

import os
import re
from collections.abc import Iterator
from pathlib import Path

from filter import ArtifactRecord
from poimen.agent.agent_files import (
    DEFINITION_FOLDERS,
    MEMORY,
    SKILL,
    artifact_name_from_text,
    definition_name,
    is_memory_file,
    is_skill_file,
    memory_name,
    skill_name,
)
from poimen.services.common import InputError, check_kind, check_name

ARTIFACT_SUFFIXES = (".md", ".markdown", ".txt")
LICENCE = re.compile(r"^(licen[cs]e|copying|notice|copyright)([.-].*)?$", re.IGNORECASE)


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
    main = next(p for p in skill_dir.iterdir() if is_skill_file(p))
    main_text = _text_of(main, result)
    name_of_skill = skill_name(main, main_text or "")
    for path in _walk(skill_dir):
        text = main_text if path == main else _text_of(path, result)
        if text is None:
            continue
        name = name_of_skill if path == main else f"{name_of_skill}/{path.relative_to(skill_dir)}"
        artifact = _artifact(path, kind, name, text, result)
        if artifact:
            yield artifact


def _skill_dirs(folder: Path) -> list[Path]:
    """Folders holding a SKILL.md, outermost only (a skill's own subfolders are its files)."""
    found = sorted({p.parent for p in _walk(folder) if is_skill_file(p)})
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
    memories = [claude / "CLAUDE.md"] + [path for path in _walk(project) if is_memory_file(path)]
    for path in memories:
        if path.is_file():
            text = _text_of(path, result)
            name = memory_name(path, project)
            artifact = text and _artifact(path, kind or MEMORY, name, text, result)
            if artifact:
                yield artifact
    skills = claude / "skills"
    if skills.is_dir():
        for skill_dir in _skill_dirs(skills):
            yield from _skill_artifacts(skill_dir, kind or SKILL, result)
    for folder_name, own_kind in DEFINITION_FOLDERS.items():
        folder = claude / folder_name
        if not folder.is_dir():
            continue
        for path in _walk(folder):
            text = _text_of(path, result)
            if text is None:
                continue
            name = definition_name(path, folder, text)
            artifact = _artifact(path, kind or own_kind, name, text, result)
            if artifact:
                yield artifact
