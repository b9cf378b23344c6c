"""The only layer that joins Streamlit to the model: loaders, shared state, render helpers."""
