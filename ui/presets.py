"""The sentences the sidebar offers for each model, and the right answers shown beside their translations."""

from __future__ import annotations

from ui import model as model_io

PRESETS = {
    "The animal … too tired": "The animal didn't cross the street because it was too tired.",
    "The animal … too wide": "The animal didn't cross the street because it was too wide.",
    "River bank": "I swam across the river to get to the other bank.",
    "Paper Figure 3 (making … more difficult)": (
        "It is in this spirit that a majority of American governments have passed new laws since 2009 "
        "making the registration or voting process more difficult."
    ),
    "Paper Figures 4–5 (The Law will never be perfect)": (
        "The Law will never be perfect, but its application should be just - this is what we are "
        "missing, in my opinion."
    ),
}

# Human reference translations of presets, written for this project (the paper's sentences are from
# WMT newstest2014; these are our own translations of them, not the WMT references).
REFERENCES = {
    PRESETS["The animal … too tired"]: "Das Tier überquerte die Straße nicht, weil es zu müde war.",
    PRESETS["The animal … too wide"]: "Das Tier überquerte die Straße nicht, weil sie zu breit war.",
    PRESETS["River bank"]: "Ich bin über den Fluss geschwommen, um ans andere Ufer zu gelangen.",
    PRESETS["Paper Figure 3 (making … more difficult)"]: (
        "In diesem Sinne hat eine Mehrheit der amerikanischen Regierungen seit 2009 neue Gesetze "
        "verabschiedet, die die Registrierung oder das Wahlverfahren erschweren."
    ),
    PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]: (
        "Das Gesetz wird nie perfekt sein, aber seine Anwendung sollte gerecht sein – das ist es, was "
        "uns meiner Meinung nach fehlt."
    ),
}


# The numbers model's presets: each has one right answer (`tasks.numbers.grammar`).
NUMBER_PRESETS = {
    "forty-two (the crossing)": "forty-two",
    "three hundred forty-two": "three hundred forty-two",
    "twenty-one apples": "twenty-one apples",
    "a date": "on the fifth of March two thousand twenty-one",
    "half past three (halb vier)": "at half past three",
    "quarter to four": "at quarter to four",
    "a big number": "seven hundred eighty-five thousand nine hundred sixty-three",
}
NUMBERS_DEFAULT = NUMBER_PRESETS["three hundred forty-two"]


def presets() -> dict[str, str]:
    """The presets that suit the chosen model."""
    return NUMBER_PRESETS if model_io.is_numbers() else PRESETS


def reference_for(sentence: str) -> str | None:
    """The human reference translation of a preset sentence (spacing aside), or None; for the numbers
    model, the right answer of any phrase in its grammar."""
    if model_io.is_numbers():
        from tasks.numbers import grammar

        example = grammar.parse(sentence)
        return example.target if example else None
    by_words = {" ".join(english.split()): german for english, german in REFERENCES.items()}
    return by_words.get(" ".join(sentence.split()))
