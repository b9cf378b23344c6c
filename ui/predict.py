""""Predict, then reveal": guess where a head looks before seeing its weights.

The weights stay hidden until the student has chosen, for one query token, the key they expect to
get the most attention. Reveal shows the real row and scores the guess. The score lives in
`st.session_state` (per browser session), and each question counts once however often the page reruns.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from viz.heatmap import as_array
from viz.inspector import guess_reveal
from viz.labels import choices

SCORE_KEY = "atlas_predict_score"


def score_guess(weights_row, guess: int) -> tuple[bool, int]:
    """(guess is right, index of the key with the most weight); ties go to the first such key."""
    row = np.asarray(weights_row, dtype=float)
    answer = int(np.argmax(row))
    return bool(guess == answer or np.isclose(row[guess], row[answer], rtol=0, atol=1e-12)), answer


def score() -> dict[str, int]:
    """This session's score: {'right': n, 'tried': n}."""
    return dict(st.session_state.get(SCORE_KEY, {"right": 0, "tried": 0}))


def _question_id(key: str, row: np.ndarray, query_label: str, key_labels: list[str]) -> str:
    digest = hashlib.sha256(row.tobytes() + "\x00".join([query_label, *key_labels]).encode()).hexdigest()
    return f"{key}:{digest[:16]}"


def predict_then_reveal(weights, query_labels: list[str], key_labels: list[str], key: str,
                        what: str, colors: tuple[str, str, str] | None = None) -> None:
    """The whole exercise for one head's weights (T_q, T_k).

    `what` names the head in the figure title; `colors` = (other keys, the answer, a wrong guess).
    """
    w = as_array(weights)
    if w.shape != (len(query_labels), len(key_labels)):
        raise ValueError(f"labels do not fit weights of shape {w.shape}")
    cols = st.columns(2)
    query_names, key_names = choices(query_labels), choices(key_labels)
    query = cols[0].selectbox("Query token (the one attending)", range(len(query_labels)),
                              format_func=lambda i: query_names[i], key=f"{key}_query")
    guess = cols[1].selectbox("Your guess: the key it attends to most", range(len(key_labels)),
                              format_func=lambda j: key_names[j], index=None,
                              placeholder="pick a token", key=f"{key}_guess")
    question = _question_id(key, w[query], query_labels[query], key_labels)
    revealed = st.session_state.get(f"{key}_revealed")  # (question, guess) once revealed
    if revealed is not None and revealed[0] != question:
        revealed = None  # another head, sentence or query: a new question, weights hidden again
    if st.button("Reveal", key=f"{key}_reveal", disabled=guess is None or revealed is not None):
        right, _ = score_guess(w[query], guess)
        current = score()
        st.session_state[SCORE_KEY] = {"right": current["right"] + int(right), "tried": current["tried"] + 1}
        revealed = (question, guess)
        st.session_state[f"{key}_revealed"] = revealed
    if revealed is None:
        st.caption("The weights are hidden. Pick a query and your guess, then press Reveal.")
    else:
        right, answer = score_guess(w[query], revealed[1])
        if right:
            st.success(f"Right: weight {w[query, answer]:.2f}.")
        else:
            st.error(f"Not this time: your pick got {w[query, revealed[1]]:.2f}, "
                     f"the most attended key got {w[query, answer]:.2f}.")
        title = f"{what}: the weights of query position {query}"
        fig = guess_reveal(w[query], key_labels, revealed[1], title,
                           colors=colors or ("#9e9e9e", "#2ca02c", "#d62728"))
        st.plotly_chart(fig, width="stretch", key=f"{key}_figure", config={"displaylogo": False})
    tally = score()
    st.caption(f"Your score this session: {tally['right']} right out of {tally['tried']}.")
