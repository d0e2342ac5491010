"""Every page of the review desk as a full page and as the htmx fragment it serves; login,
escaping, the CSP header and query-count bounds on the lists."""

import io
import json
import re

import pytest
from django.urls import reverse

from poimen import selectors
from poimen.models import Artifact, Record
from poimen.selectors import paging, passages
from poimen.web.middleware import CONTENT_SECURITY_POLICY
from tests.factories import demo_skill

HTMX = {"HTTP_HX_REQUEST": "true"}


def htmx_target(target: str) -> dict:
    return {**HTMX, "HTTP_HX_TARGET": target}


def page_urls(desk_data) -> list[str]:
    record = desk_data["verbatim"]
    artifact = record.best_artifact
    return [
        reverse("overview"),
        reverse("exclusions"),
        reverse("near_misses"),
        reverse("record", args=[record.pk]),
        reverse("artifacts"),
        reverse("artifact", args=[artifact.pk]),
        reverse("runs"),
        reverse("audit"),
        reverse("export"),
        reverse("exclusions_bulk"),
    ]


@pytest.mark.django_db
def test_every_page_needs_a_login(client, desk_data):
    for url in page_urls(desk_data) + [reverse("tuning"), reverse("tuning_kind", args=["skill"])]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url


@pytest.mark.django_db
def test_an_htmx_request_without_a_session_is_sent_to_the_login_page(client):
    response = client.get(reverse("exclusions"), **htmx_target("results"))
    assert response.status_code == 204
    assert response["HX-Redirect"].startswith(reverse("login"))


@pytest.mark.django_db
def test_login_page_is_open_and_logs_in(client, reviewer):
    assert client.get(reverse("login")).status_code == 200
    response = client.post(
        reverse("login"), {"username": "rita", "password": "rita-reviews-things"}
    )
    assert response.status_code == 302
    assert client.get(reverse("overview")).status_code == 200


def test_login_with_a_wrong_password_says_so(client, reviewer):
    response = client.post(reverse("login"), {"username": "rita", "password": "nope"})
    assert response.status_code == 200
    assert b"do not match" in response.content


def test_logout_is_a_post(logged_in):
    assert logged_in.post(reverse("logout")).status_code == 302
    assert logged_in.get(reverse("overview")).status_code == 302


def test_every_page_renders_in_full_with_the_layout(logged_in, desk_data):
    for url in page_urls(desk_data):
        response = logged_in.get(url)
        assert response.status_code == 200, url
        assert b"<!doctype html>" in response.content, url
        assert b'hx-headers=\'{"x-csrftoken": ' in response.content, url
        assert b"/static/django_htmx/htmx-2.min.js" in response.content, url


def test_every_page_renders_as_an_htmx_fragment_without_the_layout(logged_in, desk_data):
    for url in page_urls(desk_data):
        response = logged_in.get(url, **HTMX)
        assert response.status_code == 200, url
        assert b"<!doctype html>" not in response.content, url
        assert b"<body" not in response.content, url
        assert response.content.strip(), url


def test_a_history_restore_gets_the_whole_page(logged_in, desk_data):
    response = logged_in.get(
        reverse("exclusions"), HTTP_HX_HISTORY_RESTORE_REQUEST="true", **htmx_target("results")
    )
    assert b"<!doctype html>" in response.content


def test_every_response_carries_the_csp_and_varies_on_hx_request(logged_in, desk_data):
    for url in page_urls(desk_data):
        response = logged_in.get(url)
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert "script-src 'self'" in CONTENT_SECURITY_POLICY
        assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
        assert "HX-Request" in response["Vary"]


def test_no_page_has_inline_script_or_style(logged_in, desk_data):
    for url in page_urls(desk_data):
        html = logged_in.get(url).content.decode()
        assert "<script>" not in html.replace("&lt;script&gt;", ""), url
        assert " style=" not in html, url
        assert "<style" not in html, url
        assert " onclick=" not in html and " hx-on" not in html, url
        assert "{#" not in html and "{%" not in html, url  # no template syntax leaks


