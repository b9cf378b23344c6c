"""Named capture points for every intermediate of the model.

A `HookPoint` is an identity module with a dotted name (e.g. `encoder.layers.4.self_attn.hook_pattern`).
It does nothing unless a `HookSession` is active in the current context. The session lives in a
`contextvars.ContextVar`, not on the module: the model is one object shared by every browser session
and thread, so per-request state must never be attached to it. Each thread (and each asyncio task)
sees its own session.

A session can record tensors (name -> detached CPU copy) and can edit them on the way through (used
to switch heads off without touching the shared weights).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

import torch
from torch import nn

Edit = Callable[[torch.Tensor], torch.Tensor]


@dataclass
class HookSession:
    """What the hook points do in one context: record into `store` and/or apply `edits`."""

    store: dict[str, torch.Tensor] | None = None
    edits: dict[str, Edit] = field(default_factory=dict)

    def visit(self, name: str, x: torch.Tensor, copy: bool = False) -> torch.Tensor:
        if self.edits and name in self.edits:
            x = self.edits[name](x)
        if self.store is not None:
            # The model never writes into a tensor it produced: keep it as it is. `copy` hook points see
            # the model's own state (the PE buffer): copied, so no trace shares memory with the model.
            kept = x.detach() if x.requires_grad else x
            if not kept.is_cpu:
                kept = kept.cpu()  # a copy already
            elif copy:
                kept = kept.clone()
            self.store[name] = kept
        return x


_session: ContextVar[HookSession | None] = ContextVar("transformer_hook_session", default=None)


def active() -> bool:
    """True when some hook session is recording or editing in this context."""
    return _session.get() is not None


class HookPoint(nn.Module):
    """Identity module that reports its input to the active hook session, if any.

    `copy=True` for a hook point whose input is a view of the model's own weights or buffers.
    """

    def __init__(self, copy: bool = False) -> None:
        super().__init__()
        self.name = ""  # filled in by `name_hook_points` once the model is built
        self.copy = copy

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        session = _session.get()
        return x if session is None else session.visit(self.name, x, self.copy)

    # A forward pass calls ~300 hook points. Calling `forward` directly skips nn.Module's dispatch
    # (PyTorch's own module hooks, which a HookPoint never uses): about 2 µs per call.
    __call__ = forward


def name_hook_points(model: nn.Module) -> list[str]:
    """Give every HookPoint its dotted module path as name; return the names in forward order."""
    names = []
    for path, module in model.named_modules():
        if isinstance(module, HookPoint):
            module.name = path
            names.append(path)
    return names


@contextlib.contextmanager
def record(edits: dict[str, Edit] | None = None) -> Iterator[dict[str, torch.Tensor]]:
    """Record every hook point reached inside the block; yields the name -> tensor dict."""
    store: dict[str, torch.Tensor] = {}
    token = _session.set(HookSession(store=store, edits=dict(edits or {})))
    try:
        yield store
    finally:
        _session.reset(token)


@contextlib.contextmanager
def intervene(edits: dict[str, Edit]) -> Iterator[None]:
    """Apply `edits` (hook name -> function) inside the block without recording anything."""
    token = _session.set(HookSession(store=None, edits=dict(edits)))
    try:
        yield
    finally:
        _session.reset(token)
