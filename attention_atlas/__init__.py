"""The installed commands: `attention-atlas` starts the app, `attention-atlas-translate` and
`attention-atlas-evaluate` run `transformer.translate` and `training.evaluate` on the shipped model; and
for notebooks, `attention_atlas.decoder_input.trace`: a sentence traced with the decoder reading what the
app's pages draw (the beam translation, the greedy one, or a German prefix of your own).

Installed with `pip install .`, the app's own files (app.py, pages/, .streamlit/config.toml and the
shipped models of pretrained/) travel inside this package as `attention_atlas/app/`; in a checkout they
are where they always were, at the repository's root.
"""
