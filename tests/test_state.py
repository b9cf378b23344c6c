"""URL parameters are parsed defensively: every bad value falls back or is clamped, never raises."""

from __future__ import annotations

import pytest

from ui.state import DEFAULT_SENTENCE, MAX_URL_SENTENCE, Selection, parse_params, to_params


def parse(**params):
    return parse_params(params, n_layers=6, n_heads=8)


def test_defaults_when_nothing_is_given():
    sel = parse()
    assert sel == Selection()
    assert (sel.layer, sel.head, sel.sentence) == (4, 0, DEFAULT_SENTENCE)


@pytest.mark.parametrize(
    "layer,expected", [("-5", 0), ("0", 0), ("1", 0), ("6", 5), ("999", 5), ("abc", 4), ("1e9", 4), ("", 4),
                       (" 3 ", 2)]
)
def test_layer_is_one_based_and_clamped(layer, expected):
    assert parse(layer=layer).layer == expected


@pytest.mark.parametrize("head,expected", [("8", 7), ("9", 7), ("-1", 0), ("x", 0), ("2", 1)])
def test_head_is_one_based_and_clamped(head, expected):
    assert parse(head=head).head == expected


def test_zero_based_numbering_reads_numbers_as_written():
    sel = parse(zero="1", layer="0", head="7")
    assert (sel.one_based, sel.layer, sel.head) == (False, 0, 7)
    assert parse(zero="1", layer="6").layer == 5


def test_stack_and_kind_must_exist_together():
    assert parse(stack="xyz").stack == "encoder"
    assert parse(stack="encoder", kind="cross").kind == "self"  # the encoder has no cross-attention
    assert (parse(stack="decoder", kind="cross").stack, parse(stack="decoder", kind="cross").kind) == (
        "decoder", "cross")


def test_bad_flags_and_palette_fall_back():
    sel = parse(palette="evil", present="maybe", zero="perhaps")
    assert (sel.palette, sel.presenter, sel.one_based) == ("default", False, True)


def test_huge_sentence_is_cut():
    assert len(parse(s="x" * 50_000).sentence) == MAX_URL_SENTENCE


def test_round_trip_through_the_url():
    sel = Selection(sentence="Hello <b>world</b>.", stack="decoder", kind="cross", layer=2, head=5,
                    one_based=False, palette="colour-blind safe", presenter=True,
                    chosen=frozenset({"layer", "head"}))  # a link always names what it shows
    assert parse(**to_params(sel)) == sel


def test_a_layer_or_head_the_url_names_is_chosen_even_when_bad():
    """Pages that open on a sentence's most focused head keep a layer / head the link names."""
    assert parse().chosen == frozenset()
    assert parse(layer="3").chosen == {"layer"}
    assert parse(head="2", s="Hi.").chosen == {"head"}
    sel = parse(layer="abc", head="99")  # bad values fall back or clamp, and still count as named
    assert (sel.layer, sel.head, sel.chosen) == (4, 7, {"layer", "head"})