def test_record_text_is_escaped_everywhere(logged_in, desk_data):
    record = desk_data["script"]
    urls = [
        reverse("exclusions"),
        reverse("exclusions") + "?q=owned",
        reverse("record", args=[record.pk]),
        reverse("artifact", args=[record.best_artifact_id]),
    ]
    for url in urls:
        html = logged_in.get(url).content.decode()
        assert "<script>alert" not in html, url
        assert "&lt;script&gt;alert(&#x27;" in html, url


def test_exclusions_list_shows_exclusions_not_evidence(logged_in, desk_data):
    html = logged_in.get(reverse("exclusions")).content.decode()
    assert f"#{desk_data['verbatim'].pk}<" in html
    assert f"#{desk_data['near'].pk}<" not in html
    assert f"#{desk_data['unrelated'].pk}<" not in html


def test_exclusions_results_fragment_is_just_the_results(logged_in, desk_data):
    response = logged_in.get(reverse("exclusions") + "?kind=skill", **htmx_target("results"))
    html = response.content.decode()
    assert 'class="filters"' not in html
    assert '<table class="list' in html
    assert f"#{desk_data['verbatim'].pk}<" in html


def test_exclusions_filter_by_kind_artifact_band_verdict_source_run_date(
    logged_in, desk_data, make_artifact
):
    make_artifact(kind="reference", name="lock-timeout", text="SET lock_timeout = '5s'; " * 20)
    verbatim = desk_data["verbatim"]
    script = desk_data["script"]

    def shown(query: str) -> set[int]:
        html = logged_in.get(reverse("exclusions") + query, **htmx_target("results")).content
        return {r.pk for r in (verbatim, script) if f"#{r.pk}<".encode() in html}

    assert shown("?kind=skill") == {verbatim.pk, script.pk}
    assert shown("?kind=reference") == set()
    assert shown(f"?artifact={verbatim.best_artifact_id}") == {verbatim.pk}
    assert shown("?overlap_min=0.95&overlap_max=1") == {verbatim.pk, script.pk}
    assert shown("?overlap_max=0.5") == set()
    assert shown("?verdict=unreviewed") == {verbatim.pk, script.pk}
    assert shown("?verdict=confirmed") == set()
    assert shown("?source=desk-tests") == {verbatim.pk, script.pk}
    assert shown("?source=elsewhere") == set()
    assert shown(f"?run={verbatim.run_id}") == {verbatim.pk, script.pk}
    today = verbatim.created_at.date().isoformat()
    assert shown(f"?date_from={today}&date_to={today}") == {verbatim.pk, script.pk}
    assert shown("?date_to=2000-01-01") == set()
    assert shown("?q=ALERT(") == {script.pk}


def test_a_filter_that_does_not_parse_is_ignored_not_fatal(logged_in, desk_data):
    response = logged_in.get(reverse("exclusions") + "?overlap_min=lots&run=abc&after=zzz")
    assert response.status_code == 200
    assert b"not understood" in response.content


TOO_BIG = "99999999999999999999"  # more than a 64-bit integer holds


@pytest.mark.parametrize("name", ["exclusions", "near_misses", "export", "exclusions_bulk"])
def test_an_id_too_big_for_the_database_is_a_form_error_not_a_500(logged_in, desk_data, name):
    response = logged_in.get(reverse(name) + f"?artifact={TOO_BIG}")
    assert response.status_code == 200
    assert response.context["form"].errors["artifact"]
    assert b"not understood: artifact" in response.content


def test_export_and_bulk_refuse_a_filter_that_did_not_parse(logged_in, desk_data):
    """Leaving the filter out would widen the set: export or judge nothing instead."""
    export = logged_in.get(reverse("export") + f"?artifact={TOO_BIG}&download=1")
    assert export.status_code == 400 and b"Nothing is exported" in export.content
    assert b"Download CSV" not in export.content
    bulk_url = reverse("exclusions_bulk") + f"?artifact={TOO_BIG}"
    assert b"Apply to" not in logged_in.get(bulk_url).content
    response = logged_in.post(bulk_url, {"verdict": "confirmed", "expected": 2})
    assert response.status_code == 400
    assert not Record.objects.filter(review__isnull=False).exists()


