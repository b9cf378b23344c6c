"""The machine reference every bench prints beside its times, so that two machines can be compared:
seconds for 2000 matmuls of 256 × 256 float32 on one thread (best of three)."""

from __future__ import annotations

import time


def machine_reference(n: int = 2000, size: int = 256) -> float:
    """Seconds for `n` matmuls of size × size float32 on one thread (best of 3)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    a, b = torch.randn(size, size), torch.randn(size, size)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            a @ b
        best = min(best, time.perf_counter() - start)
    torch.set_num_threads(before)
    return best


LINE = "machine reference (2000 matmuls 256 × 256 float32, 1 thread)"
