// Layers, heads and hovered tokens switched in the browser (a Streamlit v2 component, no build step).
//
// The page draws its figures as usual and mounts this once, with `data`:
//   scope    the figures' layout.uirevision: only figures of this sentence and view are changed
//   dims     the slider dimensions, e.g. ["layer", "head"]; sliders: dimension -> Streamlit widget key
//   offset   0 or 1: what the sliders show for layer 0 / head 0
//   drawn    the selection the server drew, e.g. "2,5" (layer 2, head 5; 0-based)
//   figures  figure key -> {roles: one per trace, {rows, cols, x, y}: what its rows and columns are
//            ("query", "key", "source" or another name: cells of the same name light together; a
//            heads grid's one trace holds a panel per head, placed as its layout.meta.panels says),
//            dims: the dimensions the figure changes with, when not all (a cross-attention average
//            changes with the layer, not with the head), scope: its own, when not the page's}
//   changes  selection -> figure key -> [data, layout], the arguments of Plotly.update (viz/live.py),
//            or {figure}: a whole figure to draw instead (its traces depend on the numbers); a figure
//            with dims of its own is found under the selection of those dims only ("2" for layer 2)
//   query    the followed query, or null: {key: its select box's widget key, drawn: the query drawn
//            (0-based, or null), names: the box's options (the first: none, or all, then query 0, 1,
//            …), all: whether the first is a picture of its own (all tokens) or none followed (left to
//            the rerun), figures: figure key -> [data, layout] that change from one query to another,
//            or {by_query: query (as JSON) -> {data, layout}}: the figure's traces and layout changes
//            for each query, at the drawn selection}. A value {row: rows} (in a change or there) holds
//            one value per query, and the followed query's is drawn; a value {times_row: [A, B]} is
//            B with each row times A's row of the followed query; a shape named "atlas-query"
//            frames the followed query's row and moves with it
// When a slider moves (arrow key or pointer), every figure is updated here at once; Streamlit reruns the
// script afterwards only to keep the URL and the other pages in step, and redraws the same picture.
// Choosing another query in the select box (Enter or a click on an option) is drawn the same way; from
// none followed to one, or back, the page grows or shrinks, and the rerun draws it.
// Hovering a cell lights its query row and key column in every figure of the page.

const HOVER = "atlas-hover";
const FRAME = "atlas-query";
const lights = (name) => Boolean(name) && name !== "dim"; // rows or columns of tokens (not of dimensions)
let current = null; // the latest data
let hooked = false;

function decoded(value) {
  // {shape, f4}: float32 in base64 -> rows of a matrix, else unchanged. Plain rows, not typed ones:
  // Streamlit's chart may redraw a figure from a JSON copy of its data, where a typed row comes back
  // as an object, and Plotly then reads the matrix as one column of points (hover lost its cells).
  if (value === null || typeof value !== "object" || !("f4" in value)) return value;
  const bytes = Uint8Array.from(atob(value.f4), (c) => c.charCodeAt(0));
  const flat = new Float32Array(bytes.buffer);
  const [rows, cols] = value.shape;
  return Array.from({ length: rows }, (_, i) => Array.from(flat.subarray(i * cols, (i + 1) * cols)));
}

function picked(value, q) {
  // a {row: rows} value's row for query q (rows: a list, or a packed matrix); a {times_row: [A, B]}
  // value's B with every row multiplied elementwise by A's row q (float32, as the server computes it);
  // else the value itself
  if (value !== null && typeof value === "object" && "times_row" in value) {
    const [a, b] = value.times_row.map(decoded);
    return b.map((row) => row.map((x, d) => Math.fround(x * a[q][d])));
  }
  if (value === null || typeof value !== "object" || !("row" in value)) return value;
  const rows = value.row;
  return Array.isArray(rows) ? rows[q] : decoded(rows)[q];
}

function plot(key) {
  // Streamlit's class for a widget key: every character but letters, digits, _ and - becomes -
  const name = key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");
  return document.querySelector(`.st-key-${name} .js-plotly-plot`);
}

function scopeOf(key) {
  return (current.figures[key] && current.figures[key].scope) || current.scope;
}

function project(sel, key) {
  // the selection `sel` ("2,5") as figure `key` sees it: its own dims only ("2"), else all of it
  const dims = current.figures[key] && current.figures[key].dims;
  if (!dims) return sel;
  const values = sel.split(",");
  return dims.map((dim) => values[current.dims.indexOf(dim)]).join(",");
}

function selection(data, early = {}) {
  // the sliders' values (0-based), or the value a key is about to give one (`early`: key -> value)
  const values = data.dims.map((dim) => {
    const key = data.sliders[dim];
    if (key in early) return early[key] - data.offset;
    const input = document.querySelector(`.st-key-${key} input[type=range]`);
    return input ? parseInt(input.value, 10) - data.offset : NaN;
  });
  return values.some(Number.isNaN) ? null : values.join(",");
}