@pytest.mark.parametrize(
    "url",
    [
        f"/exclusions/?after=o0.5_{TOO_BIG}",
        f"/near-misses/?after=o0.5_{TOO_BIG}&sort=overlap",
        f"/exclusions/?after=t{TOO_BIG}_1&sort=time",
        f"/audit/?after={TOO_BIG}",
        f"/records/{TOO_BIG}/",
        f"/artifacts/{TOO_BIG}/",
    ],
)
def test_a_cursor_or_path_id_too_big_for_the_database_is_not_a_500(logged_in, desk_data, url):
    assert logged_in.get(url).status_code in (200, 404)


def test_overlap_filters_have_placeholders_that_do_not_look_like_values(logged_in, desk_data):
    html = logged_in.get(reverse("near_misses")).content.decode()
    assert 'placeholder="min"' in html and 'placeholder="max"' in html
    assert 'placeholder="0.00"' not in html


def test_search_marks_the_hit_in_the_snippet(logged_in, desk_data):
    html = logged_in.get(reverse("exclusions") + "?q=owned").content.decode()
    assert "<mark>owned</mark>" in html


def snippet_of(html: str, record_id: int) -> str:
    row = html[html.index(f'id="row-{record_id}"') :]
    cell = row[row.index('<td class="snippet">') + len('<td class="snippet">') :]
    return cell[: cell.index("</td>")]


def test_snippets_are_cut_at_a_word_boundary_with_an_ellipsis(logged_in, desk_data, make_record):
    words = [f"word{number:03d}" for number in range(200)]
    record = make_record(
        text=" ".join(words),
        status="excluded",
        derived=True,
        best_overlap=0.9,
        best_artifact=desk_data["verbatim"].best_artifact,
    )
    snippet = snippet_of(logged_in.get(reverse("exclusions")).content.decode(), record.pk)
    assert snippet.startswith("word000 ") and snippet.endswith("…")
    assert all(word in words for word in snippet[:-1].split())

    searched = logged_in.get(reverse("exclusions") + "?q=word150").content.decode()
    snippet = snippet_of(searched, record.pk)
    assert snippet.startswith("…") and snippet.endswith("…")
    assert "<mark>word150</mark>" in snippet
    assert all(
        word in words for word in snippet[1:-1].replace("<mark>", "").replace("</mark>", "").split()
    )


def test_a_short_text_is_shown_whole_without_an_ellipsis(logged_in, desk_data, make_record):
    record = make_record(
        text="A short copy.",
        status="excluded",
        derived=True,
        best_overlap=0.9,
        best_artifact=desk_data["verbatim"].best_artifact,
    )
    html = logged_in.get(reverse("exclusions")).content.decode()
    assert snippet_of(html, record.pk) == "A short copy."


def test_artifact_page_snippets_end_at_a_word(logged_in, desk_data):
    verbatim = desk_data["verbatim"]
    html = logged_in.get(reverse("artifact", args=[verbatim.best_artifact_id])).content.decode()
    cell = html[html.index('<div class="snippet small">') :]
    snippet = cell[len('<div class="snippet small">') : cell.index("</div>")]
    assert snippet.endswith("…") and len(snippet) <= 121
    assert snippet[:-1].split()[-1] in verbatim.text.split()


def test_keyset_paging_walks_the_whole_list_without_repeats(logged_in, desk_data, monkeypatch):
    monkeypatch.setattr(paging, "PAGE_SIZE", 1)
    for sort in ("overlap", "time"):
        seen = []
        url = reverse("exclusions") + f"?sort={sort}"
        for _ in range(10):
            if not url:
                break
            response = logged_in.get(url)
            page = response.context["page"]
            seen += [r.pk for r in page.items]
            url = (
                reverse("exclusions") + f"?sort={sort}&after={page.next_cursor}"
                if page.next_cursor
                else None
            )
        assert sorted(seen) == sorted([desk_data["verbatim"].pk, desk_data["script"].pk])
        assert len(seen) == len(set(seen))


