"""Charts as inline SVG, drawn on the server: no chart library, no script, nothing fetched.

Two shapes cover the dashboard: a line over time (``line``) and labelled
bars (``bars``). Every label and value is escaped; each point or bar has a
``<title>`` so hovering shows its exact value. Colours come from the page's
CSS variables, so the charts follow its light and dark schemes.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

WIDTH = 640
HEIGHT = 200
PAD_LEFT = 48
PAD_BOTTOM = 28
PAD_TOP = 12
PAD_RIGHT = 12


def _fmt(value: float) -> str:
    if abs(value) >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"


def _empty(label: str, height: int) -> Markup:
    return Markup(
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(label)}"><text x="{WIDTH / 2}" y="{height / 2}" '
        'text-anchor="middle" class="muted">'
        "nothing to show yet</text></svg>"
    )


def line(
    points: Sequence[tuple[str, float]],
    *,
    label: str,
    ceiling: float | None = None,
    unit: str = "",
) -> Markup:
    """``points`` (x label, value) left to right; ``ceiling`` draws a dashed limit line."""
    if not points:
        return _empty(label, HEIGHT)
    top = max([v for _, v in points] + [ceiling or 0.0, 1.0])
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    step = inner_w / max(len(points) - 1, 1)

    def y(value: float) -> float:
        return PAD_TOP + inner_h * (1 - value / top)

    coords = [(PAD_LEFT + i * step, y(v)) for i, (_, v) in enumerate(points)]
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(label)}">',
        f'<line class="axis" x1="{PAD_LEFT}" y1="{y(0):.1f}" x2="{WIDTH - PAD_RIGHT}" '
        f'y2="{y(0):.1f}"/>',
        f'<text class="tick" x="{PAD_LEFT - 6}" y="{y(top) + 4:.1f}" text-anchor="end">'
        f"{escape(_fmt(top))}</text>",
        f'<text class="tick" x="{PAD_LEFT - 6}" y="{y(0) + 4:.1f}" text-anchor="end">0</text>',
    ]
    if ceiling:
        parts.append(
            f'<line class="limit" x1="{PAD_LEFT}" y1="{y(ceiling):.1f}" '
            f'x2="{WIDTH - PAD_RIGHT}" y2="{y(ceiling):.1f}"><title>limit '
            f"{escape(_fmt(ceiling))}{escape(unit)}</title></line>"
        )
    path = " ".join(f"{x:.1f},{yy:.1f}" for x, yy in coords)
    parts.append(f'<polyline class="series" points="{path}"/>')
    for (x, yy), (name, value) in zip(coords, points, strict=True):
        parts.append(
            f'<circle class="dot" cx="{x:.1f}" cy="{yy:.1f}" r="3"><title>{escape(name)}: '
            f"{escape(_fmt(value))}{escape(unit)}</title></circle>"
        )
    for index in sorted({0, len(points) - 1}):
        x = coords[index][0]
        anchor = "start" if index == 0 else "end"
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}">'
            f"{escape(points[index][0])}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def bars(items: Sequence[tuple[str, float]], *, label: str, unit: str = "") -> Markup:
    """Horizontal bars, one row per (label, value), longest value full width."""
    row = 22
    height = max(row * len(items) + 8, 40)
    if not items:
        return _empty(label, 60)
    top = max(max(v for _, v in items), 1.0)
    text_w = 220
    inner_w = WIDTH - text_w - 60
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(label)}">'
    ]
    for n, (name, value) in enumerate(items):
        y = 4 + n * row
        width = max(inner_w * value / top, 1.0)
        short = name if len(name) <= 32 else name[:31] + "…"
        parts.append(
            f'<text class="tick" x="{text_w - 8}" y="{y + 14}" text-anchor="end">'
            f"{escape(short)}<title>{escape(name)}</title></text>"
            f'<rect class="bar" x="{text_w}" y="{y + 2}" width="{width:.1f}" height="{row - 6}">'
            f"<title>{escape(name)}: {escape(_fmt(value))}{escape(unit)}</title></rect>"
            f'<text class="tick" x="{text_w + width + 6:.1f}" y="{y + 14}">'
            f"{escape(_fmt(value))}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def usage_bar(used: int, budget: int) -> Markup:
    """A budget's fill as a bar; over the budget it is drawn full and marked."""
    share = used / budget if budget else 1.0
    width = min(share, 1.0) * 100
    state = "over" if share > 1 else ("high" if share >= 0.8 else "ok")
    return Markup(
        f'<svg class="usage {state}" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" '
        f'aria-label="{used:,} of {budget:,} chars">'
        f'<rect class="track" x="0" y="0" width="100" height="8"/>'
        f'<rect class="fill" x="0" y="0" width="{width:.1f}" height="8"/></svg>'
    )
