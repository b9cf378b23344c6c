"""training.pack_corpus: the corpus sent to a lent GPU unpacks to the same pairs, repeats included."""

from __future__ import annotations

import collections

from training.pack_corpus import OPTIONAL, SPLITS, pack, unpack


def _pairs(folder, split):
    en = (folder / f"{split}.en").read_text(encoding="utf-8").splitlines()
    de = (folder / f"{split}.de").read_text(encoding="utf-8").splitlines()
    return collections.Counter(zip(en, de, strict=True))


def test_unpacking_gives_the_same_pairs_with_their_repeats(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    train = [
        ("The cat.", "Die Katze."),
        ("A dog.", "Ein Hund."),
        ("The cat.", "Die Katze."),
        ("Ä ß €", "Ä ß €"),
    ]
    train += [("The cat.", "Die Katze!")]  # same English, other German: a pair of its own
    for split in SPLITS:
        rows = train if split == "train" else [(f"{split} one", f"{split} eins")]
        (corpus / f"{split}.en").write_text("".join(e + "\n" for e, _ in rows), encoding="utf-8")
        (corpus / f"{split}.de").write_text("".join(d + "\n" for _, d in rows), encoding="utf-8")
    pack(corpus, tmp_path / "c.tar.xz")
    unpack(tmp_path / "c.tar.xz", tmp_path / "back")
    assert _pairs(tmp_path / "back", "train") == collections.Counter(train)
    assert _pairs(tmp_path / "back", "train")[("The cat.", "Die Katze.")] == 2
    for split in SPLITS:
        assert _pairs(tmp_path / "back", split) == _pairs(corpus, split)
    assert not (tmp_path / "back" / f"{OPTIONAL[0]}.en").exists()  # not in the corpus: not packed
    # an optional split the corpus has travels too
    (corpus / f"{OPTIONAL[0]}.en").write_text("A long one.\n", encoding="utf-8")
    (corpus / f"{OPTIONAL[0]}.de").write_text("Ein langer.\n", encoding="utf-8")
    pack(corpus, tmp_path / "d.tar.xz")
    unpack(tmp_path / "d.tar.xz", tmp_path / "again")
    assert _pairs(tmp_path / "again", OPTIONAL[0]) == collections.Counter([("A long one.", "Ein langer.")])
