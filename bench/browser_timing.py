"""In-page timing of a key press in headless Chromium, on the page's own clock (bench/app.py,
bench/switch.py)."""

# Watches one key press in the page, on the page's own clock: when the rerun it starts has finished,
# and when anything in the main area last changed (a figure drawn again adds and removes nodes).
WATCH_JS = """() => {
  const w = window.__atlasWatch = {t0: null, finished: null, last: null, app: null};
  document.addEventListener('keydown', () => { w.t0 = performance.now(); }, {capture: true, once: true});
  const app = w.app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]') || app;
  w.observers = [
    new MutationObserver(() => {
      if (app.getAttribute('data-test-script-state') === 'notRunning') w.finished = performance.now();
    }),
    new MutationObserver(() => { w.last = performance.now(); }),
  ];
  w.observers[0].observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  w.observers[1].observe(main, {childList: true, subtree: true});
}"""
# Idle: the page shows the rerun's output (called once the first figure changed), no rerun is
# running, and nothing changed for `quiet` ms. A quick rerun may never show the "running" state at
# all: its end is then the last change it made.
SETTLED_JS = """(quiet) => {
  const w = window.__atlasWatch;
  return w.app.getAttribute('data-test-script-state') === 'notRunning'
    && performance.now() - Math.max(w.finished || 0, w.last || 0) > quiet;
}"""
IDLE_MS_JS = """() => {
  const w = window.__atlasWatch;
  w.observers.forEach(o => o.disconnect());
  return Math.max(w.finished || 0, w.last || 0) - w.t0;
}"""
QUIET_MS = 300
