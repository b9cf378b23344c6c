"""Build the English->German training corpus from Debian packages.

One small module per source, each turning raw package files into aligned ``(en, de)`` pairs:

- ``ding``     -- Ding dictionary (``trans-de-en``): example sentences and word/phrase pairs
- ``lo_help``  -- LibreOffice help pages, aligned by paragraph id
- ``mo``       -- LibreOffice UI message catalogues (.mo), read with our own binary reader
- ``mallard``  -- GNOME user docs (Mallard pages), aligned by document structure

``text`` holds the shared cleaning and sentence rules, ``splits`` the held-out split logic and
``build`` the command that fetches, parses and writes everything (docs/CORPUS.md says how).
"""
