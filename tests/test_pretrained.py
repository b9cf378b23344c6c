"""Weights I/O: exact round trips, the tied matrix stored once, and one clear error for every bad file."""

from __future__ import annotations

import ast
import io
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from transformer import Transformer, TransformerConfig
from transformer.pretrained import (
    CONFIG_FILE,
    DECODING_FILE,
    TIED_ALIASES,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    Decoding,
    PretrainedError,
    load_decoding,
    load_pretrained,
    save_model,
)

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_SPM = ROOT / "pretrained" / "spm.model"
FIX = "git checkout -- pretrained/"


@pytest.fixture
def spm_vocab() -> int:
    from transformer.tokenizer import Tokenizer

    return Tokenizer.load(SHIPPED_SPM).vocab_size


@pytest.fixture
def config(spm_vocab) -> TransformerConfig:
    # Tiny sizes, but the shipped tokenizer's vocabulary so that a full directory loads.
    return TransformerConfig(vocab_size=spm_vocab, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=64)


@pytest.fixture
def saved(tmp_path, config) -> tuple[Transformer, Path]:
    torch.manual_seed(0)
    model = Transformer(config).eval()
    directory = tmp_path / "model"
    save_model(model, directory, SHIPPED_SPM)
    return model, directory


def assert_clear_error(err: pytest.ExceptionInfo, path: Path) -> None:
    message = str(err.value)
    assert str(path) in message, message
    assert FIX in message, message
    assert err.value.path == path


def test_round_trip_gives_identical_logits(saved):
    model, directory = saved
    loaded = load_pretrained(directory)
    src = torch.tensor([[5, 9, 14, 3], [7, 8, 3, 0]])
    tgt = torch.tensor([[2, 11, 12], [2, 6, 0]])
    with torch.no_grad():
        assert torch.equal(model(src, tgt), loaded.model(src, tgt))
    assert not loaded.model.training
    assert loaded.model.config == model.config
    assert loaded.tokenizer.vocab_size == model.config.vocab_size


def test_half_precision_files_are_half_the_size_and_load_to_float32(saved, tmp_path):
    """The shipped model's files are float16 (`--export --half`): half the bytes, loaded into float32
    parameters, and the logits of the rounded weights match those of the original to float16 precision."""
    model, directory = saved
    save_model(model, tmp_path / "half", SHIPPED_SPM, half=True)
    full, half = directory / "model.safetensors", tmp_path / "half" / "model.safetensors"
    assert {v.dtype for v in load_file(str(half)).values()} == {torch.float16}
    assert half.stat().st_size < 0.55 * full.stat().st_size
    loaded = load_pretrained(tmp_path / "half").model
    assert {p.dtype for p in loaded.parameters()} == {torch.float32}
    src, tgt = torch.tensor([[5, 9, 14, 3]]), torch.tensor([[2, 11, 12]])
    with torch.no_grad():
        torch.testing.assert_close(loaded(src, tgt), model(src, tgt), atol=2e-2, rtol=0)


def test_model_id_follows_the_weights(saved):
    model, directory = saved
    first = load_pretrained(directory).model_id
    with torch.no_grad():
        model.encoder.layers[0].ffn.w_1.bias.add_(1.0)
    save_model(model, directory)
    assert load_pretrained(directory).model_id != first


def test_tied_weight_is_stored_once_and_still_tied_after_load(saved):
    model, directory = saved
    stored = load_file(str(directory / WEIGHTS_FILE))
    assert "src_embed.lut.weight" in stored
    assert not set(TIED_ALIASES) & set(stored)
    loaded = load_pretrained(directory).model
    shared = loaded.src_embed.lut.weight
    assert loaded.tgt_embed.lut.weight is shared and loaded.generator.weight is shared
    assert torch.equal(shared, model.src_embed.lut.weight)


@pytest.mark.parametrize("name", [CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_FILE])
def test_missing_file_names_it_and_the_fix(saved, name):
    _, directory = saved
    (directory / name).unlink()
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, directory / name)


