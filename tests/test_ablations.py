"""The paper's choices taken away: the variants' recipes, the shipped variants, the page's statements
(computed from the shipped numbers) and footnote 4's numbers."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from charts import page_charts
from streamlit.testing.v1 import AppTest

from analysis.scaling import dot_products
from training import train as trainer
from training.numbers import ablations as recipe
from transformer.pretrained import load_pretrained
from ui import ablations

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "pretrained" / "ablations"
PAGE = str(ROOT / "pages" / "Why_these_choices.py")
# What each variant changes in `training.train`'s arguments (everything else equal to the base's).
CHANGES = {
    "no-scale": {"no_scale": True},
    "heads-1": {"n_heads": 1},
    "heads-2": {"n_heads": 2},
    "heads-4": {"n_heads": 4},
    "heads-16": {"n_heads": 16},
    "small-dk": {"key_size": 2},
    "no-positions": {"positions": "none"},
    "learned-positions": {"positions": "learned"},
    "no-residual": {"no_residual": True},
    "no-layernorm": {"norm": "none"},
    "pre-layernorm": {"norm": "pre"},
    "no-label-smoothing": {"smoothing": 0.0},
    "no-dropout": {"dropout": 0.0},
}


def parsed(name: str):
    return vars(trainer.parse_args(recipe.variant_args(name, Path("c"), Path("r"), 100, 1, 1)))


@pytest.mark.parametrize("name", list(CHANGES))
def test_each_variant_changes_one_thing(name):
    base, variant = parsed("base"), parsed(name)
    changed = {k: v for k, v in variant.items() if base[k] != v}
    assert changed == CHANGES[name]


def test_every_choice_names_known_variants():
    assert set(CHANGES) | {"base"} == set(recipe.VARIANTS)
    for choice in ablations.CHOICES.values():
        assert choice.variants and set(choice.variants) <= set(recipe.VARIANTS)
        assert len(choice.expect) == len(choice.variants)


def test_a_variant_trains_scores_and_ships(tmp_path):
    recipe.main(
        [
            "--only",
            "no-scale",
            "--seeds",
            "1",
            "--steps",
            "3",
            "--data-scale",
            "0.01",
            "--corpus",
            str(tmp_path / "corpus"),
            "--runs",
            str(tmp_path / "runs"),
            "--out",
            str(tmp_path / "out"),
            "--test-phrases",
            "8",
            "--align-phrases",
            "4",
        ]
    )
    folder = tmp_path / "out" / "no-scale"
    lm = load_pretrained(folder)
    assert lm.model.config.scale_scores is False
    scores = json.loads((folder / "scores.json").read_text())
    assert scores["steps"] == 3 and scores["seeds"] == [1]
    assert set(scores["per_seed"]["1"]["attention"]) >= {"0", "final"}
    assert [row[0] for row in scores["curve"]["valid_loss"]][-1] == 3
    assert ablations.read_scores(tmp_path / "out")[0]["no-scale"]["title"] == "no 1/√d_k scaling"


def test_at_least_ten_variants_ship_and_load():
    scores, problems = ablations.read_scores(SHIPPED)
    assert not problems and ablations.BASE in scores
    variants = set(scores) - {ablations.BASE}
    assert len(variants) >= 10, sorted(variants)
    base = load_pretrained(SHIPPED / "base").model.config
    training_only = {"no-label-smoothing"}  # the loss changes, not the model
    for name in variants:
        config = load_pretrained(SHIPPED / name).model.config
        assert (config == base) == (name in training_only), name
        assert (SHIPPED / name / "model.safetensors").stat().st_size < 1_000_000  # float16, small
        assert 0 <= scores[name]["exact_match"]["mean"] <= 100


def test_a_damaged_scores_file_is_reported_not_fatal(tmp_path):
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "scores.json").write_text('{"exact_match": {"mean": 1}, "alignment": {"mean": 2}}')
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "scores.json").write_text("{not json")
    scores, problems = ablations.read_scores(tmp_path)
    assert list(scores) == ["good"] and len(problems) == 1 and "bad" in problems[0]


def fake(mean: float, spread: float = 0.0, title: str = "a variant") -> dict:
    return {
        "title": title,
        "seeds": [1, 2, 3],
        "steps": 1000,
        "exact_match": {"mean": mean, "spread": spread},
        "alignment": {"mean": 90.0, "spread": 1.0},
    }


def test_the_verdict_follows_the_numbers():
    base = fake(99.0)
    worse = ablations.verdict(base, fake(80.0), "worse")
    assert "80.0%" in worse and "99.0%" in worse and "agrees with the paper" in worse
    same = ablations.verdict(base, fake(98.5), "worse")
    assert "within the noise" in same and "does not show" in same
    assert "agrees with the paper" in ablations.verdict(base, fake(98.5), "same")
    # the same variant with a wider spread between seeds: the difference is no longer beyond it
    assert ablations.outcome(base, fake(80.0))[0] == "worse"
    assert ablations.outcome(base, fake(80.0, spread=30.0))[0] == "same"
    assert "not what the paper reports" in ablations.verdict(base, fake(100.0 + 5), "worse")
    # the difference is that of the numbers shown: 99.3 against 99.5 is -0.2, not -0.1 (99.34 - 99.46)
    assert "(-0.2 points)" in ablations.verdict(fake(99.46), fake(99.34), "same")


def test_the_page_states_the_shipped_numbers():
    scores, _ = ablations.read_scores(SHIPPED)
    name = next(n for n in ("no-positions", *scores) if n in scores and n != ablations.BASE)
    key = next(k for k, c in ablations.CHOICES.items() if name in c.variants)
    text = ablations.verdict(scores[ablations.BASE], scores[name], "worse")
    assert f"{scores[name]['exact_match']['mean']:.1f}%" in text
    changed = copy.deepcopy(scores[name])
    changed["exact_match"]["mean"] = 12.3
    assert "12.3%" in ablations.verdict(scores[ablations.BASE], changed, "worse")
    assert key in ablations.CHOICES


def test_footnote_4_numbers():
    small, wide = dot_products(4), dot_products(256)
    assert abs(wide["unscaled"].variance / 256 - 1) < 0.1  # Var(q·k) = d_k
    assert abs(wide["scaled"].variance - 1) < 0.1 and abs(small["scaled"].variance - 1) < 0.15
    assert wide["unscaled"].entropy < 0.3 < 1.5 < wide["scaled"].entropy < math.log(10)
    assert wide["unscaled"].max_weight > 0.85 and wide["unscaled"].gradient < wide["scaled"].gradient / 2
    assert small["unscaled"].entropy > wide["unscaled"].entropy
    with pytest.raises(ValueError):
        dot_products(0)


def test_the_page_renders_every_variant():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    scores, _ = ablations.read_scores(SHIPPED)
    seen = 0
    for key, choice in ablations.CHOICES.items():
        at.selectbox(key="why_choice").set_value(key).run()
        shipped = [v for v in choice.variants if v in scores]
        for variant in shipped:
            if len(shipped) > 1:  # a choice with one variant shows it in a disabled box
                at.selectbox(key="why_variant").set_value(variant).run()
            assert at.selectbox(key="why_variant").value == variant
            assert not at.exception, (variant, [e.message for e in at.exception])
            text = " ".join(m.value for m in at.markdown)
            assert f"{scores[variant]['exact_match']['mean']:.1f}%" in text, variant
            assert len(page_charts(at)) >= 4, variant
            seen += 1
    assert seen >= 10
    at.text_input(key="why_phrase").set_value("<script>alert(1)</script> 🙂").run()
    assert not at.exception and any("outside the numbers grammar" in w.value for w in at.warning)


def test_the_learning_speed_is_judged_where_the_base_is_half_way():
    base, slow = fake(99.0), fake(99.0)
    base["learning"] = {"300": {"mean": 20.0, "spread": 2.0}, "600": {"mean": 95.0, "spread": 1.0}}
    slow["learning"] = {"300": {"mean": 2.0, "spread": 1.0}, "600": {"mean": 60.0, "spread": 3.0}}
    assert ablations.learning_outcome(base, slow) == ("600", "worse", 95.0, 60.0)
    text = ablations.verdict(base, slow, "worse")
    assert "after 600 steps it had 60.0% right against 95.0% (noise between seeds: ±3.0)" in text
    assert "how fast" in text
    assert ablations.learning_outcome(fake(99.0), slow) is None  # no curve for the base: no claim
