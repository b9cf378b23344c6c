"""Message catalogues of applications: the German UI strings that desktop programs and tools ship.

Two sources, both domain ``ui`` at weight 0.5 like the ``ui`` source of ``corpus.table``:

- ``app_ui``: gettext ``.mo`` files (``…/de/LC_MESSAGES/*.mo``) of GNOME, MATE, Cinnamon, Xfce and
  KDE applications, office and mail programs, and command-line tools (GNU utilities, Git, systemd).
- ``qt_ui``: Qt ``.qm`` files (``*_de.qm``) of large Qt programs (QGIS, Qt Creator, Sigil, …) and
  of Qt's own translations.

A catalogue file is one document (``mo.documents``: the text domain; ``qm.documents``: the path).
Only messages of at least ``MIN_WORDS`` English words are kept, as in ``table.UI_MIN_WORDS``:
shorter ones are labels ("Open", "Save As…") that teach little and repeat across programs. The
corpus filters (``text.clean_pairs``) then strip markup, drop templates and demand whole
sentences. UI strings carry markup those filters do not know, so ``ui_pairs`` prepares them first:

- dropped: placeholders the printf pattern misses: Qt's ``%n`` and ``%L1``, Nautilus's ``%B``;
- dropped: words in angle brackets that are not markup ("Press <Enter> when done", "the
  <extensions> tag"), which the markup filter would strip as tags, leaving "Press when done". A
  tag is markup when it is closed in the same message, self-closing, or one that HTML leaves open
  (``<br>``, ``<p>``, ``<li>``, ...);
- dropped: a bold or italic heading run into its text ("<b>Title Bar</b>The bar shows…") and two
  sentences run together without a space ("…the list.The calendar…"): neither can be split;
- removed: headings with their text (``<title>``, ``<h1>``…), labels set before a paragraph;
- made spaces: block tags (KDE's ``<para>`` and ``<nl/>``, lists, tables), so that stripping them
  does not glue the last word of one paragraph to the first of the next.

The package lists are explicit. Each package was checked to ship a German catalogue and chosen by
yield: at least 15 pairs not already given by a package chosen before it, and, for packages no
other source downloads, at least 25 pairs per MB of download (or under 1 MB).
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus import mo, qm
from corpus.source import Documents, Source
from corpus.text import Pair, has_placeholder

MIN_WORDS = 6  # English words of a message (the value of table.UI_MIN_WORDS)
_PLACEHOLDER = re.compile(r"%[A-Za-z]|%L\d")  # %n, %L1 (Qt), %B, %Id (GTK programs)
_OPEN_TAG = re.compile(r"<([A-Za-z][\w:.-]*)(?:\s[^<>]*)?(/?)>")
_UNCLOSED_MARKUP = frozenset({"br", "hr", "img", "p", "li", "nl", "td", "tr", "th", "dt", "dd", "meta"})
_INLINE = r"(?:b|strong|i|em|u|span|big|small|font|tt|code)"
_HEADING_RUN_IN = re.compile(rf"[^\s.:!?>]</{_INLINE}>[A-ZÄÖÜ]")
_PUNCT_RUN_IN = re.compile(rf"(?<=[.:!?])(</{_INLINE}>)(?=[A-ZÄÖÜ])")
_RUN_ON = re.compile(r"[a-zäöüß)]{2}[.!?][A-ZÄÖÜ][a-zäöüß]")  # "list.The": a lost line break
_HEADING = re.compile(r"<(h[1-6]|title)\b[^<>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_BLOCK_TAG = re.compile(
    r"</?(?:para|nl|list|item|ul|ol|dl|dt|dd|li|div|table|thead|tbody|tr|td|th|center|blockquote|pre"
    r"|html|head|body)\b[^<>]*>",
    re.IGNORECASE,
)

# Desktops: GNOME and GTK programs, MATE, Cinnamon, Xfce (most GNOME ones are fetched anyway for the
# help pages of ``docs_sources.mallard_apps``).
GNOME_PACKAGES = (
    "aisleriot", "anjuta-common", "brasero-common", "burner-common", "dconf-editor", "deja-dup",
    "devhelp-common", "easytag", "eog", "epiphany-browser-data", "evince-common", "evolution-common",
    "evolution-data-server-common", "file-roller", "font-manager-common", "gbrainy", "gdm3", "geary",
    "gedit-common", "gedit-plugins-common", "ghex", "glabels-data", "gnome-2048", "gnome-boxes",
    "gnome-builder", "gnome-calculator", "gnome-chess", "gnome-color-manager", "gnome-commander-data",
    "gnome-contacts", "gnome-control-center-data", "gnome-disk-utility", "gnome-initial-setup", "gnome-maps",
    "gnome-music", "gnome-nibbles", "gnome-remote-desktop", "gnome-robots", "gnome-screenshot",
    "gnome-settings-daemon-common", "gnome-shell-common", "gnome-software-common", "gnome-system-log",
    "gnome-system-monitor", "gnome-system-tools", "gnome-terminal-data", "gnome-tetravex",
    "gnome-text-editor", "gnome-tweaks", "gnote", "gsettings-desktop-schemas", "gthumb-data", "gtranslator",
    "iagno", "latexila-data", "libglib2.0-data", "libgtk-3-common", "meld", "mutter-common", "nautilus-data",
    "network-manager-gnome", "ocrfeeder", "orca", "parlatype", "pitivi", "polari", "quadrapassel",
    "rhythmbox-data", "seahorse", "shotwell-common", "simple-scan", "sysprof", "totem-common", "vinagre",
    "zenity-common",
)  # fmt: skip
MATE_XFCE_PACKAGES = (
    "atril-common", "caja-common", "engrampa-common", "marco-common", "mate-control-center-common",
    "mate-desktop-common", "mate-panel-common", "mate-session-manager", "mate-settings-daemon-common",
    "mate-terminal-common", "pluma-common", "cinnamon-l10n", "catfish", "libxfce4ui-common", "mousepad",
    "parole", "thunar-data", "xfburn", "xfce4-dict", "xfce4-panel", "xfce4-power-manager-data",
    "xfce4-screenshooter", "xfce4-settings", "xfce4-terminal",
)  # fmt: skip
KDE_PACKAGES = (
    "ark", "cantor", "dolphin", "k3b-i18n", "kalarm", "kbackup", "kcalc", "kdeconnect", "kdepim-addons",
    "kdepim-runtime", "kdevelop-l10n", "kdevelop-python-l10n", "kdiff3", "kfind", "kgpg", "kig", "kile-l10n",
    "kio", "kleopatra", "kmail", "kmix", "kmouth", "kmplot", "knotes", "kompare", "konqueror", "konsole",
    "kontact", "korganizer", "krusader", "ktexteditor-data", "ktorrent-data", "kwalletmanager",
    "libokteta-l10n", "rocs", "step", "tellico-data", "yakuake",
)  # fmt: skip
# Other graphical programs: finance, genealogy, office, mail and chat, editors, media.
APPLICATION_PACKAGES = (
    "aegisub-l10n", "audacious", "audacious-plugins-data", "bleachbit", "claws-mail-i18n", "deluge-common",
    "filezilla-common", "gajim", "geany-common", "gnucash-common", "gnumeric-common",
    "libgoffice-0.10-10-common", "gparted-common", "gramps", "grisbi-common", "hexchat-common",
    "homebank-data", "hugin-data", "lyx-common", "pidgin-data", "poedit-common", "remmina-common",
    "sylpheed-i18n", "synaptic", "system-config-printer-common", "wx3.2-i18n", "xfe-i18n", "xournalpp", "zim",
)  # fmt: skip
# Command-line tools and system libraries (most fetched anyway for ``docs_sources.manpages``).
TOOL_PACKAGES = (
    "bash", "coreutils", "cpio", "diffutils", "e2fsprogs-l10n", "findutils", "gettext", "git", "gnupg-l10n",
    "grub-common", "gutenprint-locales", "kbd", "libc-l10n", "libgphoto2-l10n", "libparted-i18n",
    "libsane-common", "libvirt-l10n", "lynx-common", "mc-data", "mercurial-common", "mutt", "nano",
    "network-manager", "packagekit", "pulseaudio", "recutils", "systemd", "tar", "texinfo",
    "util-linux-locales", "wget",
)  # fmt: skip
MO_PACKAGES = GNOME_PACKAGES + MATE_XFCE_PACKAGES + KDE_PACKAGES + APPLICATION_PACKAGES + TOOL_PACKAGES

QM_PACKAGES = (
    "copyq", "featherpad-l10n", "flameshot", "fritzing-data", "keepassxc", "lmms-common", "lxqt-config-l10n",
    "merkaartor", "musescore3-common", "nextcloud-desktop-l10n", "pcmanfm-qt-l10n", "psi-plus-l10n",
    "qgis-common", "qjackctl", "qt6-translations-l10n", "qtcreator-data", "qttranslations5-l10n",
    "quassel-data", "sigil-data", "smplayer-l10n", "texstudio-l10n", "valentina-l10n",
)  # fmt: skip

# Where the German catalogues lie: gettext under locale/ (or a program's i18n/), Qt files named
# app_de.qm, app_de_DE.qm, or de.qm in a locale folder (LMMS, GoldenDict).
MO_MEMBERS = ("*/de/LC_MESSAGES/*.mo",)
QM_PATTERNS = ("*_de.qm", "*_de_DE.qm", "*/de.qm", "*/de_DE.qm")


def _bracketed_words(text: str) -> bool:
    """Whether ``text`` has an angle-bracketed word that is not markup (see the module docstring)."""
    lowered = text.lower()
    for match in _OPEN_TAG.finditer(text):
        name, self_closing = match.group(1).lower(), match.group(2)
        if not self_closing and name not in _UNCLOSED_MARKUP and f"</{name}>" not in lowered:
            return True
    return False


def _tidy(text: str) -> str | None:
    """``text`` with headings removed and block tags made spaces, or None if it cannot be used."""
    # printf placeholders are left to clean_pairs, which counts them
    missed_placeholder = _PLACEHOLDER.search(text) and not has_placeholder(text)
    if missed_placeholder or _HEADING_RUN_IN.search(text) or _bracketed_words(text):
        return None
    text = _BLOCK_TAG.sub(" ", _HEADING.sub(" ", text))
    text = _PUNCT_RUN_IN.sub(r"\1 ", text)
    return None if _RUN_ON.search(text) else text


def ui_pairs(pairs: list[Pair]) -> list[Pair]:
    """Raw pairs of a catalogue made ready for ``text.clean_pairs`` (see the module docstring)."""
    out: list[Pair] = []
    for en, de in pairs:
        tidy_en, tidy_de = _tidy(en), _tidy(de)
        if tidy_en is not None and tidy_de is not None:
            out.append((tidy_en, tidy_de))
    return out


def parse_mo(root: Path) -> Documents:
    """One document per gettext text domain of the German ``.mo`` files under ``root``."""
    docs = mo.documents(root, "**/de/LC_MESSAGES/*.mo", MIN_WORDS)
    return {name: ui_pairs(pairs) for name, pairs in docs.items()}


def parse_qm(root: Path) -> Documents:
    """One document per German ``.qm`` file under ``root`` (path relative to ``root``)."""
    docs: Documents = {}
    for pattern in QM_PATTERNS:
        docs.update(qm.documents(root, "**/" + pattern.removeprefix("*/"), MIN_WORDS))
    return {name: ui_pairs(pairs) for name, pairs in sorted(docs.items())}


SOURCES: list[Source] = [
    Source(
        name="app_ui",
        packages=MO_PACKAGES,
        licence="GPL-2+ / LGPL-2.1+ / GPL-3+ (per package)",
        description=f"gettext UI catalogues of {len(MO_PACKAGES)} GNOME, MATE, Xfce and KDE programs and "
        f"command-line tools (>= {MIN_WORDS} English words)",
        domain="ui",
        parse=parse_mo,
        weight=0.5,
        members=MO_MEMBERS,
    ),
    Source(
        name="qt_ui",
        packages=QM_PACKAGES,
        licence="GPL-2+ / GPL-3 / LGPL-3 (per package)",
        description=f"Qt UI catalogues (.qm) of QGIS, Qt Creator, Sigil, Qt itself and other Qt programs "
        f"(>= {MIN_WORDS} English words)",
        domain="ui",
        parse=parse_qm,
        weight=0.5,
        members=QM_PATTERNS,
    ),
]