@pytest.mark.parametrize("name", [WEIGHTS_FILE, TOKENIZER_FILE])
def test_truncated_file_names_it_and_the_fix(saved, name):
    _, directory = saved
    path = directory / name
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, path)


@pytest.mark.parametrize("name", [CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_FILE])
@pytest.mark.parametrize("seed", [0, 1])
def test_random_bytes_name_the_file_and_the_fix(saved, name, seed):
    _, directory = saved
    path = directory / name
    g = torch.Generator().manual_seed(seed)
    path.write_bytes(bytes(torch.randint(0, 256, (4096,), generator=g, dtype=torch.uint8).tolist()))
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, path)


def test_empty_weights_file(saved):
    _, directory = saved
    (directory / WEIGHTS_FILE).write_bytes(b"")
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, directory / WEIGHTS_FILE)


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"d_ff": 64}, "shape"),  # same names, other shapes
        ({"n_layers": 3}, "missing"),  # layers the file does not have
        ({"n_layers": 1}, "unexpected"),  # layers the model does not have
    ],
)
def test_weights_that_do_not_fit_the_config(saved, change, expected):
    model, directory = saved
    values = {**model.config.to_dict(), **change}
    (directory / CONFIG_FILE).write_text(json.dumps(values), encoding="utf-8")
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, directory / WEIGHTS_FILE)
    assert expected in str(err.value)


def test_tokenizer_that_does_not_fit_the_config(saved, spm_vocab):
    model, directory = saved
    values = {**model.config.to_dict(), "vocab_size": spm_vocab + 8}
    (directory / CONFIG_FILE).write_text(json.dumps(values), encoding="utf-8")
    state = load_file(str(directory / WEIGHTS_FILE))
    state["src_embed.lut.weight"] = torch.zeros(spm_vocab + 8, model.config.d_model)
    save_file(state, str(directory / WEIGHTS_FILE))
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, directory / TOKENIZER_FILE)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused(saved, bad):
    _, directory = saved
    state = load_file(str(directory / WEIGHTS_FILE))
    state["decoder.layers.1.ffn.w_2.weight"][0, 0] = bad
    save_file(state, str(directory / WEIGHTS_FILE))
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, directory / WEIGHTS_FILE)
    assert "decoder.layers.1.ffn.w_2.weight" in str(err.value)


def _python_files() -> list[Path]:
    skip = {".venv", "data", "runs", ".git", "node_modules", "__pycache__"}
    return [
        p
        for p in ROOT.rglob("*.py")
        if not skip & set(p.relative_to(ROOT).parts[:-1]) and not p.name.startswith(".")
    ]


def _unsafe_loads(path: Path) -> list[str]:
    """Calls that could unpickle: torch.load without weights_only=True, pickle.load/Unpickler."""
    problems = []
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("pickle", "_pickle", "dill", "cloudpickle"):
            if {a.name for a in node.names} & {"load", "Unpickler"}:
                problems.append(f"{path}:{node.lineno} imports an unpickler")
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
        if owner == "torch" and node.func.attr == "load":
            safe = any(
                k.arg == "weights_only" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords
            )
            if not safe:
                problems.append(f"{path}:{node.lineno} torch.load without weights_only=True")
        if owner in ("pickle", "_pickle", "dill", "cloudpickle") and node.func.attr in ("load", "Unpickler"):
            problems.append(f"{path}:{node.lineno} {owner}.{node.func.attr}")
        if owner in ("np", "numpy") and node.func.attr == "load":
            if any(k.arg == "allow_pickle" for k in node.keywords):
                problems.append(f"{path}:{node.lineno} numpy.load with allow_pickle")
    return problems


