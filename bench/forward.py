"""Forward-pass benchmark: our Transformer against `torch.nn.Transformer` with the same weights,
and what tracing (recording every named intermediate) costs.

    python bench/forward.py [--config pretrained/config.json] [--min-time 1.0] [--device cpu]

The reference is PyTorch's own post-norm encoder-decoder (`norm_first=False`, ReLU, no final
LayerNorm on either stack, as in the paper and in our model) with our embedding, positional
encoding and tied output projection around it, so both compute the same logits; the script checks
that before timing. Weights are random (the shipped config's sizes), input is one 40-token source
and a 40-token target prefix, at batch 1 (the app) and batch 32 (training-like). Figures are
medians of repeated, interleaved runs after warm-up. Targets: ours / nn.Transformer
≤ 1.0, traced / untraced ≤ 1.3.

Shapes: B batch, S source positions, T target positions, D = d_model, V vocabulary.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from transformer import Transformer, TransformerConfig, hooks  # noqa: E402

TOKENS = 40


class TorchReference(nn.Module):
    """`nn.Transformer` wrapped in our embeddings, PE and tied output projection."""

    def __init__(self, ours: Transformer) -> None:
        super().__init__()
        cfg = ours.config
        self.config = cfg
        enc_layer = nn.TransformerEncoderLayer(
            cfg.d_model, cfg.n_heads, cfg.d_ff, dropout=0.0, batch_first=True, norm_first=False
        )
        dec_layer = nn.TransformerDecoderLayer(
            cfg.d_model, cfg.n_heads, cfg.d_ff, dropout=0.0, batch_first=True, norm_first=False
        )
        # norm=None: the paper's stacks end in each layer's own LayerNorm, with no extra final one.
        self.transformer = nn.Transformer(
            cfg.d_model,
            cfg.n_heads,
            custom_encoder=nn.TransformerEncoder(
                enc_layer, cfg.n_layers, norm=None, enable_nested_tensor=False
            ),
            custom_decoder=nn.TransformerDecoder(dec_layer, cfg.n_layers, norm=None),
            batch_first=True,
        )
        self.lut = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.register_buffer("pe", ours.src_pos_enc.pe.clone(), persistent=False)  # (max_len, D)
        self._copy(ours)

    @torch.no_grad()
    def _copy(self, ours: Transformer) -> None:
        self.lut.weight.copy_(ours.src_embed.lut.weight)
        for theirs, mine in zip(self.transformer.encoder.layers, ours.encoder.layers, strict=True):
            _copy_attention(theirs.self_attn, mine.self_attn)
            _copy_block(theirs, mine, ("norm1", "norm2"))
        for theirs, mine in zip(self.transformer.decoder.layers, ours.decoder.layers, strict=True):
            _copy_attention(theirs.self_attn, mine.self_attn)
            _copy_attention(theirs.multihead_attn, mine.cross_attn)
            _copy_block(theirs, mine, ("norm1", "norm2", "norm3"))

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.lut(ids) * math.sqrt(self.config.d_model) + self.pe[: ids.size(1)]  # (B, T, D)

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        pad = self.config.pad_id
        # PyTorch's masks mean "blocked" (True = may not attend): the opposite of ours.
        src_blocked = src == pad  # (B, S)
        causal = nn.Transformer.generate_square_subsequent_mask(
            tgt.size(1), dtype=torch.bool, device=tgt.device
        )
        out = self.transformer(
            self.embed(src),
            self.embed(tgt),
            tgt_mask=causal,
            src_key_padding_mask=src_blocked,
            tgt_key_padding_mask=tgt == pad,
            memory_key_padding_mask=src_blocked,
            tgt_is_causal=True,
        )  # (B, T, D)
        return out @ self.lut.weight.t()  # (B, T, V)


def _copy_attention(theirs: nn.MultiheadAttention, mine) -> None:
    theirs.in_proj_weight.copy_(torch.cat([mine.w_q.weight, mine.w_k.weight, mine.w_v.weight]))
    theirs.in_proj_bias.copy_(torch.cat([mine.w_q.bias, mine.w_k.bias, mine.w_v.bias]))
    theirs.out_proj.weight.copy_(mine.w_o.weight)
    theirs.out_proj.bias.copy_(mine.w_o.bias)


def _copy_block(theirs: nn.Module, mine: nn.Module, norms: tuple[str, ...]) -> None:
    theirs.linear1.load_state_dict(mine.ffn.w_1.state_dict())
    theirs.linear2.load_state_dict(mine.ffn.w_2.state_dict())
    for name in norms:
        getattr(theirs, name).load_state_dict(getattr(mine, name).state_dict())


def medians_ms(fns: dict[str, object], min_time: float) -> dict[str, float]:
    """Median wall time of one call of each function, in ms. Calls are interleaved (a, b, c, a, b,
    c, ...) so that a change in machine load during the run hits every function alike."""
    for fn in fns.values():  # warm-up: allocator, kernels, caches
        for _ in range(3):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    start = time.perf_counter()
    while time.perf_counter() - start < min_time * len(fns) or min(map(len, samples.values())) < 10:
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - t0)
    return {name: statistics.median(times) * 1e3 for name, times in samples.items()}


def traced(model: Transformer, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    with hooks.record():
        return model(src, tgt)


@torch.no_grad()
def measure(ours: Transformer, reference: TorchReference, src, tgt, min_time: float) -> str:
    """Check that the three computations agree, then time them; returns one table row."""
    mine, theirs, seen = ours(src, tgt), reference(src, tgt), traced(ours, src, tgt)  # (B, T, V)
    diff = (mine - theirs).abs().max().item()
    assert torch.allclose(mine, theirs, atol=1e-4, rtol=1e-4), f"outputs differ by {diff:.2e}"
    assert torch.allclose(mine, seen, atol=1e-5, rtol=1e-5), "tracing changed the logits"
    t = medians_ms(
        {
            "ours": lambda: ours(src, tgt),
            "reference": lambda: reference(src, tgt),
            "traced": lambda: traced(ours, src, tgt),
        },
        min_time,
    )
    print(f"batch {src.size(0)}: max |ours - nn.Transformer| = {diff:.1e}", file=sys.stderr)
    return (
        f"{src.size(0):>5} {t['ours']:>9.2f} {t['reference']:>18.2f} {t['ours'] / t['reference']:>6.2f} "
        f"{t['traced']:>10.2f} {t['traced'] / t['ours']:>6.2f}"
    )


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description="Forward-pass timings: ours vs nn.Transformer, traced vs not.")
    p.add_argument("--config", default="pretrained/config.json")
    p.add_argument("--min-time", type=float, default=1.0, help="seconds of timed runs per figure")
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch's default)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)

    config = TransformerConfig.load(args.config)
    torch.manual_seed(0)
    ours = Transformer(config).to(device).eval()
    reference = TorchReference(ours).to(device).eval()
    g = torch.Generator().manual_seed(0)
    src1 = torch.randint(4, config.vocab_size, (1, TOKENS), generator=g)  # (1, S)
    src1[0, -1] = config.eos_id
    tgt1 = torch.randint(4, config.vocab_size, (1, TOKENS), generator=g)  # (1, T)
    tgt1[0, 0] = config.bos_id

    print(
        f"config {args.config}: N={config.n_layers}, h={config.n_heads}, d_model={config.d_model}, "
        f"d_ff={config.d_ff}, V={config.vocab_size}; {TOKENS}-token source and target; "
        f"device {device}, {torch.get_num_threads()} threads, torch {torch.__version__}"
    )
    header = (
        f"{'batch':>5} {'ours ms':>9} {'nn.Transformer ms':>18} {'ratio':>6} {'traced ms':>10} {'ratio':>6}"
    )
    rows = [header, "-" * len(header)]
    for batch in (1, 32):
        src, tgt = src1.expand(batch, -1).to(device), tgt1.expand(batch, -1).to(device)
        rows.append(measure(ours, reference, src, tgt, args.min_time))
    print("\n".join(rows))
    print("ratio 1 = ours / nn.Transformer (target <= 1.0); ratio 2 = traced / untraced (target <= 1.3)")


if __name__ == "__main__":
    main()
