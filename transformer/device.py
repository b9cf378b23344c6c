"""The one device choice: CUDA when present, else CPU (overridable by name)."""

from __future__ import annotations

import torch


def select_device(name: str = "auto") -> torch.device:
    """'auto' picks CUDA if available; 'cpu' or 'cuda' force one (CUDA falls back if absent)."""
    if name not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {name!r}")
    if name in ("auto", "cuda") and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")