def test_the_unsafe_load_check_catches_what_it_should(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import torch, pickle\nfrom pickle import load\n"
        "torch.load('x')\ntorch.load('x', weights_only=False)\npickle.load(open('x', 'rb'))\n"
        "torch.load('x', weights_only=True)\n",
        encoding="utf-8",
    )
    assert len(_unsafe_loads(bad)) == 4


def test_nothing_in_the_repository_unpickles():
    files = _python_files()
    assert any(p.name == "train.py" for p in files)  # the walk really covers the code base
    problems = [problem for p in files for problem in _unsafe_loads(p)]
    assert not problems, "\n".join(problems)


# ---- decoding.json: the beam size and α chosen for a model on its dev set ---------------------


def test_without_decoding_json_the_paper_settings_apply(saved):
    _, directory = saved
    assert not (directory / DECODING_FILE).exists()
    d = load_pretrained(directory).decoding
    assert (d.beam_size, d.alpha) == (4, 0.6)  # §6.1
    assert load_decoding(directory) == Decoding()


def test_decoding_json_reaches_the_loaded_model(saved):
    _, directory = saved
    (directory / DECODING_FILE).write_text(
        json.dumps({"beam_size": 5, "alpha": 1.25, "chosen_on": "valid"}), encoding="utf-8"
    )
    d = load_pretrained(directory).decoding
    assert (d.beam_size, d.alpha, d.chosen_on) == (5, 1.25, "valid")


CORRUPT_JSON = [
    *((CONFIG_FILE, text) for text in (
        "{not json",
        "",
        "[1, 2, 3]",
        json.dumps({"d_model": 16, "n_heads": 3}),  # d_model not divisible by h
        json.dumps({"d_model": 16, "colour": "blue"}),  # unknown key
        json.dumps({"d_model": "16"}),  # wrong type
    )),
    *((DECODING_FILE, text) for text in (
        "{not json",
        "",
        "[4, 0.6]",
        "NaN",
        json.dumps({"beam_size": 0}),
        json.dumps({"beam_size": 4.5}),
        json.dumps({"beam_size": True}),
        json.dumps({"alpha": -1}),
        json.dumps({"alpha": "1.0"}),
        json.dumps({"alpha": 1e9}),
        '{"alpha": NaN}',
        json.dumps({"alpha": 1.0, "beam": 4}),  # unknown key
        json.dumps({"chosen_on": ["valid"]}),
    )),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text"), CORRUPT_JSON)
def test_corrupt_json_file_names_it_and_the_fix(saved, name, text):
    _, directory = saved
    (directory / name).write_text(text, encoding="utf-8")
    with pytest.raises(PretrainedError) as err:
        load_pretrained(directory)
    assert_clear_error(err, directory / name)


def test_the_command_line_tools_default_to_the_models_decoding(saved, monkeypatch):
    """translate and evaluate search with the directory's beam size and α unless told otherwise."""
    from training import evaluate
    from transformer import translate

    _, directory = saved
    (directory / DECODING_FILE).write_text(json.dumps({"beam_size": 3, "alpha": 1.5}), encoding="utf-8")
    seen = []
    real = translate.beam_translate
    monkeypatch.setattr(
        translate, "beam_translate", lambda m, ids, b, a, *x: seen.append((b, a)) or real(m, ids, b, a, *x)
    )
    out, err = io.StringIO(), io.StringIO()
    for extra in ([], ["--alpha", "0.2"]):
        assert translate.main(["--model", str(directory), *extra], io.StringIO("A house.\n"), out, err) == 0
    assert seen == [(3, 1.5), (3, 0.2)]

    corpus = directory.parent / "corpus"
    corpus.mkdir()
    (corpus / "tiny.en").write_text("A house.\n", encoding="utf-8")
    (corpus / "tiny.de").write_text("Ein Haus.\n", encoding="utf-8")
    args = ["--model", str(directory), "--corpus", str(corpus), "--split", "tiny", "--health", "0"]
    result = evaluate.main(args)
    assert (result["beam"]["beam_size"], result["beam"]["alpha"]) == (3, 1.5)
