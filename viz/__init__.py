"""Pure Plotly figures: arrays and labels in, `plotly.graph_objects.Figure` out. No Streamlit, no model."""
