"""Token labels read as words (no ▁, no position), stay distinct categories, and offer the piece form."""

from ui.state import Selection, parse_params, to_params
from viz.heatmap import attention_heatmap
from viz.labels import ZERO_WIDTH, plain, span_label, token_labels

PIECES = ["▁The", "▁cat", "▁sat", "▁on", "▁the", "▁cat", "s", "'", "▁cat", "</s>"]


def test_default_labels_read_as_written():
    labels = token_labels(PIECES)
    words = ["The", "cat", "sat", "on", "the", "cat", "s", "'", "cat", "</s>"]
    assert [plain(label) for label in labels] == words
    assert not any("▁" in label for label in labels)
    assert not any(label[0].isdigit() for label in labels)  # no index prefix
    assert labels[-1] == "&lt;/s&gt;"  # escaped for Plotly, plain again for widgets


def test_repeated_words_stay_distinct_categories_that_read_the_same():
    labels = token_labels(PIECES)
    assert len(set(labels)) == len(labels)
    assert labels[1] == "cat" and labels[5] == "cat" + ZERO_WIDTH and labels[8] == "cat" + 2 * ZERO_WIDTH
    fig = attention_heatmap([[1.0 / len(PIECES)] * len(PIECES)] * len(PIECES), labels, labels, "t")
    assert len(set(fig.data[0].y)) == len(PIECES)  # one row per token on the category axis


def test_pieces_and_positions_are_an_option():
    labels = token_labels(PIECES, show_pieces=True)
    assert labels[:2] == ["0:▁The", "1:▁cat"] and labels[-1] == "9:&lt;/s&gt;"
    assert len(set(labels)) == len(labels)


def test_a_word_of_several_pieces_is_named_like_its_tokens():
    assert span_label(token_labels(PIECES), [5, 6]) == "cats"
    assert span_label(token_labels(PIECES, True), [5, 6], True) == "5:▁cat 6:s"


def test_the_option_is_kept_in_the_url():
    assert Selection().pieces is False and "pieces" not in to_params(Selection())
    sel = parse_params({"pieces": "1"}, 6, 8)
    assert sel.pieces is True and to_params(sel)["pieces"] == "1"
    assert parse_params({"pieces": "garbage"}, 6, 8).pieces is False


def test_choices_are_plain_and_number_repeated_words():
    from viz.labels import choices

    names = choices(token_labels(PIECES))
    assert names == ["The", "cat (1)", "sat", "on", "the", "cat (2)", "s", "'", "cat (3)", "</s>"]
    assert len(set(names)) == len(names)  # Streamlit tells options apart by their text
    assert choices(token_labels(PIECES, True)) == [plain(x) for x in token_labels(PIECES, True)]
