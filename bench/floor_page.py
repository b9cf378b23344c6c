"""The stack's floor: a bare Streamlit page with Layer and Head sliders and the step-by-step page's six
figures (Q K V, QKᵀ, scaled, mask, softmax, Z), drawing precomputed arrays, no model. A slider step
here costs what any page that reruns its script and redraws these figures costs (bench/switch.py).

Shapes from the environment: FLOOR_SHAPE="T_q,T_k,d_k,layers,heads" (default 15,15,16,6,8).
"""

import os

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

t_q, t_k, d_k, n_layers, n_heads = map(int, os.environ.get("FLOOR_SHAPE", "15,15,16,6,8").split(","))


@st.cache_resource
def arrays() -> dict:
    g = np.random.default_rng(0)
    shape = (n_layers, n_heads)
    return {name: g.standard_normal((*shape, *size)).astype(np.float32) for name, size in
            dict(q=(t_q, d_k), k=(t_k, d_k), v=(t_k, d_k), qk=(t_q, t_k), z=(t_q, d_k)).items()}


st.title("Floor")
layer = st.slider("Layer", 0, n_layers - 1, key="floor_layer")
head = st.slider("Head", 0, n_heads - 1, key="floor_head")
a = {name: values[layer, head] for name, values in arrays().items()}
qkv = make_subplots(rows=1, cols=3, subplot_titles=("Q", "K", "V"))
for i, name in enumerate("qkv"):
    qkv.add_trace(go.Heatmap(z=a[name], colorscale="RdBu_r"), row=1, col=i + 1)
scaled = a["qk"] / np.sqrt(d_k)
pattern = np.exp(scaled - scaled.max(axis=1, keepdims=True))
pattern /= pattern.sum(axis=1, keepdims=True)
figures = {"qkv": qkv, "qk": go.Figure(go.Heatmap(z=a["qk"], colorscale="RdBu_r")),
           "scores": go.Figure(go.Heatmap(z=scaled, colorscale="RdBu_r")),
           "mask": go.Figure(go.Heatmap(z=np.zeros((t_q, t_k)), showscale=False)),
           "pattern": go.Figure(go.Heatmap(z=pattern, colorscale="Blues", zmin=0, zmax=1)),
           "z": go.Figure(go.Heatmap(z=a["z"], colorscale="RdBu_r"))}
for name, fig in figures.items():
    fig.update_layout(title=f"{name} · L{layer} H{head}", height=420)
    st.plotly_chart(fig, key=f"floor_{name}")
