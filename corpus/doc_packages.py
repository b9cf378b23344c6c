"""Which Debian packages the documentation sources read (bookworm, main).

Found once with Debian's Contents index (``apt-get update`` with the ``Contents-deb`` index target,
as ``apt-file`` does) and written down here so that a build needs no index beyond the usual one:

- ``MALLARD``: every package shipping pages under both ``/usr/share/help/C/`` and
  ``/usr/share/help/de/``, less ``gnome-user-docs`` (its own source), ``gnucash-docs`` (145 MB
  for DocBook pages this source does not read) and one-page editor plug-ins.
- ``MAN``: ``manpages-de`` and ``manpages-de-dev`` (the German pages) and the packages that ship
  the English originals of at least two of them.
"""

from __future__ import annotations

MALLARD = (
    "accerciser", "aisleriot", "anjuta-common", "atril-common", "baobab", "bijiben", "brasero-common",
    "burner-common", "caja-actions-common", "cheese-common", "d-feet", "deja-dup", "devhelp-common",
    "easytag", "endeavour-common", "eog", "epiphany-browser-data", "evince-common", "evolution-common",
    "file-roller", "five-or-more", "font-manager-common", "four-in-a-row", "frogr-data", "gbrainy", "geary",
    "gedit-common", "gedit-plugins-common", "ghex", "giggle", "glabels-data", "gnome-2048", "gnome-boxes",
    "gnome-calculator", "gnome-chess", "gnome-clocks", "gnome-color-manager", "gnome-commander-data",
    "gnome-connections", "gnome-devel-docs", "gnome-dictionary", "gnome-logs", "gnome-mahjongg",
    "gnome-mines", "gnome-music", "gnome-nettool", "gnome-nibbles", "gnome-photos", "gnome-robots",
    "gnome-sudoku", "gnome-system-log", "gnome-system-monitor", "gnome-system-tools", "gnome-taquin",
    "gnome-terminal-data", "gnome-tetravex", "gnome-text-editor", "gnote", "goobox", "grilo-plugins-0.3",
    "gthumb-data", "gtk-doc-tools", "gtranslator", "hamster-time-tracker", "hitori", "iagno", "kupfer",
    "latexila-data", "lightsoff", "malcontent-gui", "mate-calc-common", "mate-control-center-common",
    "mate-user-guide", "meld", "metadata-cleaner", "modem-manager-gui-help", "ocrfeeder", "orca", "parlatype",
    "pitivi", "polari", "pulseeffects", "quadrapassel", "seahorse", "shotwell-common", "simple-scan",
    "swell-foop", "sysprof", "totem-common", "vinagre", "zenity-common",
)  # fmt: skip

MAN = (
    "manpages", "manpages-dev", "manpages-de", "manpages-de-dev", "anacron", "bash", "bcron", "binkd",
    "bsdextrautils", "bsdgames", "bsdutils", "bzip2", "coreutils", "cpio", "diffutils", "dosfstools",
    "e2fsprogs", "elogind", "fdisk", "finit-sysv", "gettext", "gettext-base", "ghostscript", "glibc-doc",
    "groff-base", "grub-common", "grub-legacy", "gzip", "info", "init-system-helpers", "iptables", "kbd",
    "kmod", "less", "libsane-common", "locales", "mount", "mtools", "mutt", "nano", "ncurses-bin", "netpbm",
    "nfs-common", "nfs-kernel-server", "openssh-client", "openssh-server", "parted", "psutils", "recutils",
    "sane-utils", "sysstat", "systemd", "systemd-boot", "systemd-container", "systemd-coredump",
    "systemd-homed", "systemd-journal-remote", "systemd-oomd", "systemd-resolved", "systemd-timesyncd",
    "systemd-userdbd", "tar", "texinfo", "thinkfan", "udev", "usbutils", "util-linux", "util-linux-extra",
    "uuid-dev", "uuid-runtime", "vlock", "vorbis-tools", "x11-xserver-utils", "zstd",
)  # fmt: skip

DEBIAN_DOCS = (
    "debian-handbook", "debian-reference-en", "debian-reference-de", "installation-guide-amd64",
    "maint-guide", "maint-guide-de", "debian-faq", "debian-faq-de", "debian-edu-doc-en", "debian-edu-doc-de",
)  # fmt: skip

GIMP = ("gimp-help-en", "gimp-help-de")
