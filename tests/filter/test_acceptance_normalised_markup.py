"""Acceptance tests for norm-v2 (issue 13's last miss), on realistic texts: markup typed in
fullwidth forms is the markup NFKC makes of it, so a copy reformatted that way is excluded as
its ASCII form is; a time at a line start ("10:30") is not a line-number gutter ("12: "); a
mention stays evidence. No database: the matcher is a library."""

import pytest

from filter import ArtifactRecord, DerivedFilter, tokenise
from tests import renderings

# A project README as package indexes show them: HTML for the badges, the options table and
# the collapsed sections, fences for the commands, numbered steps.
README = """\
<p align="center">
  <img src="docs/logo.svg" alt="tidewatch logo" width="180">
</p>
<h1 align="center">tidewatch</h1>
<p align="center">
  <a href="https://ci.example.org/tidewatch"><img src="badge.svg" alt="build status"></a>
  <a href="LICENSE"><img src="license.svg" alt="licence: MPL-2.0"></a>
</p>

tidewatch follows the tide tables published by harbour authorities and tells a small boat
owner, a day ahead, when the channel into their mooring is deep enough to cross. It reads
the published tables once a week, keeps them in a local file, and answers from that file
without a network connection, which is what you want on a boat.

## Installing

1. Install it with pipx, so that it gets an environment of its own:

```sh
pipx install tidewatch
```

2. Tell it which harbour you sail from and how much water your keel needs:

```sh
tidewatch setup --harbour "Brixham" --draught 1.6
```

3. Fetch the tables for the next four weeks while you still have a connection:

```sh
tidewatch fetch --weeks 4
```

## Options

<table>
  <tr><th>option</th><th>default</th><th>what it does</th></tr>
  <tr><td><code>--margin</code></td><td>0.3</td>
      <td>water to keep under the keel, in metres</td></tr>
  <tr><td><code>--window</code></td><td>2h</td>
      <td>the shortest crossing window worth reporting</td></tr>
  <tr><td><code>--daylight</code></td><td>off</td>
      <td>report windows between sunrise and sunset only</td></tr>
</table>

<details>
<summary><b>Why not use the harbour office's own app?</b></summary>

The office's app needs a connection for every question and shows heights, not windows: you
still have to work out for yourself when the height over the bar is more than your draught
and your margin together. tidewatch does that sum for every hour of the coming days and
lists the windows, earliest first, with the height at the start, the middle and the end.
</details>

## Reading the answer

Each window is printed on one line with its start, its end and the least depth in it. A
window shorter than the `--window` option is left out; a window that crosses sunset is cut
at sunset when `--daylight` is on. When no window is found for three days, tidewatch says so
and prints the best day of the next week instead, so that a plan can still be made.
"""

# Notes from a day aboard: times at the start of lines, as people write them.
LOG = """\
Thursday, crossing to the outer mooring

09:15 engine checked, oil fine, one jerrycan of diesel aboard
10:30 left the pontoon on the last of the flood, wind west three
12:05 anchored off the point for lunch, depth 4.2 at low water
14:40 crossed the bar with half a metre to spare, as tidewatch had said
16:00 on the mooring; tender back to the slip before the rain
"""


def readme_artifact() -> ArtifactRecord:
    return ArtifactRecord.from_text(kind="reference", name="tidewatch-readme", text=README)


@pytest.fixture(scope="module")
def derived_filter() -> DerivedFilter:
    derived_filter = DerivedFilter()
    derived_filter.add(readme_artifact())
    derived_filter.add(ArtifactRecord.from_text(kind="skill", name="day-log", text=LOG))
    return derived_filter


def overlap_of_the_ascii_copy(derived_filter: DerivedFilter) -> float:
    (match,) = derived_filter.check(README).matches
    return match.overlap


def test_a_copy_with_its_html_tags_in_fullwidth_letters_is_excluded(derived_filter):
    copy = renderings.crlf(renderings.fullwidth_tags(README))
    assert "＜ｔｄ＞" in copy and "<td>" not in copy

    verdict = derived_filter.check(copy)

    assert verdict.derived
    assert verdict.matches[0].overlap == overlap_of_the_ascii_copy(derived_filter)
    assert tokenise(copy).words == tokenise(README).words


@pytest.mark.parametrize(
    "render",
    [
        renderings.fullwidth_forms,  # tags, fences, list numbers, all of it
        lambda text: renderings.colon_gutter(renderings.fullwidth_forms(text)),
        lambda text: renderings.fullwidth_forms(renderings.colon_gutter(text)),  # "１２：　"
        lambda text: renderings.fullwidth_forms(renderings.read_tool_gutter(text)),
        lambda text: renderings.fullwidth_forms(renderings.quote(text)),  # "＞　１．"
    ],
    ids=["fullwidth", "gutter-of-fullwidth", "fullwidth-gutter", "fullwidth-arrow", "quoted"],
)
def test_a_copy_typed_in_fullwidth_forms_is_excluded_as_its_ascii_form_is(derived_filter, render):
    copy = render(README)

    for verdict in (derived_filter.check(copy), derived_filter.check_many([copy])[0]):
        assert verdict.derived
        assert verdict.matches[0].overlap == overlap_of_the_ascii_copy(derived_filter)
    assert tokenise(copy).words == tokenise(README).words


def test_times_at_a_line_start_keep_their_words_and_a_gutter_does_not():
    words = tokenise(LOG).words
    assert words[words.index("engine") - 2 : words.index("engine")] == ["09", "15"]
    assert ["10", "30", "left"] == words[words.index("left") - 2 : words.index("left") + 1]
    assert words.count("16") == 1 and words.count("00") == 1

    gutter = renderings.colon_gutter(LOG)  # "   3: 09:15 engine ..."
    assert "   3: 09:15 engine" in gutter
    assert tokenise(gutter).words == words


def test_a_log_with_times_copied_is_excluded_and_its_own_day_is_not(derived_filter):
    assert derived_filter.check(renderings.colon_gutter(LOG)).derived
    # another day, the same times and the same kind of line
    other_day = "\n".join(
        line.split(" ", 1)[0] + " " + rest
        for line, rest in zip(
            LOG.splitlines()[2:],
            [
                "rain all morning, stayed on the pontoon and fixed the bilge pump",
                "harbour master came by about the mooring fees for the winter",
                "walked to the chandlery for a new shackle and two fenders",
                "the forecast improved, planned the crossing for Saturday instead",
                "cleaned the cockpit drains and went home on the bus",
            ],
            strict=True,
        )
    )
    assert not derived_filter.check(other_day).derived


def test_a_mention_in_fullwidth_forms_stays_evidence(derived_filter):
    mention = renderings.fullwidth_forms(
        "We tried tidewatch for the crossing on Thursday. It reads the published tables once "
        "a week and answers without a network connection; the <b>--daylight</b> option cut "
        "the last window at sunset, which was right, and the 1.6 m draught setting matched "
        "the boat. Next time I want to compare it with the harbour office's app."
    )

    verdict = derived_filter.check(mention)

    assert not verdict.derived