def test_a_list_counts_exactly_past_the_audit_logs_cap(logged_in, desk_data, monkeypatch):
    monkeypatch.setattr(paging, "COUNT_CAP", 1)
    assert selectors.capped_count(Record.objects.all()) == (1, True)
    html = logged_in.get(reverse("exclusions")).content.decode()
    assert "2 records · <span data-progress>0 of 2 reviewed, 2 left</span>" in html
    assert "More than" not in html
    monkeypatch.setattr(paging, "COUNT_CAP", 0)  # the artifact page's match count, exact too
    artifact = desk_data["verbatim"].best_artifact
    matches = artifact.matches.count()
    html = logged_in.get(reverse("artifact", args=[artifact.pk])).content.decode()
    assert f"{matches} stored match" in html and "More than" not in html


def test_near_misses_show_evidence_between_floor_and_threshold(logged_in, desk_data):
    html = logged_in.get(reverse("near_misses")).content.decode()
    assert f"#{desk_data['near'].pk}<" in html
    assert f"#{desk_data['verbatim'].pk}<" not in html
    assert f"#{desk_data['unrelated'].pk}<" not in html


def test_record_page_pairs_passages_on_both_sides(logged_in, desk_data):
    record = desk_data["verbatim"]
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert 'data-pane="record"' in html and 'data-pane="artifact"' in html
    assert 'id="record-p1"' in html and 'id="artifact-p1"' in html
    assert 'class="hl hl-1' in html
    assert "Threshold when decided" in html and "Shared shingles" in html


def test_record_page_shows_numbers_history_and_other_matches(logged_in, desk_data):
    record = desk_data["near"]
    response = logged_in.get(reverse("record", args=[record.pk]))
    html = response.content.decode()
    assert "postgres-migrations" in html
    assert "Artifacts it matched" in html
    assert "History" in html
    matches = response.context["matches"]
    other = logged_in.get(
        reverse("record", args=[record.pk]) + f"?match={matches[0].pk}",
        **htmx_target("comparison"),
    )
    assert b'data-pane="record"' in other.content
    # The matches table comes along out of band (its "(shown)" mark follows); the rest of
    # the page does not.
    assert b'id="matches" hx-swap-oob="true"' in other.content
    assert b"History" not in other.content


def test_record_whose_artifact_has_no_text_shows_its_highlights_alone(logged_in, desk_data):
    record = desk_data["verbatim"]
    Artifact.objects.filter(pk=record.best_artifact_id).update(text="")
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert 'data-pane="record"' in html
    assert 'data-pane="artifact"' not in html
    assert 'id="record-p1"' in html
    assert "shown alone" in html


def test_boilerplate_passages_are_greyed(logged_in, desk_data, make_artifact, monkeypatch):
    monkeypatch.setattr(passages, "BOILERPLATE_MIN_ARTIFACTS", 1)
    record = desk_data["verbatim"]
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert "boilerplate" in html
    assert 'class="hl hl-1 boilerplate"' in html


def test_a_verbatim_copy_is_not_boilerplate_when_its_skill_has_versions(
    logged_in, desk_data, make_artifact
):
    """Versions of one skill share its text, but they are one artifact, not many."""
    text = demo_skill("release-notes")
    for version in range(2, 5):
        make_artifact(name="release-notes", text=f"{text}\n\nVersion {version} of these notes.")
    record = desk_data["verbatim"]
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert 'class="hl hl-1"' in html and "hl-1 boilerplate" not in html


def test_a_passage_shared_by_three_different_artifacts_is_boilerplate(
    logged_in, desk_data, make_artifact
):
    text = demo_skill("release-notes")
    for name in ("release-notes-copy", "release-notes-fork"):
        make_artifact(name=name, text=text)
    record = desk_data["verbatim"]
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert 'class="hl hl-1 boilerplate"' in html


def test_record_opened_from_a_list_links_to_its_neighbours(logged_in, desk_data):
    first, second = sorted([desk_data["verbatim"], desk_data["script"]], key=lambda r: -r.pk)
    url = reverse("record", args=[first.pk]) + "?list=exclusions&sort=overlap"
    response = logged_in.get(url)
    assert response.context["next_id"] == second.pk
    assert b'data-shortcut="next"' in response.content


