"""Man pages that Debian packages translate into German themselves, aligned with their English pages.

``manpages-de`` translates other packages' pages (the ``manpages`` source); many packages instead
ship their own German pages next to the English ones: dpkg, apt, debconf, debhelper, devscripts,
po4a, man-db, the shadow tools, procps, CUPS, xz, ... (found with Debian's Contents index: every
bookworm package with a page under ``/usr/share/man/de/`` whose English twin it ships too, or, for
``debconf-i18n``, that ``debconf`` ships). The English and German page come from the same source
at the same version (po4a, DocBook, pod2man or KDE's kdoctools), so their macro structure matches
and ``groff`` + ``html_blocks`` align them as for ``manpages``. No German page of these packages
is also in ``manpages-de`` (dpkg would refuse to install the two together), and packages whose
pages the ``manpages`` source already reads are left out (``doc_packages.MAN``).

Generated pages use more of groff than hand-written ones: ``groff_prepare.prepare`` rewrites each
page into the groff ``groff.blocks`` reads (accented letters, ``.ds`` strings, pod2man's verbatim
blocks) before it is aligned, so no word loses a letter.

The apt manuals (``apt-doc``: user's guide, offline use) and the svn-buildpackage manual ship as
English and German DocBook HTML and are aligned like the Debian manuals (``html_blocks``), each
page decoded by the charset it declares (the German svn-buildpackage manual is Latin-1).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from corpus import doc_text, docs_sources, groff, html_blocks
from corpus.groff_prepare import prepare
from corpus.source import Documents, Source
from corpus.text import Pair

# Bookworm packages with German man pages of their own (Contents index, 2026-11). Left out:
# packages of several MB for one short page (games' data, most KDE applications), ghostscript and
# locales (already read by the ``manpages`` source), fortunes-de (its German page is not a
# translation of the English one) and sl (German pages under ``de.UTF-8``, a joke page).
PACKAGES = (
    "acpi", "adduser", "amule", "amule-daemon", "amule-utils", "amule-utils-gui", "apper", "apt",
    "apt-doc", "apt-listchanges", "apt-utils", "aptitude-common", "ark", "asclock", "awesome", "bambam",
    "base-passwd", "berusky", "bootlogd", "calibre", "cups", "cups-bsd", "cups-client", "cups-daemon",
    "cups-ipp-utils", "cups-ppdc", "cups-server-common", "davfs2", "debarchiver", "debconf",
    "debconf-doc", "debconf-i18n", "debconf-utils", "debhelper", "debian-goodies",
    "debian-reference-common", "debianutils", "deborphan", "debsums", "devscripts", "doc-base",
    "dos2unix", "dpkg", "dpkg-dev", "dragonplayer", "dselect", "dvdisaster", "dvgrab", "einstein",
    "extremetuxracer", "fakeroot", "fragmaster", "gliv", "goobox", "help2man", "imgvtopgm", "inetsim",
    "inkscape", "isoquery", "jpegpixi", "kbackup", "kde-spectacle", "kded5", "kdesdk-scripts", "kdesvn",
    "kdiff3", "kdoctools5", "keditbookmarks", "kfind", "kgendesignerplugin-bin", "kid3-core", "kinit",
    "kmag", "kmousetool", "kmouth", "kpackagetool5", "kronometer", "kross", "kvirc",
    "libcamomile-ocaml-dev", "libcups2-dev", "libembperl-perl", "libkf5configwidgets-data",
    "libkf5jsembed-dev", "libkf5kdelibs4support5-bin", "libkf5kjs-dev", "libkf5service-bin",
    "liblocal-lib-perl", "linkchecker", "linux-base", "linuxinfo", "live-tools", "login", "loook", "lpe",
    "man-db", "mencoder", "mkvtoolnix", "modem-manager-gui", "mpgtx", "mplayer", "mplayer-gui",
    "multistrap", "muttprint", "net-tools", "nmap", "passwd", "pdf2djvu", "pentobi", "plasma-sdk",
    "po-debconf", "po4a", "poxml", "pppconfig", "procps", "psmisc", "python3-pysnmp4-mibs", "qmidiarp",
    "qmidiroute", "rlinetd", "schroot", "scribus-data", "seahorse-adventures", "sensible-utils",
    "sgt-puzzles", "smstools", "svn-buildpackage", "sysvinit-core", "tilix", "tk-brief", "tvtime",
    "txt2pdbdoc", "vdr-plugin-epgsearch", "vim-common", "vim-gui-common", "vobcopy", "w3m", "wcd",
    "weechat-curses", "weechat-headless", "wesnoth-1.16-core", "wesnoth-1.16-server", "whohas", "wine",
    "wine64-tools", "wizznic", "xine-console", "xine-ui", "xskat", "xz-utils",
)  # fmt: skip

MAN = "usr/share/man"
_DOC = "usr/share/doc"
# HTML manuals: (document id prefix, English directory, German directory); pages share file names.
MANUALS = (
    ("apt-guide", f"{_DOC}/apt-doc/guide.html", f"{_DOC}/apt-doc/guide.de.html"),
    ("apt-offline", f"{_DOC}/apt-doc/offline.html", f"{_DOC}/apt-doc/offline.de.html"),
    ("svn-buildpackage", f"{_DOC}/svn-buildpackage/html", f"{_DOC}/svn-buildpackage/html/de"),
)
MEMBERS = (
    f"./{MAN}/man[1-9]/*",
    f"./{MAN}/de/man[1-9]/*",
    *sorted({f"./{d}/*.html" for _, en, de in MANUALS for d in (en, de)}),
)

# --- Pages and documents ------------------------------------------------------------------------------

# What a broken decoding leaves (replacement characters, C1 controls of double-encoded UTF-8).
_MOJIBAKE = re.compile("[\ufffd\u0080-\u009f]")
_CHARSET = re.compile(rb"charset=[\"']?([\w-]+)", re.IGNORECASE)


def page_pairs(en_source: str, de_source: str) -> list[Pair]:
    """Sentence pairs of one man page in English and German (sources as read from the files)."""
    en_blocks, de_blocks = groff.blocks(prepare(en_source)), groff.blocks(prepare(de_source))
    pairs = doc_text.sentence_pairs(html_blocks.align_blocks(en_blocks, de_blocks))
    return [(en, de) for en, de in pairs if not _MOJIBAKE.search(en + de)]


def _pages(man: Path) -> Iterable[tuple[str, list[Pair]]]:
    """(page id, pairs) of every German page with an English twin, each real file read once.

    Links (``unxz.1`` -> ``xz.1``) come after real files, so a page is named by its own file.
    """
    seen: set[tuple[Path, Path]] = set()
    german = sorted((man / "de").glob("man*/*"), key=lambda p: (p.is_symlink(), p))
    for de_path in german:
        en_path = man / de_path.relative_to(man / "de")
        if not (de_path.is_file() and en_path.is_file()):
            continue
        real = (en_path.resolve(), de_path.resolve())
        if real in seen:
            continue
        seen.add(real)
        pairs = page_pairs(groff.read(en_path), groff.read(de_path))
        yield de_path.relative_to(man / "de").as_posix().removesuffix(".gz"), pairs


def read_html(path: Path) -> str:
    """An HTML page decoded by the charset it declares (UTF-8 when it declares none)."""
    data = path.read_bytes()
    declared = _CHARSET.search(data[:2048])
    try:
        return data.decode(declared.group(1).decode("ascii") if declared else "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return data.decode("utf-8", errors="replace")


def _manual_pages(root: Path) -> Iterable[tuple[str, list[Pair]]]:
    for prefix, en_dir, de_dir in MANUALS:
        for en_path in sorted((root / en_dir).glob("*.html")):
            de_path = root / de_dir / en_path.name
            if de_path.is_file():
                blocks = html_blocks.align_pages(read_html(en_path), read_html(de_path))
                pairs = doc_text.sentence_pairs(blocks)
                yield f"{prefix}/{en_path.name}", [p for p in pairs if not _MOJIBAKE.search(p[0] + p[1])]


def parse(root: Path) -> Documents:
    """Pairs per man page (``man1/dpkg.1``) and per manual page (``apt-guide/ch1.html``)."""
    return docs_sources.unique_documents([*_pages(root / MAN), *_manual_pages(root)])


SOURCES: list[Source] = [
    Source(
        name="pkg_manpages",
        packages=PACKAGES,
        licence="GPL-2+ mostly (dpkg, apt, debconf, debhelper, devscripts, po4a, man-db); per package "
        "(CUPS Apache-2.0, shadow BSD-3-Clause, sgt-puzzles MIT, calibre GPL-3, nmap NPSL, ...)",
        description="German man pages that Debian packages ship themselves (dpkg, apt, debhelper, ...) "
        "aligned with their English pages by macro structure; apt and svn-buildpackage manuals",
        domain="technical",
        parse=parse,
        weight=1.0,
        members=MEMBERS,
    ),
]