function followed(data, early = {}) {
  // the followed query (0-based) to draw: the select box's choice (or the option a key or a click is
  // about to choose, `early`), else the drawn one (none chosen, or a name being typed); null: none, or
  // all of them
  const query = data.query;
  if (!query) return null;
  let index = early[query.key];
  if (index === undefined) {
    const input = document.querySelector(`.st-key-${query.key} input[role=combobox]`);
    index = input ? query.names.indexOf(input.value) : -1;
  }
  if (index === 0 && query.all) return null;
  return index > 0 ? index - 1 : query.drawn;
}

function frameOf(gd) {
  // the index of the shape that frames the followed query's row, or -1
  return ((gd.layout && gd.layout.shapes) || []).findIndex((shape) => shape.name === FRAME);
}

function follows(key, gd) {
  // whether figure `key` changes with the followed query: a framed row, or changes of its own
  return Boolean(current.query) && (key in current.query.figures || frameOf(gd) >= 0);
}

function changeOf(key, sel) {
  const own = current.changes[project(sel, key)];
  return (own && own[key]) || null;
}

function state(key, gd, sel, q) {
  // what figure `key` shows for selection `sel` and followed query `q`, as a string
  const own = changeOf(key, current.drawn) ? project(sel, key) : "";
  return follows(key, gd) ? `${own}|${q}` : own;
}

function next(input, key) {
  // the value a slider takes for an arrow, Home or End key (as the slider itself steps), else null
  const [value, min, max] = ["value", "min", "max"].map((a) => parseInt(input[a], 10));
  const step = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[key];
  if (step !== undefined) return Math.min(max, Math.max(min, value + step));
  return key === "Home" ? min : key === "End" ? max : null;
}

function themed(drawn, text) {
  // a new title wrapped in the bold tags Streamlit's chart theme put around the drawn one
  const open = ((drawn || "").match(/^(?:<b>)*/) || [""])[0];
  return open + text + open.replace(/<b>/g, "</b>");
}

function needs(key, gd, sel, q) {
  // whether figure `key` (its plot `gd`) should change to show selection `sel` and followed query `q`
  if (!gd.layout || gd.layout.uirevision !== scopeOf(key)) return false;
  if (!changeOf(key, sel) && !follows(key, gd)) return false;
  const drawn = state(key, gd, current.drawn, current.query ? current.query.drawn : null);
  return (gd.__atlasShown ?? drawn) !== state(key, gd, sel, q);
}

function apply(key, gd, sel, q) {
  const change = changeOf(key, sel);
  const shown = state(key, gd, sel, q);
  const drawn = state(key, gd, current.drawn, current.query ? current.query.drawn : null);
  const [wasOwn, wasQuery] = (gd.__atlasShown ?? drawn).split("|");
  const [own, query] = shown.split("|");
  const done = () => {
    gd.__atlasData = gd.data;
    gd.__atlasBusy = false;
    gd.dataset.atlasShown = shown;
  };
  const byQuery = current.query && (current.query.figures[key] || {}).by_query;
  if (byQuery && (own !== wasOwn || query !== wasQuery)) {
    // a figure whose traces depend on the query: the drawn selection's for another query, or another
    // selection's for the drawn query; other pairs are not here, and wait for the rerun
    const other = own === drawn.split("|")[0] ? byQuery[JSON.stringify(q)] : null;
    if (!other && (q !== current.query.drawn || !change)) return Promise.resolve(false);
    if (other) {
      gd.__atlasShown = shown;
      gd.__atlasBusy = true;
      return window.Plotly.react(gd, other.data, { ...gd.layout, ...other.layout }).then(done);
    }
  }
  gd.__atlasShown = shown;
  gd.__atlasBusy = true; // its own redraw is not the server's (plotly_afterplot below)
  if (change && !Array.isArray(change)) {
    // a figure drawn anew (its traces depend on the numbers), in the theme of the one it replaces
    const { data, layout } = change.figure;
    const title = { ...layout.title, text: themed(gd.layout.title && gd.layout.title.text, layout.title.text) };
    return window.Plotly.react(gd, data, { ...layout, title, template: gd.layout.template }).then(done);
  }
  // what moved, as one update: the selection's change (its rows follow the query too, where it has
  // changes of its own for the query), and the followed query's
  const moved = query !== wasQuery && (q !== null || current.query.all);
  const ownRows = moved && key in current.query.figures;
  const update = {};
  const relayout = {};
  for (const part of [own !== wasOwn || ownRows ? change : null, ownRows ? current.query.figures[key] : null]) {
    if (!part) continue;
    const [data, layout] = part;
    for (const [name, values] of Object.entries(data)) update[name] = values.map((v) => decoded(picked(v, q)));
    for (const [name, value] of Object.entries(layout)) relayout[name] = picked(value, q);
  }
  if ("title.text" in relayout) relayout["title.text"] = themed(gd.layout.title && gd.layout.title.text, relayout["title.text"]);
  // the whole list of shapes: Plotly redraws only the shapes then (an edit of one shape's y0 recomputes
  // the figure, 80 ms for Q, K and V against 2)
  const frame = moved ? frameOf(gd) : -1;
  if (frame >= 0) relayout.shapes = gd.layout.shapes.map((s, i) => (i === frame ? { ...s, y0: q - 0.5, y1: q + 0.5 } : s));
  if (!Object.keys(update).length) return window.Plotly.relayout(gd, relayout).then(done);
  return window.Plotly.update(gd, update, relayout).then(done);
}

