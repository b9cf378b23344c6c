"""Small hand-checkable examples, computed by the same code the model uses (paper §3.2, §3.1, §4).

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V                          §3.2.1, Eq. (1)
    LayerNorm(x)       = (x − mean(x)) / √(var(x) + ε)   (before its learned gain and bias)

Why divide by √d_k (§3.2.1, footnote 4): if the entries of q and k are independent with mean 0 and
variance 1, then q·k = Σ_i q_i k_i is a sum of d_k terms of variance 1, so it has variance d_k. Large
dot products push the softmax into saturation (nearly all weight on one key, gradients near 0).
Dividing by √d_k brings the variance back to 1, whatever d_k is.

Table 1 of the paper compares layer types by the work per layer, the operations that must happen
one after another, and the longest path a signal travels between two positions.

Shapes: n query positions, m key positions, K = d_k, V = d_v, T tokens, D = d_model, H heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from transformer import hooks
from transformer.attention import MultiHeadAttention, scaled_dot_product_attention

SEED_Q = [[1.0, 0.0], [0.0, 1.0]]
SEED_K = [[1.0, 0.0], [0.0, 1.0]]
SEED_V = [[2.0, 3.0], [4.0, 5.0]]
SEED_LAYERNORM = [3.0, 5.0, 2.0, 8.0]
MAX_SIZE = 8  # rows or columns of an editable matrix


def parse_matrix(text: str, max_size: int = MAX_SIZE) -> torch.Tensor:
    """A matrix from text: one row per line, numbers separated by spaces or commas.

    Raises ValueError with a message that names the problem (never echoes the text).
    """
    rows = [line.replace(",", " ").replace(";", " ").split() for line in str(text).strip().splitlines()]
    rows = [row for row in rows if row]
    if not rows:
        raise ValueError("the matrix is empty")
    if len(rows) > max_size or any(len(row) > max_size for row in rows):
        raise ValueError(f"keep it small: at most {max_size} rows and {max_size} columns")
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        raise ValueError("every row needs the same number of entries")
    try:
        values = [[float(x) for x in row] for row in rows]
    except ValueError:
        raise ValueError("only numbers are allowed (e.g. 1, -0.5, 2e3)") from None
    matrix = torch.tensor(values, dtype=torch.float64)
    if not torch.isfinite(matrix).all():
        raise ValueError("only finite numbers are allowed")
    return matrix


def parse_vector(text: str, max_size: int = 32) -> torch.Tensor:
    """A vector from text: numbers separated by spaces or commas (on one line or several)."""
    return parse_matrix(" ".join(str(text).split()), max_size=max_size).flatten()


def format_matrix(matrix) -> str:
    """The inverse of parse_matrix, for pre-filling an editor."""
    return "\n".join(" ".join(f"{float(x):g}" for x in row) for row in torch.as_tensor(matrix).tolist())


@dataclass(frozen=True)
class AttentionSteps:
    """Every intermediate of scaled dot-product attention on small matrices."""

    q: torch.Tensor  # (n, K)
    k: torch.Tensor  # (m, K)
    v: torch.Tensor  # (m, V)
    qk: torch.Tensor  # (n, m) raw Q Kᵀ
    scaled: torch.Tensor  # (n, m) ÷ √d_k
    weights: torch.Tensor  # (n, m) softmax over each row
    output: torch.Tensor  # (n, V) weights · V

    @property
    def d_k(self) -> int:
        return self.q.size(-1)


def attention_steps(q, k, v) -> AttentionSteps:
    """Run softmax(Q Kᵀ / √d_k) V step by step; the output comes from the model's own function."""
    q, k, v = (torch.as_tensor(x, dtype=torch.float64) for x in (q, k, v))
    if q.dim() != 2 or k.dim() != 2 or v.dim() != 2:
        raise ValueError("Q, K and V must be matrices")
    if q.size(1) != k.size(1):
        raise ValueError(f"Q and K need the same number of columns (d_k): {q.size(1)} vs {k.size(1)}")
    if k.size(0) != v.size(0):
        raise ValueError(f"K and V need the same number of rows (one per key): {k.size(0)} vs {v.size(0)}")
    qk = q @ k.T  # (n, m)
    scaled = qk / math.sqrt(q.size(1))  # (n, m)
    output, weights = scaled_dot_product_attention(q, k, v)  # (n, V), (n, m)
    return AttentionSteps(q, k, v, qk, scaled, weights, output)


def softmax(x, scale: float = 1.0) -> torch.Tensor:
    """softmax(x / scale) of a vector."""
    return (torch.as_tensor(x, dtype=torch.float64) / scale).softmax(-1)


@dataclass(frozen=True)
class Saturation:
    """How dot products grow with d_k, and what that does to the softmax, with and without scaling."""

    d_k: list[int]
    variance: list[float]  # measured variance of q·k (theory: d_k)
    max_weight_raw: list[float]  # mean largest softmax weight of q·k over `n_keys` keys
    max_weight_scaled: list[float]  # the same after ÷ √d_k