def nav_current(html: str) -> list[str]:
    """The names of the main navigation links marked as the current page."""
    nav = html[html.index('<nav class="nav"') : html.index("</nav>")]
    return re.findall(r'aria-current="page">([^<]+)</a>', nav)


def test_a_record_highlights_the_list_it_was_opened_from(logged_in, desk_data):
    near, verbatim = desk_data["near"], desk_data["verbatim"]
    from_near = logged_in.get(reverse("record", args=[near.pk]) + "?list=near_misses")
    assert nav_current(from_near.content.decode()) == ["Near misses"]
    from_exclusions = logged_in.get(reverse("record", args=[verbatim.pk]) + "?list=exclusions")
    assert nav_current(from_exclusions.content.decode()) == ["Exclusions"]
    export = logged_in.get(reverse("export") + "?list=near_misses")
    assert nav_current(export.content.decode()) == ["Near misses"]
    assert nav_current(logged_in.get(reverse("record", args=[near.pk])).content.decode()) == []


def test_back_to_the_list_goes_where_the_record_came_from_or_is_not_offered(logged_in, desk_data):
    near = desk_data["near"]
    response = logged_in.get(reverse("record", args=[near.pk]) + "?list=near_misses&kind=skill")
    assert response.context["back_url"] == reverse("near_misses") + "?kind=skill"
    alone = logged_in.get(reverse("record", args=[near.pk]))
    assert b"Back to the list" not in alone.content


def test_links_never_end_in_a_stray_ampersand_or_question_mark(logged_in, desk_data):
    verbatim = desk_data["verbatim"]
    pages = [
        reverse("exclusions"),
        reverse("near_misses"),
        reverse("export"),
        reverse("exclusions_bulk"),
        reverse("record", args=[verbatim.pk]) + "?list=exclusions",
        reverse("record", args=[verbatim.pk]),
    ]
    for url in pages:
        html = logged_in.get(url).content.decode()
        assert '&amp;"' not in html and '?"' not in html, url
    rows = logged_in.get(reverse("exclusions")).content.decode()
    assert f'href="/records/{verbatim.pk}/?list=exclusions"' in rows


def test_dates_are_set_so_that_they_never_wrap(logged_in, desk_data, reviewer):
    from poimen.services import review_record

    verbatim = desk_data["verbatim"]
    review_record(record=verbatim, verdict="confirmed", actor=reviewer)
    for url in page_urls(desk_data):
        html = logged_in.get(url).content.decode()
        outside = re.sub(r'<time class="when" datetime="[^"]+">[^<]+</time>', "", html)
        # The date pickers' bounds are attributes, never text that wraps.
        outside = re.sub(r' (min|max)="\d{4}-\d{2}-\d{2}"', "", outside)
        assert not re.search(r"\d{4}-\d{2}-\d{2}", outside), url
    assert '<time class="when"' in logged_in.get(reverse("runs")).content.decode()


def test_missing_record_is_404(logged_in, db):
    assert logged_in.get(reverse("record", args=[999999])).status_code == 404


def test_overview_counts_per_kind_and_warns_about_unfiltered_runs(logged_in, desk_data):
    from poimen.models import IngestRun

    html = logged_in.get(reverse("overview")).content.decode()
    assert "skill" in html and "alarm" not in html
    IngestRun.objects.create(source="raw-dump", filtered=False)
    html = logged_in.get(reverse("overview")).content.decode()
    assert 'class="alarm"' in html and "raw-dump" in html
    counts = logged_in.get(reverse("overview"), **htmx_target("counts")).content.decode()
    assert "Review progress" in counts and "Recent ingest runs" not in counts


