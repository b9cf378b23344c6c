"""A `Trace`: everything one forward pass computed, by name, for the views to read.

The app never touches the model directly to draw a figure: it asks for a Trace (source pieces,
target pieces, name -> CPU tensor, the config) and reads from it. A Trace holds only plain data, so it
can be pickled and cached.

Hook names follow the module paths (`encoder.layers.4.self_attn.hook_pattern`, built by `layer_hook` and
`attn_hook` only). Layers and heads are 0-based here; the app shows them 1-based unless asked otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from transformer import hooks
from transformer.config import TransformerConfig
from transformer.model import Transformer

STACKS = ("encoder", "decoder")
KINDS = ("self", "cross")


def layer_hook(stack: str, layer: int, what: str, part: str = "") -> str:
    """`hook_{what}` of one layer, in its sub-layer `part` (self_attn, cross_attn, ffn) or the layer."""
    return f"{stack}.layers.{layer}.{part}{'.' if part else ''}hook_{what}"


def attn_hook(stack: str, kind: str, layer: int, what: str) -> str:
    """Name of one attention quantity (§3.2), e.g. ('decoder', 'cross', 5, 'pattern')."""
    return layer_hook(stack, layer, what, f"{kind}_attn")


@dataclass
class Trace:
    """Recorded intermediates of one sentence pair (batch of one)."""

    src_pieces: list[str]
    tgt_pieces: list[str]  # the decoder input: BOS, then the translation so far
    tensors: dict[str, torch.Tensor]
    config: TransformerConfig
    src_ids: list[int] = field(default_factory=list)
    tgt_ids: list[int] = field(default_factory=list)

    def names(self) -> list[str]:
        return list(self.tensors)

    def only(self, endings: tuple[str, ...]) -> Trace:
        """A slimmer Trace with only the hook points whose names end with one of `endings`."""
        kept = {name: t for name, t in self.tensors.items() if name.endswith(endings)}
        return Trace(self.src_pieces, self.tgt_pieces, kept, self.config, self.src_ids, self.tgt_ids)

    def get(self, name: str) -> torch.Tensor:
        """One recorded tensor with the batch dimension removed."""
        if name not in self.tensors:
            raise KeyError(f"nothing recorded under {name!r}; see Trace.names()")
        return self.tensors[name][0]

    def attn_name(self, stack: str, kind: str, layer: int, what: str) -> str:
        """Hook name of one attention quantity, e.g. ('decoder', 'cross', 5, 'pattern')."""
        if stack not in STACKS or kind not in KINDS or (stack, kind) == ("encoder", "cross"):
            raise ValueError(f"no {kind}-attention in the {stack}")
        if not 0 <= layer < self.config.n_layers:
            raise ValueError(f"layer {layer} out of range 0..{self.config.n_layers - 1}")
        return attn_hook(stack, kind, layer, what)

    def attention(self, stack: str, kind: str, layer: int) -> torch.Tensor:
        """Softmax weights of one attention sub-layer: (H, T_q, T_k); rows are queries."""
        return self.get(self.attn_name(stack, kind, layer, "pattern"))

    def query_pieces(self, stack: str) -> list[str]:
        return self.src_pieces if stack == "encoder" else self.tgt_pieces

    def key_pieces(self, stack: str, kind: str) -> list[str]:
        return self.src_pieces if stack == "encoder" or kind == "cross" else self.tgt_pieces

    def layer_output(self, stack: str, layer: int) -> torch.Tensor:
        """The output of one layer, (T, D): its last LayerNorm."""
        last = "norm2" if stack == "encoder" else "norm3"
        return self.get(layer_hook(stack, layer, last))


@torch.no_grad()
def run_trace(
    model: Transformer,
    src_ids: list[int],
    tgt_ids: list[int],
    src_pieces: list[str],
    tgt_pieces: list[str],
    edits: dict[str, hooks.Edit] | None = None,
) -> Trace:
    """Run the model once on (source, decoder input) and record every hook point.

    `tgt_ids` is the decoder input (it should start with BOS); `edits` may change intermediates on
    the way (e.g. zero a head) for this call only.
    """
    if len(src_ids) != len(src_pieces) or len(tgt_ids) != len(tgt_pieces):
        raise ValueError("ids and pieces must have the same length")
    if model.training:
        raise RuntimeError("trace an eval-mode model: dropout would make the numbers random")
    src = torch.tensor([src_ids], device=model.device)  # (1, S)
    tgt = torch.tensor([tgt_ids], device=model.device)  # (1, T)
    with hooks.record(edits) as store:
        model(src, tgt)
    return Trace(list(src_pieces), list(tgt_pieces), dict(store), model.config, list(src_ids), list(tgt_ids))
