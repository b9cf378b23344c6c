"""What a head change recomputes: only the chosen head's figures.

On the head inspector, the statistics over the sentence set and the "switch heads off" experiment do
not depend on the selected head: a head change reads them from the server's caches instead of
collecting and computing them again. (The pages also rerun only their head-dependent part in the
browser, `st.fragment`; AppTest reruns whole scripts, so that part is measured by bench/app.py.)
"""

from __future__ import annotations

from pathlib import Path

import torch
from streamlit.testing.v1 import AppTest

from analysis import heads
from ui import inspector

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300


def test_a_head_change_on_the_inspector_reuses_what_does_not_depend_on_the_head(monkeypatch):
    torch.set_num_threads(1)
    calls = {"collect": 0, "ablation": 0}
    collect, ablation = heads.HeadStatistics.collect.__func__, inspector.ablation

    def counted_collect(cls, *args, **kwargs):
        calls["collect"] += 1
        return collect(cls, *args, **kwargs)

    def counted_ablation(*args, **kwargs):
        calls["ablation"] += 1
        return ablation(*args, **kwargs)

    monkeypatch.setattr(heads.HeadStatistics, "collect", classmethod(counted_collect))
    monkeypatch.setattr(inspector, "ablation", counted_ablation)
    at = AppTest.from_file(str(ROOT / "pages" / "Head_inspector.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.message for e in at.exception]
    head = at.slider(key="atlas_head")
    before = dict(calls)
    for value in (head.min, head.max, head.min + 1):
        at.slider(key="atlas_head").set_value(value).run()
        assert not at.exception, [e.message for e in at.exception]
        assert at.slider(key="atlas_head").value == value
    assert calls == before, f"a head change recomputed {calls} (before it: {before})"
