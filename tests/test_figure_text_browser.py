"""Figure text where a reader can read it, on every page as Chromium draws it (figures' own margins,
Streamlit's chart theme and Plotly's placement together; none of the three alone says where a text
lands): axis titles clear of their tick labels, and titles, panel titles, legends and colour bars
within their figure. Streamlit's theme puts an 8-px gap between a plot and its axes that Plotly leaves
out of the room it makes for an axis title, which then sat on the tilted labels of Q, K, V and Z; in
presenter mode four panels in a row ran their titles into each other and off the figure's edge. Tick
labels clear of each other (dimension labels ran together as "d104d112d120"; a panel's last number into
the next panel's first, "1000" + "0%"), and formulas inside their column (step 1's ran under the text)."""

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
# Tick labels of a figure (of any of its axes) that lie along one line and come closer than `slack` px
# end to end, and formulas wider than their box: [figure key or "formula", texts, px].
CROWDED_JS = r"""(slack) => {
  const out = [];
  for (const display of document.querySelectorAll('.katex-display')) {
    const source = display.querySelector('annotation'), over = display.scrollWidth - display.clientWidth;
    if (over > slack) out.push(['formula', source ? source.textContent.slice(0, 60) : '?', over]);
  }
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const owner = gd.closest('[class*="st-key-"]');
    const name = owner ? owner.className.match(/st-key-(\S+)/)[1] : '?';
    const labels = [...gd.querySelectorAll('[class*="tick"] > text')].filter(
      (t) => t.textContent && t.getBoundingClientRect().width).map((t) => {
      const box = t.getBoundingClientRect();
      const turn = /rotate\((-?[\d.]+)/.exec(t.getAttribute('transform') || '');
      return {text: t.textContent, x: (box.left + box.right) / 2, y: (box.top + box.bottom) / 2,
              angle: (turn ? parseFloat(turn[1]) : 0) * Math.PI / 180, length: t.getComputedTextLength(),
              size: parseFloat(getComputedStyle(t).fontSize)};
    });
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i], b = labels[j];
      if (Math.abs(a.angle - b.angle) > 1e-3) continue;  // tilted against upright: their boxes say little
      const dx = b.x - a.x, dy = b.y - a.y, ux = Math.cos(a.angle), uy = Math.sin(a.angle);
      const along = Math.abs(dx * ux + dy * uy) - (a.length + b.length) / 2;  // gap end to end
      const across = Math.abs(dy * ux - dx * uy) - 0.8 * (a.size + b.size) / 2;  // < 0: on one line
      if (along < slack && across < -slack) out.push([name, `${a.text} | ${b.text}`, Math.round(along)]);
    }
  }
  return out;
}"""
# (path, window width): every page at 1440 px; a followed query; presenter mode on a 1024-px projector
VISITS = [(page.url_path, 1440) for page in discover_pages()] + [
    ("Attention_step_by_step?q=2", 1440), ("Attention_step_by_step?q=2&present=1", 1024),
    ("Why_these_choices?present=1", 1024), ("Positional_encoding?present=1", 1024),
    ("Multi_head_attention?present=1", 1024), ("Encoder_layer?present=1", 1024),
    ("Tokens_and_embeddings?present=1", 1024),
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
        found = tab.evaluate(CLASHES_JS, SLACK_PX) + tab.evaluate(CROWDED_JS, SLACK_PX)
        if found:
            clashes[path or "Home"] = found
        tab.close()
    assert not clashes, clashes
