"""Which of the files an agent loads are artifacts, of which kind, under which name.

One rule for `import_artifacts --project` (poimen.services.artifact_folders, which walks a
project) and for poimen-hook (which registers a file as the agent writes it), so that a file
registered either way is the same artifact. It imports nothing of Django: the hook stays light.

- A skill is a folder holding a SKILL.md; it is named by the front matter's `name:`, else
  the folder.
- Memory files: CLAUDE.md, CLAUDE.local.md and AGENTS.md anywhere (not in tools' and
  dependencies' folders), and the Markdown files of a memory/ or memories/ folder (Claude
  Code's auto memory); each is named by its path in the project.
- .claude/agents/ and .claude/commands/ hold agent and command definitions (.md), named by
  the front matter's `name:`, else their path in that folder without the suffix.
"""

import re
from pathlib import Path

SKILL, MEMORY, AGENT, COMMAND = "skill", "memory", "agent", "command"
MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")
MEMORY_FOLDERS = ("memory", "memories")
# .claude/<folder>/ -> the kind of the definitions it holds
DEFINITION_FOLDERS = {"agents": AGENT, "commands": COMMAND}
# Folders a project's memory files are not looked for in: tools' and dependencies' own.
NOT_PROJECT_FOLDERS = frozenset({"node_modules", "venv", "__pycache__", "site-packages"})

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


def is_skill_file(path: Path) -> bool:
    return path.name.lower() == "skill.md"


def skill_name(skill_file: Path, text: str) -> str:
    return artifact_name_from_text(text, fallback=skill_file.parent.name)


def is_memory_file(path: Path) -> bool:
    if NOT_PROJECT_FOLDERS & set(path.parts):
        return False
    in_memory_folder = path.suffix.lower() == ".md" and path.parent.name in MEMORY_FOLDERS
    return path.name in MEMORY_FILES or in_memory_folder


def memory_name(path: Path, project: Path) -> str:
    """A memory file's name: its path in the project (in full when it is outside it, as a
    user's own ~/.claude/CLAUDE.md is)."""
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)


def definition_name(path: Path, folder: Path, text: str) -> str:
    """The name of an agent's or a command's definition in `folder` (.claude/agents/...)."""
    return artifact_name_from_text(
        text, fallback=path.relative_to(folder).with_suffix("").as_posix()
    )


def definition_folder(path: Path) -> tuple[str, Path] | None:
    """(kind, the .claude/agents or .claude/commands folder) of a definition file in one."""
    if path.suffix.lower() != ".md":
        return None
    for folder in path.parents:
        if folder.parent.name == ".claude" and folder.name in DEFINITION_FOLDERS:
            return DEFINITION_FOLDERS[folder.name], folder
    return None


def is_agent_file(path: Path) -> bool:
    """Whether `path` is one of the files an agent loads, by its path alone (file_artifact
    then names it from its text)."""
    return is_skill_file(path) or is_memory_file(path) or definition_folder(path) is not None


def file_artifact(path: Path, text: str, project: Path) -> tuple[str, str] | None:
    """(kind, name) of one file an agent loads, or None when it is not one of them. (A
    skill's supporting files are the skill's; only a walk of its folder names them.)"""
    if is_skill_file(path):
        return SKILL, skill_name(path, text)
    if is_memory_file(path):
        return MEMORY, memory_name(path, project)
    found = definition_folder(path)
    if found:
        kind, folder = found
        return kind, definition_name(path, folder, text)
    return None
