"""Figures of "Why these choices?": the paper's model beside a variant without one of its choices.

Pure functions: numbers in, Plotly figures out (the numbers come from each variant's scores.json and
from `analysis.scaling`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import plotly.graph_objects as go
from plotly.subplots import make_subplots


def curves(series: dict[str, list], title: str, y_title: str, colors: list[str]) -> go.Figure:
    """One line per run: series maps a label to [step, value] rows."""
    fig = go.Figure()
    for i, (label, rows) in enumerate(series.items()):
        fig.add_trace(
            go.Scatter(
                x=[r[0] for r in rows],
                y=[r[1] for r in rows],
                mode="lines+markers",
                name=label,
                line={"color": colors[i % len(colors)], "dash": "solid" if i == 0 else "dash"},
                hovertemplate=f"{label}<br>step %{{x}}<br>{y_title} %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(
        title=title,
        xaxis_title="training step",
        yaxis_title=y_title,
        height=340,
        legend={"orientation": "h", "y": -0.25},
        margin={"t": 60, "b": 10},
    )
    return fig


def over_training(stats: dict[str, dict], panels: dict[str, str], colors: list[str],
                  columns: int | None = None) -> go.Figure:
    """Attention statistics at each milestone step, one panel per statistic, in `columns` columns
    (default: all in one row).

    stats: label -> {step (text): {statistic: value}}; panels: statistic -> its title.
    """
    fig, at = panel_grid(list(panels.values()), columns or len(panels))
    for i, (label, by_step) in enumerate(stats.items()):
        steps = sorted(int(s) for s in by_step if s.isdigit())
        for j, key in enumerate(panels):
            fig.add_trace(
                go.Scatter(
                    x=steps,
                    y=[by_step[str(s)][key] for s in steps],
                    mode="lines+markers",
                    name=label,
                    legendgroup=label,
                    showlegend=j == 0,
                    line={"color": colors[i % len(colors)], "dash": "solid" if i == 0 else "dash"},
                    hovertemplate=f"{label}<br>step %{{x}}<br>{panels[key]} %{{y:.3f}}<extra></extra>",
                ),
                **at(j),
            )
            fig.update_xaxes(title_text="training step", **at(j))
    return fig


def panel_grid(titles: list[str], columns: int) -> tuple[go.Figure, Callable[[int], dict]]:
    """A figure of one panel per title in `columns` columns (2 for large type on a narrow screen: in a
    row of three or four, long panel titles ran into each other and off the figure), its legend under
    the panels; and panel number -> its row and col."""
    n_rows = math.ceil(len(titles) / columns)
    fig = make_subplots(rows=n_rows, cols=columns, subplot_titles=titles,
                        horizontal_spacing=0.07 if columns > 2 else 0.12,
                        **({"vertical_spacing": 0.3} if n_rows > 1 else {}))
    fig.update_layout(height=260 * n_rows + 70, margin={"t": 50, "b": 60},
                      legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"})
    return fig, lambda j: {"row": j // columns + 1, "col": j % columns + 1}


def head_agreement(per_head: dict[str, list[float]], colors: list[str]) -> go.Figure:
    """Bars: each head's agreement with the right alignment (last decoder layer), one group per run."""
    fig = go.Figure()
    for i, (label, values) in enumerate(per_head.items()):
        fig.add_trace(
            go.Bar(
                x=[f"head {h + 1}" for h in range(len(values))],
                y=[100 * v for v in values],
                name=label,
                marker_color=colors[i % len(colors)],
                hovertemplate=f"{label}<br>%{{x}}: %{{y:.0f}}%<extra></extra>",
            )
        )
    fig.update_layout(
        title="Each head alone: how often its largest weight is on the right English word (last layer)",
        yaxis={"title": "agreement (%)", "range": [0, 100]},
        barmode="group",
        height=340,
        legend={"orientation": "h", "y": -0.25},
        margin={"t": 60, "b": 10},
    )
    return fig


FOOTNOTE_PANELS = {
    "variance": "variance of the scores",
    "entropy": "softmax entropy (nats)",
    "max_weight": "largest weight",
    "gradient": "softmax gradient size",
}


def footnote4(rows: list[tuple[int, dict]], d_k: int, colors: list[str], columns: int = 4) -> go.Figure:
    """Unscaled against scaled scores over d_k: rows are (d_k, {'unscaled': stats, 'scaled': stats})
    with the fields of FOOTNOTE_PANELS; a dotted line marks the chosen d_k. The four panels stand in
    `columns` columns (`panel_grid`)."""
    fig, at = panel_grid(list(FOOTNOTE_PANELS.values()), columns)
    xs = [d for d, _ in rows]
    for i, kind in enumerate(("unscaled", "scaled")):
        label = "q·k" if kind == "unscaled" else "q·k / √d_k"
        for j, key in enumerate(FOOTNOTE_PANELS):
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=[getattr(r[kind], key) for _, r in rows],
                    mode="lines+markers",
                    name=label,
                    legendgroup=kind,
                    showlegend=j == 0,
                    line={"color": colors[i % len(colors)]},
                    hovertemplate=f"{label}<br>d_k %{{x}}<br>{FOOTNOTE_PANELS[key]}"
                    " %{y:.3f}<extra></extra>",
                ),
                **at(j),
            )
            # powers of ten only: Plotly's 2 and 5 between them ran into "100" and "1000"
            fig.update_xaxes(type="log", dtick=1, title_text="d_k", **at(j))
            fig.add_vline(x=d_k, line={"dash": "dot", "color": "#555555"}, **at(j))
    fig.update_yaxes(type="log", dtick=1, row=1, col=1)
    return fig


def softmax_rows(unscaled: list[float], scaled: list[float], d_k: int, colors: list[str]) -> go.Figure:
    """One random query's softmax weights over its keys, unscaled against scaled."""
    fig = go.Figure()
    keys = [f"key {m + 1}" for m in range(len(unscaled))]
    for i, (label, weights) in enumerate((("softmax(q·k)", unscaled), ("softmax(q·k / √d_k)", scaled))):
        fig.add_trace(
            go.Bar(
                x=keys,
                y=weights,
                name=label,
                marker_color=colors[i % len(colors)],
                hovertemplate=f"{label}<br>%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"One random query at d_k = {d_k}: its weights over {len(keys)} keys",
        yaxis={"title": "weight", "range": [0, 1]},
        barmode="group",
        height=300,
        legend={"orientation": "h", "y": -0.3},
        margin={"t": 50, "b": 10},
    )
    return fig
