"""The model, decoding, trace and training step on the device named by `--device`, each compared with
the same computation on the CPU.

CI runs this file with the default `--device cpu`: the comparisons are then trivial, but the tests
themselves run, and results must land where the app expects them (a Trace on the CPU, logits on the
model's device). On a machine with a GPU, `make test-cuda` runs it with `--device cuda`
(`--device-model DIR` picks another model folder; all five passed on an H200 with the shipped one).
TF32 is switched off so the GPU computes in full float32 like the CPU. The other test files build
their own tensors on the CPU and ignore the switch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tasks.step import make_optimizer, train_step
from transformer import Transformer, TransformerConfig
from transformer.decoding import beam_translate, greedy_translate
from transformer.inputs import encode_source
from transformer.pretrained import load_pretrained
from transformer.trace import run_trace

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = [
    "The animal didn't cross the street because it was too tired.",
    "Where is the train station?",
    "Open the file and save the changes.",
]


@pytest.fixture(scope="module", autouse=True)
def full_float32():
    """No TF32 matrix products on the GPU while these run: the CPU reference is plain float32."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


@pytest.fixture(scope="module")
def pair(device, request):
    """A shipped model (`--device-model`) twice: on the CPU (the reference) and on the device under test."""
    folder = ROOT / request.config.getoption("--device-model")
    return load_pretrained(folder), load_pretrained(folder, device)


@pytest.fixture(scope="module")
def sources(pair):
    tokenizer = pair[0].tokenizer
    return [encode_source(tokenizer, s) for s in SENTENCES]


def test_the_model_lives_on_the_device_and_computes_what_the_cpu_does(pair, sources, device):
    cpu, dev = pair
    assert {p.device.type for p in dev.model.parameters()} == {device.type}
    assert dev.model.device.type == device.type
    src = torch.tensor([sources[0].ids])  # (1, S)
    tgt = torch.tensor([[cpu.tokenizer.bos_id, *sources[0].ids[:3]]])  # (1, 4): any decoder input
    with torch.no_grad():
        expected = cpu.model(src, tgt)  # (1, 4, V)
        got = dev.model(src.to(device), tgt.to(device))
    assert got.device.type == device.type
    torch.testing.assert_close(got.cpu(), expected, atol=1e-4, rtol=1e-4)


def test_greedy_and_beam_translations_match_the_cpu(pair, sources):
    cpu, dev = pair
    ids = [s.ids for s in sources]
    for decode in (greedy_translate, lambda m, x: beam_translate(m, x, beam_size=4, alpha=0.6)):
        want, got = decode(cpu.model, ids), decode(dev.model, ids)
        assert [h.ids for h in got] == [h.ids for h in want]
        assert all(h.ids for h in got), "the shipped model translates each sentence to something"
        for g, w in zip(got, want, strict=True):
            assert g.score == pytest.approx(w.score, abs=1e-3)


def test_a_trace_taken_on_the_device_is_a_cpu_trace_with_the_same_numbers(pair, sources):
    cpu, dev = pair
    src = sources[0]
    tgt_ids = [cpu.tokenizer.bos_id, *src.ids[:4]]
    tgt_pieces = [cpu.tokenizer.id_to_piece(i) for i in tgt_ids]
    want = run_trace(cpu.model, src.ids, tgt_ids, src.pieces, tgt_pieces)
    got = run_trace(dev.model, src.ids, tgt_ids, src.pieces, tgt_pieces)
    assert got.names() == want.names()
    assert any(name.endswith("cross_attn.hook_pattern") for name in got.names())
    for name in want.names():
        assert got.tensors[name].is_cpu, f"{name} must come back to the CPU for the pages"
        torch.testing.assert_close(got.tensors[name], want.tensors[name], atol=1e-4, rtol=1e-4)


TINY = TransformerConfig(vocab_size=40, d_model=16, n_heads=2, d_ff=32, n_layers=2, dropout=0.0)


def tiny_weights() -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    return Transformer(TINY).state_dict()


def tiny_step(device: torch.device, amp: bool):
    """One training step of the seeded tiny model on a fixed batch: (loss, weights after the step,
    the step's gradients)."""
    model = Transformer(TINY)
    model.load_state_dict(tiny_weights())
    model.to(device).train()
    g = torch.Generator().manual_seed(2)
    src = torch.randint(4, TINY.vocab_size, (3, 9), generator=g)  # (B, S)
    tgt = torch.randint(4, TINY.vocab_size, (3, 7), generator=g)  # (B, T)
    tgt[:, 0] = TINY.bos_id
    src[2, 6:] = TINY.pad_id
    tgt[1, 5:] = TINY.pad_id
    optimizer = make_optimizer(model)
    loss = train_step(model, optimizer, src.to(device), tgt.to(device), 1e-3, TINY.pad_id, 0.1, amp)
    weights = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    grads = {k: p.grad.detach().cpu().clone() for k, p in model.named_parameters() if p.grad is not None}
    return loss.item(), weights, grads


def test_a_training_step_on_the_device_matches_the_cpu(device):
    want_loss, want, want_grads = tiny_step(torch.device("cpu"), amp=False)
    loss, got, got_grads = tiny_step(device, amp=False)
    assert loss == pytest.approx(want_loss, abs=1e-4)
    before = tiny_weights()
    assert any(not torch.equal(want[k], before[k]) for k in want), "the step must change the weights"
    assert want_grads.keys() == got_grads.keys()
    for k in want_grads:
        torch.testing.assert_close(got_grads[k], want_grads[k], atol=1e-5, rtol=1e-3)
        # Adam's first step moves a weight by about lr · sign(gradient) (m / √v with eps 1e-9): where
        # the gradient is rounding noise its sign, and so the update, differs between devices.
        clear = want_grads[k].abs() > 1e-6
        torch.testing.assert_close(got[k][clear], want[k][clear], atol=1e-4, rtol=1e-3)


def test_bf16_autocast_gives_nearly_the_float32_loss(device):
    """`--amp bf16` (the full-width model trains with it on a GPU): the same step in bf16
    lands within bf16's rounding of the float32 loss."""
    want_loss, _, _ = tiny_step(torch.device("cpu"), amp=False)
    loss, weights, _ = tiny_step(device, amp=True)
    assert loss == pytest.approx(want_loss, abs=0.05)
    assert all(torch.isfinite(w).all() for w in weights.values())