function inView(gd) {
  const r = gd.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.height > 0;
}

let wanted = null; // the selection last asked for: work left for an older one is dropped
let tookFor = { asked: null, took: {} }; // figure key -> ms its change took, for the selection last asked

async function applyAll(early = {}) {
  // the figures in view first, then the others one by one (each in a frame of its own)
  if (!current || !window.Plotly) return;
  const sel = selection(current, early);
  if (sel === null) return;
  const q = followed(current, early);
  const started = performance.now();
  const todo = [];
  for (const key of Object.keys(current.figures)) {
    const gd = plot(key);
    if (!gd) continue;
    hook(key, gd);
    if (needs(key, gd, sel, q)) todo.push([key, gd]);
  }
  if (!todo.length) return; // nothing to change
  const asked = (wanted = `${sel}|${q}`);
  const first = todo.filter(([, gd]) => inView(gd));
  // figure key -> ms its change took (bench/switch.py reports them), shared by every pass for the same
  // selection (a slider's key and its new value both start one)
  if (tookFor.asked !== asked) tookFor = { asked, took: {} };
  const { took } = tookFor;
  const timed = async (key, gd) => {
    const t0 = performance.now();
    if ((await apply(key, gd, sel, q)) !== false) took[key] = performance.now() - t0;
  };
  await Promise.all(first.map(([key, gd]) => timed(key, gd)));
  const visible = performance.now();
  for (const [key, gd] of todo.filter((item) => !first.includes(item))) {
    await new Promise(requestAnimationFrame);
    if (wanted !== asked) return;
    if (needs(key, gd, sel, q)) await timed(key, gd);
  }
  document.body.dataset.atlasLive = sel;
  // the first drawing of a new selection (drawn again after the rerun, it keeps its first time)
  const last = window.atlasLiveDrawn;
  if (!last || last.sel !== sel || last.query !== q)
    window.atlasLiveDrawn = { sel, query: q, started, visible, drawn: performance.now(), took };
}

function panelsOf(gd) {
  // a heads grid's panels (viz/grids.py panels_meta): where each head lies in its one matrix, else null
  return (gd.layout && gd.layout.meta && gd.layout.meta.panels) || null;
}

function inPanel(panels, i, j) {
  // the hovered cell (row i, column j of the one matrix) as [query, key] of its panel; nulls in a gap
  if (!panels || i === null) return [i, j];
  const [q, k] = [i % panels.step[0], j % panels.step[1]];
  return q < panels.size[0] && k < panels.size[1] ? [q, k] : [null, null];
}

function litShapes(role, at, panels) {
  // the shapes that light `role`'s row and column of the hovered tokens `at`: across the plot, or
  // across each head's panel of a heads grid
  const row = role.rows ? at[role.rows] : null;
  const col = role.cols ? at[role.cols] : null;
  const has = (v) => v !== null && v !== undefined;
  const style = { name: HOVER, type: "rect", line: { color: "#111", width: 2 }, fillcolor: "rgba(0,0,0,0.08)" };
  const out = [];
  if (!panels) {
    if (has(row) && role.y)
      out.push({ ...style, xref: `${role.x} domain`, x0: 0, x1: 1, yref: role.y, y0: row - 0.5, y1: row + 0.5 });
    if (has(col))
      out.push({ ...style, xref: role.x, x0: col - 0.5, x1: col + 0.5, yref: `${role.y} domain`, y0: 0, y1: 1 });
    return out;
  }
  const [[nq, nk], [sy, sx], cols] = [panels.size, panels.step, panels.grid[1]];
  const box = (x0, x1, y0, y1) => ({ ...style, xref: role.x, x0, x1, yref: role.y, y0, y1 });
  panels.heads.forEach((_, h) => {
    const [top, left] = [Math.floor(h / cols) * sy, (h % cols) * sx];
    if (has(row)) out.push(box(left - 0.5, left + nk - 0.5, top + row - 0.5, top + row + 0.5));
    if (has(col)) out.push(box(left + col - 0.5, left + col + 0.5, top - 0.5, top + nq - 0.5));
  });
  return out;
}

