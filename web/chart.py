"""The score-by-year chart of the final results, drawn by the server as a self-contained SVG string."""

from __future__ import annotations

from html import escape

# Player colours as drawn on screen (piece colours that read well on a white page).
COLOURS = {"red": "#d62728", "blue": "#1f5fbf", "green": "#2a9d3a", "yellow": "#d4a000", "black": "#222222",
           "white": "#888888", "purple": "#7b3fb0", "orange": "#e67e22", "grey": "#777777"}


def css_colour(name: str) -> str:
    return COLOURS.get(str(name).lower(), "#777777")


def score_chart(by_year: dict[str, list[int]], colours: dict[str, str], width: int = 640, height: int = 320) -> str:
    """An SVG line chart: one line per player, x = year (1..n), y = score at the end of that year."""
    series = {name: [int(v) for v in values] for name, values in by_year.items() if values}
    left, right, top, bottom = 48, 110, 16, 40
    pw, ph = width - left - right, height - top - bottom
    years = max((len(v) for v in series.values()), default=0)
    top_score = max((max(v) for v in series.values()), default=0)
    y_max = max(5, -(-top_score // 5) * 5)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="score by year">']
    if not series:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">No completed year yet.</text></svg>')
        return "".join(out)

    def x_of(i: int) -> float:
        return left + (pw * i / (years - 1) if years > 1 else pw / 2)

    def y_of(v: float) -> float:
        return top + ph - ph * v / y_max

    step = 5 if y_max <= 40 else 10
    for v in range(0, y_max + 1, step):
        y = y_of(v)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12">{v}</text>')
    for i in range(years):
        out.append(f'<text x="{x_of(i):.1f}" y="{top + ph + 18}" text-anchor="middle" font-size="12">{i + 1}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 4}" text-anchor="middle" font-size="12">year</text>')
    out.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#555"/>')
    for n, (name, values) in enumerate(series.items()):
        colour = css_colour(colours.get(name, "grey"))
        pts = " ".join(f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in enumerate(values))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="3" points="{pts}"/>')
        for i, v in enumerate(values):
            out.append(f'<circle cx="{x_of(i):.1f}" cy="{y_of(v):.1f}" r="4" fill="{colour}"><title>{escape(name)}: {v} after year {i + 1}</title></circle>')
        ly = top + 14 + n * 20
        out.append(f'<rect x="{left + pw + 12}" y="{ly - 10}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{left + pw + 30}" y="{ly}" font-size="13">{escape(name)} {values[-1]}</text>')
    out.append("</svg>")
    return "".join(out)
