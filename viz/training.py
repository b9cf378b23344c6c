"""A training run's curves: the loss at every step and the exact match at each evaluation (§5)."""

from __future__ import annotations

import plotly.graph_objects as go


def loss_curve(
    losses,
    evals,
    floor: float | None = None,
    colors: list[str] | None = None,
    max_steps: int | None = None,
) -> go.Figure:
    """Loss per step (left axis) and exact match per evaluation (right axis, 0–100%).

    Args:
        losses: the training loss after each update, step 1 first.
        evals: (step, exact match in [0, 1], ...) rows; anything after the first two is ignored.
        floor: the lowest loss the label smoothing allows, drawn as a dotted line (None: not drawn).
        colors: two colours, loss then exact match (default: Plotly's first two).
        max_steps: the run's step cap; the x axis starts that wide when nothing has run yet.
    """
    colors = list(colors or ["#1f77b4", "#ff7f0e"])
    loss_color, match_color = colors[0], colors[1 % len(colors)]
    steps = list(range(1, len(losses) + 1))
    data = [
        go.Scatter(
            x=steps, y=list(losses), mode="lines", name="training loss", line=dict(color=loss_color),
            hovertemplate="step %{x}<br>loss %{y:.3f}<extra></extra>",
        ),
        go.Scatter(
            x=[row[0] for row in evals], y=[100 * row[1] for row in evals], mode="lines+markers",
            name="exact match (fresh sequences)", yaxis="y2", line=dict(color=match_color, dash="dot"),
            hovertemplate="step %{x}<br>exact match %{y:.1f}%<extra></extra>",
        ),
    ]  # fmt: skip
    shapes, annotations = [], []
    if floor is not None:
        shapes.append(dict(type="line", xref="paper", x0=0, x1=1, yref="y", y0=floor, y1=floor,
                           line=dict(color="#777777", dash="dot", width=1)))
        annotations.append(dict(xref="paper", x=0.01, yref="y", y=floor, yanchor="bottom", showarrow=False,
                                text=f"lowest possible loss ≈ {floor:.2f}",
                                font=dict(size=11, color="#555555")))
    if not losses:
        annotations.append(dict(xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False,
                                text="No steps yet: press Train", font=dict(size=14, color="#555555")))
    xaxis = dict(title=dict(text="step (one update on a batch of 64 sequences)"), rangemode="tozero")
    if not losses and max_steps:
        xaxis["range"] = [0, max_steps]
    top = max([*losses, 3.0]) * 1.05
    return go.Figure(
        data=data,
        layout=dict(
            title=dict(text="Training loss and exact match"),
            xaxis=xaxis,
            yaxis=dict(title=dict(text="loss (label-smoothed cross-entropy)"), range=[0, top]),
            yaxis2=dict(title=dict(text="exact match (%)"), overlaying="y", side="right", range=[0, 105],
                        dtick=20, showgrid=False),
            legend=dict(orientation="h", y=-0.25),
            margin=dict(l=10, r=10, t=50, b=10),
            shapes=shapes,
            annotations=annotations,
            height=360,
        ),
    )
