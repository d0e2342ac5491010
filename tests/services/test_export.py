"""The one exporter (services.export): the desk's download and `export_records` write the same
fields, with "id" the external id and "record_pk" poimen's key, in CSV and JSONL alike; the
operators' page (docs/operators.md) and the export page name the fields the file holds."""

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from poimen.models import Record
from poimen.services import (
    EXPORT_FIELD_NAMES,
    EXPORT_FIELDS,
    InputError,
    records_export,
    review_record,
)

OPERATORS = Path(__file__).resolve().parent.parent.parent / "docs" / "operators.md"


def desk_download(client, file_format: str, **filters) -> str:
    query = {"list": "exclusions", "format": file_format, "download": "1", **filters}
    response = client.get(reverse("export"), query)
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def command_export(file_format: str) -> str:
    out = io.StringIO()
    call_command("export_records", "--format", file_format, stdout=out)
    return out.getvalue()


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def csv_rows(text: str) -> tuple[list[str], list[dict]]:
    reader = csv.DictReader(io.StringIO(text))
    return reader.fieldnames, list(reader)


def test_the_desk_download_and_export_records_give_the_same_rows(client, desk_data, reviewer):
    review_record(record=desk_data["script"], verdict="confirmed", actor=reviewer, note="ok")
    client.force_login(reviewer)

    from_desk = jsonl(desk_download(client, "jsonl"))
    from_command = jsonl(command_export("jsonl"))

    excluded = {r.external_id for r in Record.objects.filter(status="excluded")}
    assert {row["id"] for row in from_desk} == excluded == {"verbatim", "script"}
    assert [row for row in from_command if row["id"] in excluded] == from_desk
    for row in from_command:
        assert list(row) == EXPORT_FIELD_NAMES
        record = Record.objects.get(source=row["source"], external_id=row["id"])
        assert row["record_pk"] == record.pk
    assert next(r for r in from_desk if r["id"] == "script")["verdict"] == "confirmed"


def test_csv_from_the_desk_and_the_command_has_the_same_header_and_cells(
    client, desk_data, reviewer
):
    client.force_login(reviewer)
    desk_header, desk_rows = csv_rows(desk_download(client, "csv", kind="skill"))
    command_header, command_rows = csv_rows(command_export("csv"))
    assert desk_header == command_header == EXPORT_FIELD_NAMES
    by_id = {row["id"]: row for row in command_rows}
    assert desk_rows and all(by_id[row["id"]] == row for row in desk_rows)
    assert by_id["unrelated"]["artifact"] == "" and by_id["unrelated"]["overlap"] == ""


def test_csv_quotes_a_cell_a_spreadsheet_would_run_and_jsonl_keeps_it(make_record):
    make_record(external_id="=1+1", source="@evil")
    stream = io.StringIO()
    assert records_export(stream=stream, file_format="csv") == 1
    _, [row] = csv_rows(stream.getvalue())
    assert (row["id"], row["source"]) == ("'=1+1", "'@evil")
    stream = io.StringIO()
    records_export(stream=stream)
    [line] = jsonl(stream.getvalue())
    assert (line["id"], line["source"]) == ("=1+1", "@evil")


def test_an_unknown_format_is_refused_by_name(db):
    with pytest.raises(InputError, match="'xml' is not one of csv, jsonl"):
        records_export(stream=io.StringIO(), file_format="xml")


def test_the_operators_page_and_the_export_page_name_every_field(client, desk_data, reviewer):
    paragraph = OPERATORS.read_text(encoding="utf-8").split("- `export_records`", 1)[1]
    paragraph = paragraph.split("\n- ", 1)[0].split("\n\n", 1)[0]
    assert re.findall(r'"(\w+)"', paragraph) == EXPORT_FIELD_NAMES
    client.force_login(reviewer)
    page = client.get(reverse("export")).content.decode()
    for field in EXPORT_FIELDS:
        assert f"<dt><code>{field.name}</code></dt><dd>{escape(field.meaning)}</dd>" in page