def test_overview_shows_evidence_once_not_per_kind(logged_in, desk_data):
    """Per kind, evidence would be only the evidence that matched that kind: the near misses
    again (and the records reviewers released), which reads as if it were all the evidence."""
    response = logged_in.get(reverse("overview"))
    html = response.content.decode()
    table = html[html.index("Per kind of artifact") : html.index("Recent ingest runs")]
    assert "<th>Kind</th>" in table and ">Evidence<" not in table
    assert "Exclusions unreviewed" in table
    assert (
        response.context["totals"]["evidence"] == Record.objects.filter(status="evidence").count()
    )
    assert f'<div class="stat">{response.context["totals"]["evidence"]}</div>' in html


def test_artifacts_list_counts_exclusions_per_artifact(logged_in, desk_data):
    response = logged_in.get(reverse("artifacts") + "?kind=skill")
    rows = {artifact.name: excluded for artifact, excluded in response.context["rows"]}
    assert rows == {"incident-review": 1, "postgres-migrations": 0, "release-notes": 1}


def test_artifact_detail_shows_text_and_matches(logged_in, desk_data):
    artifact = desk_data["verbatim"].best_artifact
    html = logged_in.get(reverse("artifact", args=[artifact.pk])).content.decode()
    assert "Records that match it" in html
    assert f"#{desk_data['verbatim'].pk}<" in html


def test_audit_log_filters_by_type_kind_actor_and_date(logged_in, desk_data, reviewer):
    from poimen.services import review_record

    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=reviewer)
    url = reverse("audit")
    everything = logged_in.get(url).context["page"].items
    assert {e.type for e in everything} >= {"derived_excluded", "review_confirmed"}
    by_type = logged_in.get(url + "?type=review_confirmed")
    assert {e.type for e in by_type.context["page"].items} == {"review_confirmed"}
    by_actor = logged_in.get(url + "?actor=rita").context["page"].items
    assert by_actor and all(e.actor_id == reviewer.pk for e in by_actor)
    by_kind = logged_in.get(url + "?kind=skill").context["page"].items
    assert by_kind and all(e.kind == "skill" for e in by_kind)
    assert logged_in.get(url + "?date_to=2000-01-01").context["page"].items == []


def test_export_shows_the_count_then_downloads_csv_and_jsonl(logged_in, desk_data):
    page = logged_in.get(reverse("export") + "?list=exclusions&kind=skill")
    assert page.context["count"] == 2
    assert b"2 records" in page.content
    csv_file = logged_in.get(reverse("export") + "?list=exclusions&kind=skill&download=1")
    assert csv_file["Content-Type"].startswith("text/csv")
    lines = b"".join(csv_file.streaming_content).decode().strip().splitlines()
    assert lines[0].startswith("id,record_pk,source,status")
    assert len(lines) == 3
    jsonl = logged_in.get(reverse("export") + "?list=near_misses&format=jsonl&download=1")
    rows = [json.loads(line) for line in b"".join(jsonl.streaming_content).splitlines()]
    assert [(row["id"], row["record_pk"]) for row in rows] == [("near", desk_data["near"].pk)]


def test_export_page_names_every_field_the_file_holds(logged_in, desk_data):
    page = logged_in.get(reverse("export") + "?list=exclusions").content.decode()
    download = logged_in.get(reverse("export") + "?list=exclusions&format=csv&download=1")
    header = b"".join(download.streaming_content).decode().splitlines()[0].split(",")
    assert f"{len(header)} fields" in page
    for name in header:
        assert f"<code>{name}</code>" in page, name


@pytest.mark.parametrize("name", ["exclusions", "near_misses", "audit", "artifacts"])
def test_list_pages_run_a_bounded_number_of_queries(
    logged_in, desk_data, django_assert_max_num_queries, make_record, name
):
    for number in range(30):
        make_record(
            text=f"copy {number}",
            status="excluded",
            derived=True,
            best_overlap=0.9,
            best_artifact=desk_data["verbatim"].best_artifact,
        )
    logged_in.get(reverse(name))  # sessions, caches and content types warm
    with django_assert_max_num_queries(15):
        logged_in.get(reverse(name))
    with django_assert_max_num_queries(12):
        logged_in.get(reverse(name), **htmx_target("results"))