let lit = null; // the hovered cell last asked for

async function highlight(at) {
  // over every figure, the rows and columns of the hovered cell's tokens (`at`: role name -> index, e.g.
  // {query: 2, key: 5}): those in view first
  const asked = (lit = JSON.stringify(at));
  const started = performance.now();
  const todo = [];
  for (const [name, figure] of Object.entries(current.figures)) {
    const gd = plot(name);
    if (!gd || !gd.layout || gd.layout.uirevision !== scopeOf(name)) continue;
    const shapes = (gd.layout.shapes || []).filter((s) => s.name !== HOVER);
    for (const role of figure.roles) shapes.push(...litShapes(role, at, panelsOf(gd)));
    todo.push([gd, shapes]);
  }
  const first = todo.filter(([gd]) => inView(gd));
  await Promise.all(first.map(([gd, shapes]) => window.Plotly.relayout(gd, { shapes })));
  const visible = performance.now();
  for (const [gd, shapes] of todo.filter((item) => !first.includes(item))) {
    await new Promise(requestAnimationFrame);
    if (lit !== asked) return;
    await window.Plotly.relayout(gd, { shapes });
  }
  window.atlasLiveHover = { query: at.query ?? null, key: at.key ?? null, ...at, started, visible,
    drawn: performance.now() };
}

function hook(key, gd) {
  if (gd.__atlasHooked) return;
  gd.__atlasHooked = true;
  gd.on("plotly_afterplot", () => {
    if (gd.__atlasBusy || gd.__atlasData === gd.data) return; // our own update
    gd.__atlasShown = null; // the server drew it again: it shows current.drawn
    gd.__atlasData = gd.data;
    const sel = current && selection(current);
    const q = current && followed(current);
    if (sel !== null && needs(key, gd, sel, q)) apply(key, gd, sel, q);
  });
  gd.on("plotly_hover", (event) => {
    const figure = current && current.figures[key];
    const point = event.points && event.points[0];
    if (!figure || !point) return;
    const role = figure.roles[point.curveNumber] || {};
    const cell = Array.isArray(point.pointNumber) ? point.pointNumber : [null, point.pointNumber];
    const [i, j] = inPanel(panelsOf(gd), ...cell);
    const at = {};
    if (lights(role.rows)) at[role.rows] = i;
    if (lights(role.cols)) at[role.cols] = j;
    highlight(at);
  });
  gd.on("plotly_unhover", () => current && highlight({}));
}

function watch() {
  // a slider's value (the arrow keys, a drag, a new page state) and figures mounted by a rerun
  let pending = false;
  const observer = new MutationObserver((mutations) => {
    const moved = mutations.some((m) => m.type === "attributes" && m.target.matches("input[type=range]"));
    if (moved) applyAll();
    else if (!pending) {
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        applyAll();
      });
    }
  });
  observer.observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["value", "aria-valuetext"],
  });
  // the value as the key goes down, before React re-renders the slider
  document.addEventListener("input", (event) => event.target.matches("input[type=range]") && applyAll(), true);
  // a key on a slider: drawn at once, without waiting for the slider to show its new value; Enter on
  // the followed query's select box: the option it is about to choose
  document.addEventListener("keydown", (event) => {
    window.atlasLiveKey = performance.now();
    const input = event.target;
    if (event.key === "Enter" && queryBox() === input) {
      const id = input.getAttribute("aria-activedescendant");
      return choose(id && document.getElementById(id));
    }
    if (!current || !input.matches || !input.matches("input[type=range]")) return;
    const key = Object.values(current.sliders).find((k) => input.closest(`.st-key-${k}`));
    const value = key && next(input, event.key);
    if (value !== null && value !== undefined) applyAll({ [key]: value });
  }, true);
  // a click on one of the select box's options: drawn before the box closes
  document.addEventListener("pointerup", (event) => {
    window.atlasLiveKey = performance.now();
    const option = event.target.closest && event.target.closest("[role=option]");
    const list = option && option.closest("[role=listbox]");
    const input = queryBox();
    if (list && input && input.getAttribute("aria-controls") === list.id) choose(option);
  }, true);
}

function queryBox() {
  // the followed query's select box (its text input), or null
  return current && current.query && document.querySelector(`.st-key-${current.query.key} input[role=combobox]`);
}

function choose(option) {
  // draw the query of a select box option (an element with its name), at once
  const index = option ? current.query.names.indexOf(option.textContent.trim()) : -1;
  if (index >= 0) applyAll({ [current.query.key]: index });
}

export default function (component) {
  current = component.data;
  if (!hooked) {
    hooked = true;
    watch();
  }
  applyAll();
}
