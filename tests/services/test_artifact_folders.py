"""A folder of skills read as skills; a project read as what an agent working in it loads."""

from io import StringIO

import pytest
from django.core.management import call_command

from poimen.models import Artifact
from poimen.services import artifacts_import

pytestmark = pytest.mark.django_db

SKILL = "---\nname: {name}\ndescription: {what}\n---\n\n# {name}\n\n{body}\n"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def skills_repo(tmp_path):
    repo = tmp_path / "skills-repo"
    write(repo / "README.md", "# Skills\n\nA collection of skills for the team.\n")
    write(repo / "LICENSE", "Apache License\nVersion 2.0, January 2004\n")
    pdf = repo / "skills" / "pdf"
    write(pdf / "SKILL.md", SKILL.format(name="pdf", what="Fill PDF forms", body="Use forms.md."))
    write(pdf / "forms.md", "# Forms\n\nRun scripts/fill_form.py with the field values.\n")
    write(pdf / "reference" / "pypdf.md", "# pypdf\n\nPdfReader, PdfWriter, form fields.\n")
    write(pdf / "LICENSE.txt", "Proprietary. See the terms.\n")
    write(pdf / "scripts" / "fill_form.py", "import sys\nprint(sys.argv)\n")
    xlsx = repo / "skills" / "xlsx"
    write(xlsx / "SKILL.md", SKILL.format(name="xlsx", what="Spreadsheets", body="Recalculate."))
    (xlsx / "recalc.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return repo


def test_a_folder_of_skills_is_read_as_skills_with_their_supporting_files(skills_repo):
    result = artifacts_import(path=skills_repo)
    assert result.problems == []
    assert sorted(Artifact.objects.values_list("kind", "name")) == [
        ("skill", "pdf"),
        ("skill", "pdf/forms.md"),
        ("skill", "pdf/reference/pypdf.md"),
        ("skill", "xlsx"),
        ("skills-repo", "README"),
    ]
    assert result.kinds == {"skill": 4, "skills-repo": 1}
    assert result.skipped == {"licence file": 2, "not a text file": 2}


def test_kind_applies_to_everything_imported(skills_repo):
    artifacts_import(path=skills_repo, kind="vendor-skill")
    assert set(Artifact.objects.values_list("kind", flat=True)) == {"vendor-skill"}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ledger"
    write(root / "CLAUDE.md", "# Ledger\n\nRun `make test` before every commit.\n")
    write(root / "AGENTS.md", "# Agents\n\nMigrations go through the postgres-migrations skill.\n")
    write(root / "services" / "api" / "AGENTS.md", "# API\n\nNever log card numbers.\n")
    write(root / "node_modules" / "left-pad" / "AGENTS.md", "# not ours\n")
    write(root / "docs" / "architecture.md", "# Architecture\n")
    claude = root / ".claude"
    write(
        claude / "skills" / "deploy" / "SKILL.md",
        SKILL.format(name="deploy", what="Ship", body="Tag, then run the pipeline."),
    )
    write(
        claude / "skills" / "deploy" / "runbook.md",
        "# Runbook\n\nRoll back with `make rollback`.\n",
    )
    write(
        claude / "agents" / "reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews diffs\n---\nYou review diffs for bugs.\n",
    )
    write(claude / "commands" / "release.md", "Write the release notes for $ARGUMENTS.\n")
    write(claude / "commands" / "db" / "migrate.md", "Plan a migration for $ARGUMENTS.\n")
    write(claude / "settings.json", "{}\n")
    return root


def test_a_project_registers_what_an_agent_working_in_it_loads(project):
    result = artifacts_import(path=project, project=True)
    assert result.problems == []
    assert sorted(Artifact.objects.values_list("kind", "name")) == [
        ("agent", "code-reviewer"),
        ("command", "db/migrate"),
        ("command", "release"),
        ("memory", "AGENTS.md"),
        ("memory", "CLAUDE.md"),
        ("memory", "services/api/AGENTS.md"),
        ("skill", "deploy"),
        ("skill", "deploy/runbook.md"),
    ]
    again = artifacts_import(path=project, project=True)
    assert (again.registered, again.already) == (0, 8)


def test_the_hook_names_each_file_a_project_import_registers_as_the_import_does(project):
    """poimen-hook registers a file as the agent writes it; by the one rule (agent_files)
    it is the artifact import_artifacts --project makes of it."""
    from poimen.agent.agent_files import file_artifact

    write(project / "docs" / "memory" / "decisions.md", "# Decisions\n\nPostgres, not MySQL.\n")
    artifacts_import(path=project, project=True)
    imported = set(Artifact.objects.values_list("kind", "name", "text"))
    named = set()
    for path in project.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            found = file_artifact(path, text, project)
            if found:
                named.add((*found, text))
    supporting = {("skill", "deploy/runbook.md")}  # a skill's file: the walk of its folder's
    assert {(k, n) for k, n, _ in imported} - supporting == {(k, n) for k, n, _ in named}
    assert {a for a in imported if a[:2] not in supporting} == named
    assert ("memory", "docs/memory/decisions.md") in {(k, n) for k, n, _ in named}
    assert file_artifact(project / "docs" / "architecture.md", "# A", project) is None


def test_the_command_lists_the_kinds_it_created(project):
    out = StringIO()
    call_command("import_artifacts", str(project), "--project", stdout=out)
    assert out.getvalue().startswith(
        "8 registered (agent 1, command 2, memory 3, skill 2), 0 already known, "
        "8 manifest lines appended, skipped 0, 0 errors"
    )


def test_project_needs_a_folder(tmp_path):
    path = tmp_path / "CLAUDE.md"
    path.write_text("# x\n", encoding="utf-8")
    result = artifacts_import(path=path, project=True)
    assert result.problems == [f"{path}: not a folder; --project takes the project's folder"]
