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
