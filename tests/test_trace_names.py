"""The hook names `transformer.trace` builds are exactly the names the model gives its hook points.

`layer_hook` and `attn_hook` are the one place outside the model that knows how a layer's hook points
are named (tests/test_house.py keeps it so); here they are checked against `Transformer.hook_names`,
the module paths `transformer.hooks.name_hook_points` assigns.
"""

from __future__ import annotations

import pytest
import torch

from transformer.trace import KINDS, STACKS, attn_hook, layer_hook, run_trace

# What each attention sub-layer records (§3.2.1, §3.2.2) and what each layer records around its
# sub-layers (§3.1: Add & Norm after each, the position-wise FFN of §3.3).
ATTENTION = ("q", "k", "v", "qk", "scores", "mask", "masked_scores", "pattern", "z", "concat", "out")
FFN = ("hidden", "out")
AROUND = {
    "encoder": ("resid_attn", "norm1", "resid_ffn", "norm2"),
    "decoder": ("resid_self", "norm1", "resid_cross", "norm2", "resid_ffn", "norm3"),
}
ATTENTIONS = [(stack, kind) for stack in STACKS for kind in KINDS if (stack, kind) != ("encoder", "cross")]


def built_names(n_layers: int) -> set[str]:
    """Every layer's hook names as the helpers build them."""
    names = set()
    for layer in range(n_layers):
        names |= {attn_hook(stack, kind, layer, what) for stack, kind in ATTENTIONS for what in ATTENTION}
        names |= {layer_hook(stack, layer, what, "ffn") for stack in STACKS for what in FFN}
        names |= {layer_hook(stack, layer, what) for stack in STACKS for what in AROUND[stack]}
    return names


def test_the_helpers_build_exactly_the_names_the_model_gives_a_layers_hook_points(tiny_model, tiny_config):
    registered = {name for name in tiny_model.hook_names if ".layers." in name}
    built = built_names(tiny_config.n_layers)
    assert len(built) == len(registered) > 0
    assert built == registered, (sorted(built - registered), sorted(registered - built))


def test_a_trace_reads_the_helpers_names(tiny_model, tiny_config):
    src, tgt = [5, 6, 7, 2], [1, 8, 9]
    trace = run_trace(tiny_model, src, tgt, [str(i) for i in src], [str(i) for i in tgt])
    last = tiny_config.n_layers - 1
    pattern = attn_hook("decoder", "cross", last, "pattern")
    assert trace.attn_name("decoder", "cross", last, "pattern") == pattern
    assert torch.equal(trace.attention("decoder", "cross", last), trace.get(pattern))
    assert torch.equal(trace.layer_output("encoder", last), trace.get(layer_hook("encoder", last, "norm2")))
    assert torch.equal(trace.layer_output("decoder", 0), trace.get(layer_hook("decoder", 0, "norm3")))
    assert layer_hook("encoder", 3, "hidden", "ffn") == "encoder.layers.3.ffn.hook_hidden"  # docs/HOOKS.md
    with pytest.raises(ValueError):
        trace.attn_name("encoder", "cross", 0, "pattern")
