"""A compact, paper-faithful, traceable Transformer (Vaswani et al., 2017)."""

from transformer.config import TransformerConfig

__all__ = ["Transformer", "TransformerConfig"]


def __getattr__(name: str):
    # The model needs PyTorch, which takes ~1.5 s to import on a cold server: it is imported when first
    # asked for, so that light modules (the config) load without it and a page can draw before it.
    if name == "Transformer":
        from transformer.model import Transformer

        return Transformer
    raise AttributeError(f"module 'transformer' has no attribute {name!r}")
