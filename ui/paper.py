"""What the paper's Figures 3-5 show, against what the loaded model shows, in measured numbers.

Every claim the paper figures page makes about our model is computed here, from the model the
session has loaded: the strongest link from a query word to a key word in the layer on screen and
anywhere in the encoder (`analysis.decoding.rank_heads`), and whether a head that links
"it" to "animal" moves to "street" when the sentence makes the street the referent. Nothing is
claimed that these numbers do not show (`SHOWN` is the bar).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.decoding import HeadScore, find_word, rank_heads, words
from transformer.trace import Trace
from ui import model as model_io
from ui.state import Selection

SHOWN = 0.5  # a link "is there" when a head gives the key word at least half of the query's attention
TIRED = "The animal didn't cross the street because it was too tired."
WIDE = "The animal didn't cross the street because it was too wide."


@dataclass(frozen=True)
class Link:
    """How strongly the encoder links one query word to some key words: in one layer, and anywhere."""

    query: str
    keys: str
    layer: int  # 0-based: the layer on screen
    in_layer: HeadScore  # the strongest head of that layer
    anywhere: HeadScore  # the strongest head of the encoder
    found: bool  # both words are in the sentence


def positions(trace: Trace, texts: tuple[str, ...]) -> tuple[int, ...]:
    """The piece positions of the first word matching each of `texts` (words not found are skipped)."""
    found = [find_word(trace.src_pieces, text) for text in texts]
    return tuple(i for word in found if word is not None for i in word.positions)


def link(trace: Trace, query: str, keys: tuple[str, ...], layer: int) -> Link:
    """The strongest query -> keys weights of the encoder self-attention (keys' pieces summed)."""
    q, k = positions(trace, (query,)), positions(trace, keys)
    found = bool(q and k)
    if not found:  # e.g. the reader's own sentence has no "its": measure the first two words
        first = words(trace.src_pieces)
        q, k = first[0].positions, first[min(1, len(first) - 1)].positions
    ranking = rank_heads(trace, q, k)
    in_layer = next(s for s in ranking if s.layer == layer)
    return Link(query, " ".join(keys), layer, in_layer, ranking[0], found=found)


# The two links of the paper's Figure 4, from "its": to the noun it refers to, and to the noun it belongs to.
FIGURE4 = (
    ("Law", "two heads of layer 5 give almost all of *its*'s attention to *Law*."),
    ("application", "the same heads also give *its* a sharp weight on *application*."),
)


def next_word(trace: Trace, query: str, key: str) -> bool:
    """Whether `key` is the word right after `query` (a head that looks one word ahead links them too)."""
    q, k = find_word(trace.src_pieces, query), find_word(trace.src_pieces, key)
    return bool(q and k and k.positions[0] == q.positions[-1] + 1)


def figure4_verdicts(trace: Trace, sel: Selection, layer: int) -> list[str]:
    """The verdict on each of Figure 4's links (one, if the sentence lacks them: the fallback once)."""
    said = []
    for key, paper in FIGURE4:
        found = link(trace, "its", (key,), layer)
        text = verdict(found, sel, paper)
        if found.found and next_word(trace, "its", key):
            text += (f" *{key}* is the word right after *its*: a head that looks at the next word gives it "
                     "this weight too, so a high weight here measures position, not reference.")
        said.append(text)
        if not found.found:
            break
    return said


def default_position(pieces: list[str], word: str, fallback: int = 0) -> int:
    """The first piece of `word` in `pieces`, else `fallback` (within the sentence)."""
    found = find_word(pieces, word)
    return found.positions[0] if found else min(fallback, len(pieces) - 1)


def _where(sel: Selection, score: HeadScore) -> str:
    return f"layer {sel.show_layer(score.layer)}, head {sel.show_head(score.head)}"


def verdict(found: Link, sel: Selection, paper: str) -> str:
    """'The paper: … This model: …' with the measured weights, in plain words (Markdown, our own text).

    `paper`: what the paper's figure shows, in a sentence. The model's side says "shows it" only
    where some head gives the key words at least `SHOWN` of the query's attention.
    """
    pair = f"*{found.query}* → *{found.keys}*"
    if not found.found:
        return (f"**The paper:** {paper} **This model:** your sentence has no *{found.query}* and "
                f"*{found.keys}*, so there is no link of the paper's to measure in it: the figures draw "
                "the query token you pick.")
    layer = (f"in layer {sel.show_layer(found.layer)} the strongest head ({_where(sel, found.in_layer)}) "
             f"gives {pair} a weight of {found.in_layer.weight:.2f}")
    best = found.anywhere
    if best.weight >= SHOWN:
        model = (f"{layer}; the strongest head anywhere in the encoder, {_where(sel, best)}, gives "
                 f"{best.weight:.2f}, so this model does show the link there.")
    else:
        model = (f"{layer}, and no head anywhere gives more than {best.weight:.2f} ({_where(sel, best)}): "
                 f"this model does not show the link the paper's figure shows.")
    return f"**The paper:** {paper} **This model:** {model[0].upper()}{model[1:]}"


@dataclass(frozen=True)
class Pronoun:
    """The head that links "it" to "animal" most in the "tired" sentence, measured in both sentences."""

    head: HeadScore  # layer, head and its it -> animal weight in the "tired" sentence
    animal: tuple[float, float]  # it -> animal: (tired, wide)
    street: tuple[float, float]  # it -> street: (tired, wide)

    @property
    def resolves(self) -> bool:
        """The head moves from the animal (tired) to the street (wide), as reading the sentence does."""
        return self.animal[0] > self.street[0] and self.street[1] > self.animal[1]


def pronoun(model_id: str) -> Pronoun | None:
    """Measure the "it" head on the two animal sentences (None when a word is missing, e.g. another
    model's vocabulary splits them oddly)."""
    traces = [model_io.trace(model_id, text, target_ids=()) for text in (TIRED, WIDE)]
    it, animal, street = (tuple(positions(t, (w,)) for t in traces) for w in ("it", "animal", "street"))
    if not all(it) or not all(animal) or not all(street):
        return None
    best = rank_heads(traces[0], it[0], animal[0])[0]

    def weight(i: int, key: tuple[int, ...]) -> float:
        row = traces[i].attention("encoder", "self", best.layer)[best.head]  # (S, S)
        return float(row[list(it[i])][:, list(key)].sum(-1).mean())

    return Pronoun(best, (weight(0, animal[0]), weight(1, animal[1])),
                   (weight(0, street[0]), weight(1, street[1])))


def pronoun_text(found: Pronoun, sel: Selection) -> str:
    """The pronoun check in words: the head, its four weights, and whether it resolves *it*."""
    (a_tired, a_wide), (s_tired, s_wide) = found.animal, found.street
    numbers = (f"The head that links *it* to *animal* most in the “tired” sentence is "
               f"{_where(sel, found.head)}. From *it* it gives *animal* {a_tired:.2f} and *street* "
               f"{s_tired:.2f} when the animal is tired, and *animal* {a_wide:.2f}, *street* {s_wide:.2f} "
               "when the street is wide.")
    if found.resolves:
        return f"{numbers} It moves its weight to the noun that *it* means in each sentence."
    return (f"{numbers} It does not move its weight to the street when the street is what *it* means: "
            "this head links the pronoun to a noun without resolving which one.")
