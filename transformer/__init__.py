"""A compact, paper-faithful, traceable Transformer (Vaswani et al., 2017)."""

from transformer.config import TransformerConfig
from transformer.model import Transformer

__all__ = ["Transformer", "TransformerConfig"]
