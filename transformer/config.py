"""Model configuration: the hyper-parameters of "Attention Is All You Need", §3 and Table 3.

The defaults are the paper's base model (d_model=512, h=8, d_ff=2048, N=6, dropout 0.1). The shipped
model keeps N=6 and h=8 and only shrinks d_model/d_ff, so the app can show "layer 5 of 6" with 8 heads
exactly as in the paper's figures.

A few options exist only so that checkpoints of the same architecture trained elsewhere (Marian's
OPUS-MT models, `transformer.import_marian`) load without a second model class. Each is a departure
from the paper, marked `DEVIATION`, and defaults to the paper's choice.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

ACTIVATIONS = ("relu", "silu")
PE_LAYOUTS = ("interleaved", "half_split")
POSITIONS = ("sinusoidal", "learned", "none")
NORMS = ("post", "pre", "none")


def _is_id(value: object, vocab_size: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < vocab_size


@dataclass(frozen=True)
class TransformerConfig:
    """Hyper-parameters of the encoder-decoder. Frozen: one config per set of weights."""

    vocab_size: int = 37000  # joint source/target vocabulary (paper: ~37k BPE tokens for EN-DE)
    d_model: int = 512
    n_heads: int = 8
    d_ff: int = 2048
    n_layers: int = 6  # N, for the encoder and the decoder alike
    dropout: float = 0.1  # P_drop
    max_len: int = 256  # longest sequence the positional-encoding table covers
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int | None = 2  # None: the vocabulary has no <s> (Marian's); then decoder_start_id is set
    eos_id: int = 3
    # DEVIATION: Marian's FFN uses "silu" (swish, x·σ(x)); the paper's is max(0, ·), "relu".
    activation: str = "relu"
    # DEVIATION: Marian puts the sines in dimensions 0..D/2-1 and the cosines of the same angles in
    # D/2..D-1 ("half_split"); the paper interleaves them, sin on even and cos on odd ("interleaved").
    pe_layout: str = "interleaved"
    # DEVIATION: Marian adds a learned bias per word to the output logits (final_logits_bias); the
    # paper's pre-softmax projection is the transposed embedding matrix alone.
    logits_bias: bool = False
    # DEVIATION: Marian's decoder starts from the padding token; ours (None) from <s>, bos_id.
    decoder_start_id: int | None = None
    # Ablation switches: the paper's choices by default; the "Why these choices?" variants each change
    # one (Table 3 rows A/B/D/E, §3.2.1 footnote 4, §3.5, §5.4).
    scale_scores: bool = True  # divide Q Kᵀ by √d_k (§3.2.1)
    key_size: int | None = None  # width of a head's queries and keys; None: d_model / h (Table 3 B)
    positions: str = "sinusoidal"  # "learned" (Table 3 E) or "none" (no position signal at all)
    residual: bool = True  # x + Sublayer(x) around every sub-layer (§3.1)
    norm: str = "post"  # LayerNorm(x + Sublayer(x)); "pre": x + Sublayer(LayerNorm(x)); or "none"

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_heads", "d_ff", "n_layers", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"config.{name} must be a positive integer, got {value!r}")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model={self.d_model} must be divisible by n_heads={self.n_heads} (d_k = d_model / h)"
            )
        if self.d_model % 2:
            raise ValueError(f"d_model={self.d_model} must be even (sin/cos pairs in the encoding)")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"config.dropout must be in [0, 1), got {self.dropout!r}")
        special = [i for i in (self.pad_id, self.unk_id, self.bos_id, self.eos_id) if i is not None]
        if len(set(special)) != len(special) or not all(_is_id(i, self.vocab_size) for i in special):
            raise ValueError(f"special ids {special} must be distinct and inside the vocabulary")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"config.activation must be one of {ACTIVATIONS}, got {self.activation!r}")
        if self.pe_layout not in PE_LAYOUTS:
            raise ValueError(f"config.pe_layout must be one of {PE_LAYOUTS}, got {self.pe_layout!r}")
        if not isinstance(self.logits_bias, bool):
            raise ValueError(f"config.logits_bias must be true or false, got {self.logits_bias!r}")
        if self.positions not in POSITIONS:
            raise ValueError(f"config.positions must be one of {POSITIONS}, got {self.positions!r}")
        if self.norm not in NORMS:
            raise ValueError(f"config.norm must be one of {NORMS}, got {self.norm!r}")
        for name in ("scale_scores", "residual"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"config.{name} must be true or false, got {getattr(self, name)!r}")
        key = self.key_size
        if key is not None and (not isinstance(key, int) or isinstance(key, bool) or key < 1):
            raise ValueError(f"config.key_size must be a positive integer or null, got {key!r}")
        if self.decoder_start_id is None and self.bos_id is None:
            raise ValueError("config.bos_id is null, so config.decoder_start_id must name the start token")
        if self.decoder_start_id is not None and not _is_id(self.decoder_start_id, self.vocab_size):
            raise ValueError(f"config.decoder_start_id {self.decoder_start_id!r} is not in the vocabulary")

    @property
    def start_id(self) -> int:
        """The token the decoder's input starts with: <s> (bos_id), or `decoder_start_id` when set."""
        return self.bos_id if self.decoder_start_id is None else self.decoder_start_id

    @property
    def d_k(self) -> int:
        """Width of one head's queries, keys and values (d_k = d_v = d_model / h)."""
        return self.d_model // self.n_heads

    @property
    def d_qk(self) -> int:
        """Width of one head's queries and keys: d_k, unless an ablation sets `key_size`."""
        return self.key_size or self.d_k

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> TransformerConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown config keys: {sorted(unknown)}")
        return cls(**values)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> TransformerConfig:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