def saturation(d_ks=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512), n_keys: int = 10, samples: int = 2000,
               seed: int = 0) -> Saturation:
    """Measure, on random unit-variance vectors, the variance of q·k and the softmax's peak weight."""
    g = torch.Generator().manual_seed(seed)
    variance, raw, scaled = [], [], []
    for d_k in d_ks:
        q = torch.randn(samples, 1, d_k, generator=g, dtype=torch.float64)  # (samples, 1, K)
        k = torch.randn(samples, n_keys, d_k, generator=g, dtype=torch.float64)  # (samples, keys, K)
        dots = (q * k).sum(-1)  # (samples, keys)
        variance.append(float(dots.var()))
        raw.append(float(dots.softmax(-1).amax(-1).mean()))
        scaled.append(float((dots / math.sqrt(d_k)).softmax(-1).amax(-1).mean()))
    return Saturation(list(d_ks), variance, raw, scaled)


@dataclass(frozen=True)
class LayerNormSteps:
    x: torch.Tensor
    mean: float
    variance: float  # the biased variance (÷ n), as LayerNorm uses
    std: float
    normalised: torch.Tensor


def layer_norm(x, eps: float = 1e-5) -> LayerNormSteps:
    """LayerNorm of one vector without the learned gain and bias (the model's F.layer_norm)."""
    x = torch.as_tensor(x, dtype=torch.float64).flatten()
    if x.numel() < 2:
        raise ValueError("LayerNorm needs at least two numbers")
    mean = float(x.mean())
    variance = float(x.var(unbiased=False))
    normalised = F.layer_norm(x, x.shape, eps=eps)
    return LayerNormSteps(x, mean, variance, math.sqrt(variance), normalised)


def multihead_shapes(tokens: int = 5, d_model: int = 16, n_heads: int = 4,
                     seed: int = 0) -> list[tuple[str, tuple]]:
    """The shapes one multi-head attention goes through, recorded from the model's own module.

    Returns (step, shape without the batch dimension) in the order they are computed.
    """
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} must be divisible by h={n_heads}")
    torch.manual_seed(seed)
    mha = MultiHeadAttention(d_model, n_heads).eval()
    hooks.name_hook_points(mha)  # a stand-alone module: its hook points are named "hook_q", ...
    x = torch.randn(1, tokens, d_model)  # (1, T, D)
    with torch.no_grad(), hooks.record() as store:
        mha(x, x, None)
    steps = [("input X", (tokens, d_model))]
    steps += [(label, tuple(store[name].shape[1:])) for label, name in MHA_STEPS]
    return steps


MHA_STEPS = [
    ("Q = X·W^Q + b^Q, split into h heads", "hook_q"),
    ("K = X·W^K + b^K, split into h heads", "hook_k"),
    ("V = X·W^V + b^V, split into h heads", "hook_v"),
    ("scores Q·Kᵀ/√d_k, one matrix per head", "hook_scores"),
    ("softmax weights per head", "hook_pattern"),
    ("head outputs: weights·V", "hook_z"),
    ("Concat(head_1, …, head_h)", "hook_concat"),
    ("output: Concat·W^O + b^O", "hook_out"),
]


@dataclass(frozen=True)
class LayerType:
    """One row of the paper's Table 1."""

    name: str
    complexity: str  # work per layer
    sequential: str  # operations that cannot run in parallel
    path_length: str  # longest path between any two positions


TABLE_1 = [
    LayerType("Self-attention", "O(n²·d)", "O(1)", "O(1)"),
    LayerType("Recurrent", "O(n·d²)", "O(n)", "O(n)"),
    LayerType("Convolutional", "O(k·n·d²)", "O(1)", "O(log_k(n))"),
    LayerType("Self-attention (restricted)", "O(r·n·d)", "O(1)", "O(n/r)"),
]


def cost(layer: str, n, d: int, k: int = 3, r: int = 16) -> torch.Tensor:
    """Work per layer of Table 1 without the O(): n is sequence length (a number or a tensor)."""
    n = torch.as_tensor(n, dtype=torch.float64)
    formulas = {
        "Self-attention": lambda: n**2 * d,
        "Recurrent": lambda: n * d**2,
        "Convolutional": lambda: k * n * d**2,
        "Self-attention (restricted)": lambda: r * n * d,
    }
    if layer not in formulas:
        raise ValueError(f"unknown layer type {layer!r}; one of {list(formulas)}")
    return formulas[layer]()


def path_length(layer: str, n, k: int = 3, r: int = 16) -> torch.Tensor:
    """Maximum path length of Table 1 without the O()."""
    n = torch.as_tensor(n, dtype=torch.float64)
    formulas = {
        "Self-attention": lambda: torch.ones_like(n),
        "Recurrent": lambda: n,
        "Convolutional": lambda: (n.log() / math.log(k)).clamp_min(1.0),
        "Self-attention (restricted)": lambda: (n / r).clamp_min(1.0),
    }
    if layer not in formulas:
        raise ValueError(f"unknown layer type {layer!r}; one of {list(formulas)}")
    return formulas[layer]()


def sequence_lengths(low: float = 1.0, high: float = 1e4, steps: int = 200) -> torch.Tensor:
    """Sequence lengths n spread evenly on a log scale, for plotting Table 1's costs against n."""
    return torch.logspace(math.log10(low), math.log10(high), steps)
