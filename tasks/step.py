"""One update of the paper's training (§5): Adam with warm-up (§5.3), label smoothing (§5.4).

    lrate = d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5)          (§5.3)

The translation runs (`training.train`) and the toy tasks the app trains live (`tasks.toy`) take
the same steps.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def noam_lr(step: int, d_model: int, warmup: int, scale: float = 1.0) -> float:
    """The paper's learning rate at `step` (1-based), times `scale`."""
    step = max(step, 1)
    return scale * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def make_optimizer(model: torch.nn.Module) -> torch.optim.Adam:
    # lr is set by hand every step from noam_lr; the 1.0 here is never used.
    return torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)


def loss_fn(logits: torch.Tensor, gold: torch.Tensor, pad_id: int, smoothing: float) -> torch.Tensor:
    """Label-smoothed cross-entropy (§5.4, ε_ls = 0.1), averaged over non-pad target tokens."""
    return F.cross_entropy(
        logits.float().flatten(0, 1), gold.flatten(), ignore_index=pad_id, label_smoothing=smoothing
    )


def train_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    src: torch.Tensor,
    tgt: torch.Tensor,
    lr: float,
    pad_id: int,
    smoothing: float,
    amp: bool = False,
) -> torch.Tensor:
    """One update on a batch: src (B, S), tgt (B, T) = BOS ... EOS. Returns the (detached) loss.

    The decoder reads tgt[:, :-1] and is scored on predicting tgt[:, 1:] (teacher forcing).
    """
    for group in optimizer.param_groups:
        group["lr"] = lr
    with torch.autocast(src.device.type, dtype=torch.bfloat16, enabled=amp):
        logits = model(src, tgt[:, :-1])  # (B, T-1, V): predict each next token
    loss = loss_fn(logits, tgt[:, 1:], pad_id, smoothing)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach()
