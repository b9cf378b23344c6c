"""What a corpus source is: the Debian packages it reads and how it turns them into pairs.

Every source module of ``corpus/`` exposes one or more ``Source`` values; ``build``
collects them into one table (names, packages, licences and weights in one place) and runs them.

``parse`` receives the directory where the source's packages were unpacked and returns the pairs
grouped by *document* (a page, a file, a catalogue, a campaign): documents are the unit a held-out
split takes whole, so a test page never shares paragraphs with training. A source without
packages reads apt's own indexes: ``parse`` then receives the private apt state directory that
``build`` refreshed with ``apt-get update`` (``lists/`` inside it), as DDTP and DEP-11 do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from corpus.text import Pair

Documents = dict[str, list[Pair]]  # document id (e.g. a relative path) -> its (en, de) pairs


@dataclass(frozen=True)
class Source:
    name: str  # short id used in stats.json and docs/CORPUS.md, e.g. "wesnoth"
    packages: tuple[str, ...]  # Debian package names fetched with `apt-get download`
    licence: str  # SPDX-like licence of the text
    description: str  # one line for the model card's data table
    domain: str  # "general", "narrative", "technical", "ui", ...
    parse: Callable[[Path], Documents]  # unpacked tree -> pairs per document
    weight: float = 1.0  # how often the source's pairs appear in train (see corpus.table)
    # tar patterns of the package members to unpack (``dpkg-deb --fsys-tarfile | tar -x --wildcards``);
    # empty: everything. Unpacking only the catalogues of a 380 MB game takes seconds, not minutes.
    members: tuple[str, ...] = ()
