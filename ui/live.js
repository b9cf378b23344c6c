// Layers, heads and hovered tokens switched in the browser (a Streamlit v2 component, no build step).
//
// The page draws its figures as usual and mounts this once, with `data`:
//   scope    the figures' layout.uirevision: only figures of this sentence and view are changed
//   dims     the slider dimensions, e.g. ["layer", "head"]; sliders: dimension -> Streamlit widget key
//   offset   0 or 1: what the sliders show for layer 0 / head 0
//   drawn    the selection the server drew, e.g. "2,5" (layer 2, head 5; 0-based)
//   figures  figure key -> {roles: one per trace, {rows, cols, x, y}: what its rows and columns are}
//   changes  selection -> figure key -> [data, layout], the arguments of Plotly.update (viz/live.py),
//            or {figure}: a whole figure to draw instead (its traces depend on the numbers)
// When a slider moves (arrow key or pointer), every figure is updated here at once; Streamlit reruns the
// script afterwards only to keep the URL and the other pages in step, and redraws the same picture.
// Hovering a cell lights its query row and key column in every figure of the page.

const HOVER = "atlas-hover";
let current = null; // the latest data
let hooked = false;

function decoded(value) {
  // {shape, f4}: float32 in base64 -> rows of a matrix (Plotly takes typed rows), else unchanged
  if (value === null || typeof value !== "object" || !("f4" in value)) return value;
  const bytes = Uint8Array.from(atob(value.f4), (c) => c.charCodeAt(0));
  const flat = new Float32Array(bytes.buffer);
  const [rows, cols] = value.shape;
  return Array.from({ length: rows }, (_, i) => flat.subarray(i * cols, (i + 1) * cols));
}

function plot(key) {
  return document.querySelector(`.st-key-${key} .js-plotly-plot`);
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

function needs(key, gd, sel) {
  // whether figure `key` (its plot `gd`) should change to show selection `sel`
  const change = current.changes[sel] && current.changes[sel][key];
  if (!change || !gd.layout || gd.layout.uirevision !== current.scope) return false;
  return (gd.__atlasShown ?? current.drawn) !== sel;
}

function apply(key, gd, sel) {
  const change = current.changes[sel][key];
  const done = () => {
    gd.__atlasData = gd.data;
    gd.__atlasBusy = false;
    gd.dataset.atlasShown = sel;
  };
  gd.__atlasShown = sel;
  gd.__atlasBusy = true; // its own redraw is not the server's (plotly_afterplot below)
  if (!Array.isArray(change)) {
    // a figure drawn anew (its traces depend on the numbers), in the theme of the one it replaces
    const { data, layout } = change.figure;
    const title = { ...layout.title, text: themed(gd.layout.title && gd.layout.title.text, layout.title.text) };
    return window.Plotly.react(gd, data, { ...layout, title, template: gd.layout.template }).then(done);
  }
  const [data, layout] = change;
  const update = {};
  for (const [name, values] of Object.entries(data)) update[name] = values.map(decoded);
  const relayout = { ...layout };
  if ("title.text" in layout) relayout["title.text"] = themed(gd.layout.title && gd.layout.title.text, layout["title.text"]);
  return window.Plotly.update(gd, update, relayout).then(done);
}

function inView(gd) {
  const r = gd.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.height > 0;
}

let wanted = null; // the selection last asked for: work left for an older one is dropped

async function applyAll(early = {}) {
  // the figures in view first, then the others one by one (each in a frame of its own)
  if (!current || !window.Plotly) return;
  const sel = selection(current, early);
  if (sel === null) return;
  const started = performance.now();
  const todo = [];
  for (const key of Object.keys(current.figures)) {
    const gd = plot(key);
    if (!gd) continue;
    hook(key, gd);
    if (needs(key, gd, sel)) todo.push([key, gd]);
  }
  if (!todo.length) return; // nothing to change
  wanted = sel;
  const first = todo.filter(([, gd]) => inView(gd));
  await Promise.all(first.map(([key, gd]) => apply(key, gd, sel)));
  const visible = performance.now();
  for (const [key, gd] of todo.filter((item) => !first.includes(item))) {
    await new Promise(requestAnimationFrame);
    if (wanted !== sel) return;
    if (needs(key, gd, sel)) await apply(key, gd, sel);
  }
  document.body.dataset.atlasLive = sel;
  // the first drawing of a new selection (drawn again after the rerun, it keeps its first time)
  if (!window.atlasLiveDrawn || window.atlasLiveDrawn.sel !== sel)
    window.atlasLiveDrawn = { sel, started, visible, drawn: performance.now() };
}

let lit = null; // the hovered cell last asked for

async function highlight(query, key) {
  // over every figure, the hovered query's row and the hovered key's row or column: those in view first
  const asked = (lit = `${query},${key}`);
  const started = performance.now();
  const todo = [];
  for (const [name, figure] of Object.entries(current.figures)) {
    const gd = plot(name);
    if (!gd || !gd.layout || gd.layout.uirevision !== current.scope) continue;
    const shapes = (gd.layout.shapes || []).filter((s) => s.name !== HOVER);
    for (const role of figure.roles) {
      const row = role.rows === "query" ? query : role.rows === "key" ? key : null;
      const col = role.cols === "key" ? key : null;
      const style = { name: HOVER, type: "rect", line: { color: "#111", width: 2 }, fillcolor: "rgba(0,0,0,0.08)" };
      if (row !== null && row !== undefined && role.y)
        shapes.push({ ...style, xref: `${role.x} domain`, x0: 0, x1: 1, yref: role.y, y0: row - 0.5, y1: row + 0.5 });
      if (col !== null && col !== undefined)
        shapes.push({ ...style, xref: role.x, x0: col - 0.5, x1: col + 0.5, yref: `${role.y} domain`, y0: 0, y1: 1 });
    }
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
  window.atlasLiveHover = { query, key, started, visible, drawn: performance.now() };
}

function hook(key, gd) {
  if (gd.__atlasHooked) return;
  gd.__atlasHooked = true;
  gd.on("plotly_afterplot", () => {
    if (gd.__atlasBusy || gd.__atlasData === gd.data) return; // our own update
    gd.__atlasShown = null; // the server drew it again: it shows current.drawn
    gd.__atlasData = gd.data;
    const sel = current && selection(current);
    if (sel !== null && needs(key, gd, sel)) apply(key, gd, sel);
  });
  gd.on("plotly_hover", (event) => {
    const figure = current && current.figures[key];
    const point = event.points && event.points[0];
    if (!figure || !point) return;
    const role = figure.roles[point.curveNumber] || {};
    const [i, j] = Array.isArray(point.pointNumber) ? point.pointNumber : [null, point.pointNumber];
    const query = role.rows === "query" ? i : null;
    const keyIndex = role.rows === "key" ? i : role.cols === "key" ? j : null;
    highlight(query, keyIndex);
  });
  gd.on("plotly_unhover", () => current && highlight(null, null));
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
  // a key on a slider: drawn at once, without waiting for the slider to show its new value
  document.addEventListener("keydown", (event) => {
    window.atlasLiveKey = performance.now();
    const input = event.target;
    if (!current || !input.matches || !input.matches("input[type=range]")) return;
    const key = Object.values(current.sliders).find((k) => input.closest(`.st-key-${k}`));
    const value = key && next(input, event.key);
    if (value !== null && value !== undefined) applyAll({ [key]: value });
  }, true);
}

export default function (component) {
  current = component.data;
  if (!hooked) {
    hooked = true;
    watch();
  }
  applyAll();
}
