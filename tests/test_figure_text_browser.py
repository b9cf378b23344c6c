"""Figure text where a reader can read it, on every page as Chromium draws it (figures' own margins,
Streamlit's chart theme and Plotly's placement together; none of the three alone says where a text
lands): axis titles clear of their tick labels, and titles, panel titles, legends and colour bars
within their figure. Streamlit's theme puts an 8-px gap between a plot and its axes that Plotly leaves
out of the room it makes for an axis title, which then sat on the tilted labels of Q, K, V and Z; in
presenter mode four panels in a row ran their titles into each other and off the figure's edge."""

from __future__ import annotations

import pytest
from server import DRAWN, discover_pages, wait_idle

pytestmark = pytest.mark.timeout(900)
TIMEOUT_MS = 240_000
SLACK_PX = 2  # text boxes include the line's leading: upright labels and a title one line apart touch

# Every axis title of every figure on the page that overlaps one of its axis's tick labels by more than
# `slack` px in both directions, or reaches outside its figure, and every title, panel title, legend
# entry and colour-bar text cut by the figure's left or right edge: [figure key, axis, text, label, px].
CLASHES_JS = r"""(slack) => {
  const out = [];
  const overlap = (a, b) => Math.min(Math.min(a.right, b.right) - Math.max(a.left, b.left),
                                     Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const fl = gd._fullLayout;
    const owner = gd.closest('[class*="st-key-"]');
    const name = owner ? owner.className.match(/st-key-(\S+)/)[1] : '?';
    if (!fl || !gd.getBoundingClientRect().height) continue;
    for (const axis of Object.keys(fl).filter((k) => /^[xy]axis\d*$/.test(k))) {
      const id = fl[axis]._id;
      const title = gd.querySelector(`.g-${id}title text`);
      if (!title || !title.textContent) continue;
      const box = title.getBoundingClientRect();
      for (const label of gd.querySelectorAll(`.${id}tick text`)) {
        const px = overlap(box, label.getBoundingClientRect());
        if (px > slack) { out.push([name, id, title.textContent, label.textContent, Math.round(px)]); break; }
      }
      const figure = gd.getBoundingClientRect();
      if (box.left < figure.left - slack || box.right > figure.right + slack || box.top < figure.top - slack
          || box.bottom > figure.bottom + slack) out.push([name, id, title.textContent, '(outside)', 0]);
    }
    const figure = gd.getBoundingClientRect();
    const texts = '.gtitle, .annotation-text, .legendtext, .cbtitle text, .cbaxis text';
    for (const text of gd.querySelectorAll(texts)) {
      const box = text.getBoundingClientRect();
      const out_by = Math.max(figure.left - box.left, box.right - figure.right);
      if (box.width && out_by > slack)
        out.push([name, 'cut', text.textContent.slice(0, 60), '', Math.round(out_by)]);
    }
  }
  return out;
}"""
# (path, window width): every page at 1440 px; a followed query; presenter mode on a 1024-px projector
VISITS = [(page.url_path, 1440) for page in discover_pages()] + [
    ("Attention_step_by_step?q=2", 1440), ("Attention_step_by_step?q=2&present=1", 1024),
    ("Why_these_choices?present=1", 1024),
    # the numbers model's small matrices: titles wrapped for the smaller type ran past their figures
    ("Attention_step_by_step?q=2&model=numbers&present=1", 1024),
    ("Paper_figures?model=numbers&present=1", 1024),
]


def test_figure_text_is_clear_of_labels_and_inside_its_figure(tabs, app_server):
    clashes = {}
    for path, width in VISITS:
        tab = tabs.new_page({"width": width, "height": 12_000})  # every figure drawn, none lazily left out
        tab.goto(f"{app_server.url}/{path}", wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        tab.locator(DRAWN).first.wait_for(state="visible", timeout=TIMEOUT_MS)
        tab.wait_for_timeout(1500)  # figures below the first drawn a frame or two later
        found = tab.evaluate(CLASHES_JS, SLACK_PX)
        if found:
            clashes[path or "Home"] = found
        tab.close()
    assert not clashes, clashes
