"""`python -m attention_atlas` is the `attention-atlas` command: it starts the app."""

import sys

from attention_atlas.cli import main

sys.exit(main())