def test_csv_export_quotes_cells_that_a_spreadsheet_would_run(logged_in, desk_data, make_record):
    make_record(
        text="=HYPERLINK(evil)",
        source="=cmd|' /C calc'!A0",
        status="excluded",
        derived=True,
        best_overlap=0.9,
        best_artifact=desk_data["verbatim"].best_artifact,
    )
    response = logged_in.get(reverse("export") + "?list=exclusions&download=1")
    body = b"".join(response.streaming_content).decode()
    assert "'=cmd|" in body
    assert "\n=cmd" not in body and ",=cmd" not in body


def test_overview_counts_follow_reviews_undo_and_threshold_changes(desk_data, reviewer):
    from django.core.cache import cache

    from poimen.services import review_record, review_undo, threshold_change

    def direct():
        rows = {}
        for record in Record.objects.select_related("best_artifact"):
            if record.best_artifact is None:
                continue
            entry = rows.setdefault(record.best_artifact.kind, [0, 0, 0, 0, 0])
            excluded = record.status == "excluded"
            redacted = record.status == "redacted"
            entry[0 if excluded else 4 if redacted else 1] += 1
            near = record.status == "evidence" and 0.2 <= record.best_overlap <= 0.8
            entry[2] += near
            entry[3] += (excluded or redacted) and record.review_id is None
        return rows

    def shown():
        return {
            c.kind: [c.excluded, c.evidence, c.near_misses, c.unreviewed, c.redacted]
            for c in selectors.kind_counts()
            if c.excluded or c.evidence or c.redacted
        }

    assert shown() == direct() == {"skill": [2, 1, 1, 2, 0]}
    review_record(record=desk_data["verbatim"], verdict="false_positive", actor=reviewer)
    review_record(record=desk_data["near"], verdict="false_negative", actor=reviewer)
    assert shown() == direct() == {"skill": [2, 1, 0, 1, 0]}
    review_undo(record=desk_data["near"], actor=reviewer)
    assert shown() == direct()
    threshold_change(kind="skill", value=0.3, reason="tighter", actor=reviewer)
    cache_before = shown()
    assert cache_before == direct() == {"skill": [1, 1, 0, 2, 1]}  # the near miss: redacted
    cache.clear()
    assert shown() == cache_before
    totals = selectors.totals()
    assert totals["records"] == Record.objects.count()
    assert totals["excluded"] == Record.objects.filter(status="excluded").count()
    assert totals["redacted"] == Record.objects.filter(status="redacted").count() == 1


def test_the_unfiltered_run_warning_gives_way_once_a_refilter_has_checked_its_records(
    logged_in, make_artifact, tmp_path
):
    from django.core.management import call_command

    from poimen.models import Event

    make_artifact(name="release-notes")
    copies = tmp_path / "copies.jsonl"
    copies.write_text(json.dumps({"id": "c", "text": demo_skill("release-notes")}) + "\n")
    call_command(
        "ingest", str(copies), "--no-derived-filter", stdout=io.StringIO(), stderr=io.StringIO()
    )
    assert 'class="alarm"' in logged_in.get(reverse("overview")).content.decode()

    call_command("refilter", "--kind", "skill", stdout=io.StringIO())  # one kind is not all
    assert 'class="alarm"' in logged_in.get(reverse("overview")).content.decode()

    call_command("refilter", stdout=io.StringIO())
    html = logged_in.get(reverse("overview")).content.decode()
    assert 'class="alarm"' not in html and "a refilter has checked their records since" in html
    by_kind = Event.objects.get(type="records_refiltered", kind="skill")
    assert (by_kind.data["checked"], by_kind.data["excluded"]) == (1, 1)
    assert Event.objects.get(type="records_refiltered", kind="").data["checked"] == 1


def test_the_audit_log_says_what_a_refilter_and_an_unfiltered_ingest_did(logged_in, db):
    from poimen.models import Event

    Event.objects.create(type="filter_disabled", data={"paths": ["a.jsonl", "b.md"]})
    Event.objects.create(
        type="records_refiltered", data={"kind": None, "checked": 12, "excluded": 3}
    )

    html = logged_in.get(reverse("audit")).content.decode()

    assert "paths: a.jsonl, b.md" in html
    assert "checked: 12 · excluded: 3" in html
