"""The tuning page's histogram as plain geometry for a server-drawn SVG: no chart library, no
script, nothing the CSP would have to allow (SVG attributes, not inline styles)."""

import math
from dataclasses import dataclass

from poimen.selectors import VERDICTS, Histogram

WIDTH = 720
HEIGHT = 240
LEFT = 44
RIGHT = 12
TOP = 14
BOTTOM = 26
PLOT_WIDTH = WIDTH - LEFT - RIGHT
PLOT_HEIGHT = HEIGHT - TOP - BOTTOM
VERDICT_LABELS = {
    "unreviewed": "not reviewed",
    "confirmed": "confirmed",
    "false_positive": "false positive",
    "false_negative": "false negative",
}


@dataclass(frozen=True)
class Segment:
    verdict: str
    y: float
    height: float
    count: int


@dataclass(frozen=True)
class Bar:
    x: float
    width: float
    low: float
    high: float
    total: int
    segments: list[Segment]

    @property
    def title(self) -> str:
        parts = [f"{s.count:,} {VERDICT_LABELS[s.verdict]}" for s in self.segments if s.count]
        detail = ", ".join(parts) if parts else "no matches"
        return f"overlap {self.low:.2f}–{self.high:.2f}: {detail}"


@dataclass(frozen=True)
class Line:
    x: float
    value: float


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    top: float
    bottom: float
    left: float
    right: float
    bars: list[Bar]
    ticks: list[Tick]
    y_label: str
    threshold: Line
    floor: Line
    proposed: Line | None
    total: int
    log_scale: bool
    legend: list[tuple[str, str]]


def _x(value: float) -> float:
    return round(LEFT + PLOT_WIDTH * min(max(value, 0.0), 1.0), 1)


def histogram_chart(
    histogram: Histogram,
    *,
    threshold: float,
    floor: float,
    proposed: float | None = None,
    log_scale: bool = False,
) -> Chart:
    totals = histogram.totals
    top_count = max(totals) if totals else 0

    def scale(count: float) -> float:
        if not top_count:
            return 0.0
        if log_scale:
            return math.log10(1 + count) / math.log10(1 + top_count)
        return count / top_count

    bin_width = PLOT_WIDTH / histogram.bins
    bars = []
    for index, total in enumerate(totals):
        bar_height = PLOT_HEIGHT * scale(total)
        y = TOP + PLOT_HEIGHT
        segments = []
        for verdict in VERDICTS:
            count = histogram.counts[verdict][index]
            # Within a bar the verdicts keep their shares, on either scale.
            height = bar_height * count / total if total else 0.0
            y -= height
            segments.append(Segment(verdict, round(y, 1), round(height, 1), count))
        bars.append(
            Bar(
                x=round(LEFT + index * bin_width + 1, 1),
                width=round(bin_width - 2, 1),
                low=index / histogram.bins,
                high=(index + 1) / histogram.bins,
                total=total,
                segments=segments,
            )
        )
    ticks = [Tick(_x(i / 10), f"{i / 10:.1f}") for i in range(0, 11, 2)]
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        top=TOP,
        bottom=TOP + PLOT_HEIGHT,
        left=LEFT,
        right=LEFT + PLOT_WIDTH,
        bars=bars,
        ticks=ticks,
        y_label=f"{top_count:,}",
        threshold=Line(_x(threshold), threshold),
        floor=Line(_x(floor), floor),
        proposed=Line(_x(proposed), proposed) if proposed is not None else None,
        total=sum(totals),
        log_scale=log_scale,
        legend=[(verdict, VERDICT_LABELS[verdict]) for verdict in VERDICTS],
    )


# --- the reviewers' estimates over the histogram (selectors.estimates) ----------------------


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    threshold: float
    value: float


@dataclass(frozen=True)
class EstimateLines:
    """Precision and recall at each threshold, on the histogram's x axis and a 0–1 scale of
    the plot's height: each a polyline of its points (told apart by dash and marker shape,
    not by colour alone)."""

    precision: list[Point]
    recall: list[Point]

    @staticmethod
    def _points(points: list[Point]) -> str:
        return " ".join(f"{p.x},{p.y}" for p in points)

    @property
    def precision_points(self) -> str:
        return self._points(self.precision)

    @property
    def recall_points(self) -> str:
        return self._points(self.recall)


def estimate_lines(rows) -> EstimateLines:
    """`rows`: selectors.ThresholdEstimate, in threshold order; those with no estimate are
    left out of their line."""

    def point(threshold: float, value: float) -> Point:
        return Point(_x(threshold), round(TOP + PLOT_HEIGHT * (1 - value), 1), threshold, value)

    return EstimateLines(
        precision=[
            point(r.threshold, r.precision.value) for r in rows if r.precision.value is not None
        ],
        recall=[point(r.threshold, r.recall.value) for r in rows if r.recall.value is not None],
    )


# --- the overview: exclusions a day, a line per kind --------------------------------------


@dataclass(frozen=True)
class KindLine:
    kind: str
    points: str  # "x,y x,y ..." for a <polyline>
    total: int
    style: int  # which of the line styles (colour and dash) it is drawn in


@dataclass(frozen=True)
class TimeChart:
    width: int
    height: int
    lines: list[KindLine]
    ticks: list[Tick]
    peak: int
    peak_y: float
    base_y: float


# Lines are told apart by dash as well as colour (desk.css: .kind-line.style-N).
LINE_STYLES = 4


def exclusions_chart(over_time) -> TimeChart:
    """selectors.ExclusionsOverTime as a line per kind over the days, on one scale."""
    days = len(over_time.days)
    peak = max((max(s.counts) for s in over_time.series), default=0) or 1

    def x(day: int) -> float:
        return round(LEFT + PLOT_WIDTH * day / max(days - 1, 1), 1)

    def y(count: int) -> float:
        return round(TOP + PLOT_HEIGHT * (1 - count / peak), 1)

    lines = [
        KindLine(
            kind=s.kind,
            points=" ".join(f"{x(n)},{y(c)}" for n, c in enumerate(s.counts)),
            total=sum(s.counts),
            style=number % LINE_STYLES,
        )
        for number, s in enumerate(over_time.series)
    ]
    # A tick a week, and the last day.
    ticks = [
        Tick(x=x(n), label=day.strftime("%b %d"))
        for n, day in enumerate(over_time.days)
        if (days - 1 - n) % 7 == 0
    ]
    return TimeChart(
        width=WIDTH,
        height=HEIGHT,
        lines=lines,
        ticks=ticks,
        peak=peak,
        peak_y=y(peak),
        base_y=y(0),
    )
