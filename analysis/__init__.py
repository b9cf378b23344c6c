"""Computations behind the app's explanations: pure torch, read from traces or run on the model."""
