"""Pure figures: arrays and labels in, `plotly.graph_objects.Figure` out (the home page's Figure 1: a
Vega-Lite spec, see viz.architecture). No Streamlit, no model."""
