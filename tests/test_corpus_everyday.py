"""The everyday source (Tatoeba): the committed file, its held-out splits and the mixed corpus."""

from __future__ import annotations

import json

import pytest

from corpus import mix, table, tatoeba
from corpus.build import weighted
from corpus.text import side_key


def _keys(pairs):
    return {"en:" + side_key(en) for en, _ in pairs} | {"de:" + side_key(de) for _, de in pairs}


@pytest.fixture(scope="module")
def everyday():
    return tatoeba.load()


def test_the_committed_file_loads_with_its_attribution_beside_it(everyday):
    assert len(everyday) > 150_000
    assert ("Hi.", "Hallo!") in everyday
    assert all(en and de and "\t" not in en + de for en, de in everyday[:1000])
    readme = (tatoeba.FILE.parent / "README.md").read_text(encoding="utf-8")
    assert tatoeba.ATTRIBUTION in readme and "CC-BY 2.0" in readme


def test_held_out_splits_are_deterministic_disjoint_and_about_1000(everyday):
    train, valid, test, held = tatoeba.hold_out(everyday)
    again = tatoeba.hold_out(list(reversed(everyday)))
    assert (valid, test) == (again[1], again[2])  # file order does not matter
    assert 1000 <= len(test) <= 1100 and 1000 <= len(valid) <= 1100
    assert not _keys(train) & _keys(valid + test)  # no English or German sentence on both sides
    assert not {side_key(en) for en, _ in valid} & {side_key(en) for en, _ in test}
    assert _keys(valid + test) <= held
    assert len(train) + len(valid) + len(test) <= len(everyday)


def _write(prefix, pairs):
    mix.write_pairs(prefix, pairs)


def test_mix_keeps_every_held_out_sentence_out_of_training(tmp_path):
    debian = tmp_path / "debian"
    (debian / "sources").mkdir(parents=True)
    everyday = [(f"Sentence number {i}.", f"Satz Nummer {i}.") for i in range(3000)]
    everyday += [("I am hungry.", "Ich habe Hunger."), ("Ding test sentence.", "Ding-Testsatz.")]
    held_everyday = tatoeba.hold_out(everyday)[3]
    leaked = next(k[3:] for k in sorted(held_everyday) if k.startswith("en:"))
    leaked_pair = next(p for p in everyday if side_key(p[0]) == leaked)
    _write(debian / "sources" / "ding", [leaked_pair, ("The dog sleeps.", "Der Hund schläft.")])
    _write(debian / "sources" / "ui", [("Open the file now.", "Öffne jetzt die Datei.")])
    _write(debian / "test", [("Ding test sentence.", "Ding-Testsatz.")])
    for split in ("valid", "valid-story", "test-story", "valid-tech", "test-tech"):
        _write(debian / split, [(f"{split} only.", f"nur {split}.")])
    _write(debian / "lexicon", [leaked_pair, ("dog", "Hund")])
    (debian / "stats.json").write_text("{}", encoding="utf-8")

    stats = mix.mix(debian, tmp_path / "out", {"tatoeba": 3, "ding": 2}, everyday=everyday)
    out = tmp_path / "out"
    train = mix.read_pairs(out / "train")
    held = _keys(mix.read_pairs(out / "valid-everyday") + mix.read_pairs(out / "test-everyday"))
    assert not _keys(train) & held
    assert not _keys(mix.read_pairs(out / "lexicon")) & held
    assert ("dog", "Hund") in mix.read_pairs(out / "lexicon")
    assert ("Ding test sentence.", "Ding-Testsatz.") not in train  # Debian's test set
    assert train.count(("The dog sleeps.", "Der Hund schläft.")) == 2  # ding weight 2
    ui_pair = ("Open the file now.", "Öffne jetzt die Datei.")
    ui_weight = next(s.weight for s in table.SOURCES if s.name == "ui")  # no override: the table's
    assert train.count(ui_pair) == len(weighted([ui_pair], ui_weight))
    n_tatoeba = stats["mixture"]["unique_pairs"]["tatoeba"]
    assert stats["mixture"]["train_lines"]["tatoeba"] == 3 * n_tatoeba
    assert json.loads((out / "stats.json").read_text(encoding="utf-8"))["splits"]["train"] == len(train)
    assert mix.read_pairs(out / "test") == [("Ding test sentence.", "Ding-Testsatz.")]
    mix.mix(debian, tmp_path / "again", {"tatoeba": 3, "ding": 2}, everyday=everyday)
    assert (tmp_path / "again" / "train.de").read_bytes() == (out / "train.de").read_bytes()


def test_mix_names_unknown_sources_and_bad_weights(tmp_path):
    with pytest.raises(SystemExit, match="NAME=W"):
        mix.parse_weights(["tatoeba"])
    with pytest.raises(SystemExit, match="at least 0"):
        mix.parse_weights(["tatoeba=-1"])
    with pytest.raises(FileNotFoundError, match="per-source"):
        mix.mix(tmp_path, tmp_path / "out", {})
