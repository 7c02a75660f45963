"""Charts of the site's sweep pages as inline SVG: no script, no library, nothing to download.

Contract: :func:`bar_chart` draws one horizontal bar per ``(label, value)`` (each bar a
``rect.bar`` carrying a ``<title>`` with its exact value, so a person hovering sees it and a
test can count them); :func:`line_chart` draws one polyline per series over shared x values
(pass^k by k per agent); :func:`histogram` buckets numbers into ``bins`` bars. Every label is
escaped with :func:`silo.view.html.esc`; the same data gives the same bytes. An empty chart is
a muted sentence, not an empty box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from silo.view.html import esc

__all__ = ["bar_chart", "histogram", "line_chart"]

_LABEL_W = 190  # room for a task id or an agent name left of the bars
_BAR_W = 360
_ROW_H = 20
_PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#9a6700", "#bf3989", "#57606a")


def _figure(title: str, svg: str) -> str:
    return f'<figure class="chart"><figcaption>{esc(title)}</figcaption>{svg}</figure>'


def _empty(title: str) -> str:
    return _figure(title, '<p class="muted">No data.</p>')


def bar_chart(
    title: str,
    bars: Sequence[tuple[str, float]],
    top: float | None = None,
    fmt: Callable[[float], str] = lambda v: f"{v:.2f}",
) -> str:
    """One bar per label, scaled to ``top`` (default: the largest value)."""
    if not bars:
        return _empty(title)
    scale = top or max(value for _, value in bars) or 1.0
    height = _ROW_H * len(bars) + 4
    rows = []
    for i, (label, value) in enumerate(bars):
        y = i * _ROW_H + 2
        width = max(0.0, min(value / scale, 1.0)) * _BAR_W
        shown = esc(fmt(value))
        rows.append(
            f'<text x="{_LABEL_W - 6}" y="{y + 14}" text-anchor="end">{esc(label)}</text>'
            f'<rect class="bar" x="{_LABEL_W}" y="{y + 2}" width="{width:.1f}" height="{_ROW_H - 5}"'
            f' fill="#0969da"><title>{esc(label)}: {shown}</title></rect>'
            f'<text x="{_LABEL_W + width + 4:.1f}" y="{y + 14}">{shown}</text>'
        )
    total = _LABEL_W + _BAR_W + 60
    return _figure(
        title,
        f'<svg class="bars" width="{total}" height="{height}" viewBox="0 0 {total} {height}" '
        f'role="img" font-size="12">{"".join(rows)}</svg>',
    )


def line_chart(title: str, xs: Sequence[int], series: dict[str, dict[int, float]]) -> str:
    """One line per series over ``xs`` on a 0–1 scale, with a legend (pass^k by k)."""
    if not xs or not series:
        return _empty(title)
    left, width, height, top = 40, 380, 160, 10
    step = width / max(len(xs) - 1, 1)
    grid = "".join(
        f'<line x1="{left}" x2="{left + width}" y1="{top + height * (1 - t):.1f}" '
        f'y2="{top + height * (1 - t):.1f}" stroke="#d0d7de"/>'
        f'<text x="{left - 4}" y="{top + height * (1 - t) + 4:.1f}" text-anchor="end">{t:.1f}</text>'
        for t in (0.0, 0.5, 1.0)
    )
    ticks = "".join(
        f'<text x="{left + i * step:.1f}" y="{top + height + 16}" text-anchor="middle">k={x}</text>'
        for i, x in enumerate(xs)
    )
    lines, legend = [], []
    for n, (name, values) in enumerate(series.items()):
        color = _PALETTE[n % len(_PALETTE)]
        points = [
            (left + i * step, top + height * (1 - values[x]))
            for i, x in enumerate(xs)
            if x in values
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        dots = "".join(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"><title>{esc(name)} '
            f"k={k}: {values[k]:.2f}</title></circle>"
            for (x, y), k in zip(points, [k for k in xs if k in values], strict=True)
        )
        lines.append(
            f'<g class="series"><polyline points="{path}" fill="none" stroke="{color}" '
            f'stroke-width="2"/>{dots}</g>'
        )
        legend.append(
            f'<text x="{left + width + 14}" y="{top + 12 + 16 * n}" fill="{color}">{esc(name)}</text>'
        )
    total_w, total_h = left + width + 200, top + height + 24
    return _figure(
        title,
        f'<svg class="lines" width="{total_w}" height="{total_h}" viewBox="0 0 {total_w} '
        f'{total_h}" role="img" font-size="12">{grid}{ticks}{"".join(lines)}{"".join(legend)}'
        "</svg>",
    )


def histogram(
    title: str, values: Sequence[float], fmt: Callable[[float], str], bins: int = 8
) -> str:
    """How many values fall in each of ``bins`` equal ranges between the smallest and largest."""
    if not values:
        return _empty(title)
    low, high = min(values), max(values)
    size = (high - low) / bins or 1.0
    counts = [0] * bins
    for value in values:
        counts[min(int((value - low) / size), bins - 1)] += 1
    bars = [
        (f"{fmt(low + i * size)}–{fmt(low + (i + 1) * size)}", float(count))
        for i, count in enumerate(counts)
    ]
    return bar_chart(title, bars, fmt=lambda v: f"{v:.0f}")
