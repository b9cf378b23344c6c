"""Held-out splits: general-language test and valid pairs drawn from the Ding sentences.

Pairs that share a side (the same English or the same German sentence, compared case- and
punctuation-insensitively) form one group, and a whole group goes to one split, so a held-out
sentence never shows up in another split. Groups are ordered by a hash of their content, which
makes the choice deterministic and independent of file order. Every training pair (any source)
that shares a side with a held-out group is removed afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from corpus.text import Pair, side_key

TEST_SIZE = 1100
VALID_SIZE = 750


def group_pairs(pairs: list[Pair]) -> list[list[Pair]]:
    """Connected groups of pairs linked by a shared English or German side (union-find)."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]  # path halving keeps the trees flat
            node = parent[node]
        return node

    for en, de in pairs:
        a, b = find("en:" + side_key(en)), find("de:" + side_key(de))
        if a != b:
            parent[max(a, b)] = min(a, b)  # deterministic root choice
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(find("en:" + side_key(pair[0])), []).append(pair)
    return list(groups.values())


def _group_hash(group: list[Pair]) -> str:
    text = "\n".join(f"{en}\t{de}" for en, de in sorted(group))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _one_per_source(group: list[Pair]) -> list[Pair]:
    """One reference per English sentence (the first German in sorted order), for clean scoring."""
    chosen: dict[str, Pair] = {}
    for en, de in sorted(group):
        chosen.setdefault(en, (en, de))
    return list(chosen.values())


def hold_out(
    sentences: list[Pair], test_size: int = TEST_SIZE, valid_size: int = VALID_SIZE
) -> tuple[list[Pair], list[Pair], list[Pair], set[str]]:
    """Split Ding sentences into (train, valid, test) plus the side keys that training must avoid.

    Groups are taken in hash order: first into test until it holds ``test_size`` pairs, then into
    valid until ``valid_size``; the rest is training text.
    """
    test: list[Pair] = []
    valid: list[Pair] = []
    train: list[Pair] = []
    held_keys: set[str] = set()
    for group in sorted(group_pairs(sentences), key=_group_hash):
        if len(test) < test_size:
            target = test
        elif len(valid) < valid_size:
            target = valid
        else:
            train.extend(group)
            continue
        target.extend(_one_per_source(group))
        for en, de in group:  # every side of the group, also of references not kept
            held_keys.add("en:" + side_key(en))
            held_keys.add("de:" + side_key(de))
    return train, valid, test, held_keys


def without_held_out(pairs: Iterable[Pair], held_keys: set[str]) -> list[Pair]:
    """Pairs that share no side with the held-out splits."""
    return [
        (en, de)
        for en, de in pairs
        if "en:" + side_key(en) not in held_keys and "de:" + side_key(de) not in held_keys
    ]
