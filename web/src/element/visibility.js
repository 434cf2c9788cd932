// Many elements on a page (issue 32 item 14): an element stays light (no steps drawn, no
// engine loaded, nothing computed) until it comes near the viewport, a script asks for it
// (ready, state, load(), result…: element.js wakes it) or the page is printed. Started
// elements take turns, one a task, so that 50 of them never make one long task; every element
// shares the one engine (createAttentionEngine() caches it) and the one worker (updates.js).

// "Near": within one and a half viewports above or below (and one beside, for a row of them).
const MARGIN = '150% 100%';

const starts = new Map(); // element → its start(), until it is started
const asked = new WeakSet(); // elements woken before they waited (not connected yet): started when they are
let observer = null;

// start() is called once: when `element` comes near, or is woken first. Where there is no
// IntersectionObserver, or a script asked for the element already, at once.
export function whenNear(element, start) {
  if (starts.has(element)) return;
  if (typeof IntersectionObserver === 'undefined' || asked.has(element)) {
    start();
    return;
  }
  starts.set(element, start);
  observer ||= new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) inTurn(() => wake(entry.target));
  }, { rootMargin: MARGIN });
  observer.observe(element);
}

// Starts `element` now if it is still waiting (a script asked for it).
export function wake(element) {
  const start = starts.get(element);
  if (!start) {
    asked.add(element);
    return;
  }
  starts.delete(element);
  observer.unobserve(element);
  start();
}

// An element taken off the page before it started is no longer watched (nor kept).
export function forget(element) {
  if (!starts.delete(element)) return;
  observer.unobserve(element);
}

// The printed page shows every element.
if (typeof window !== 'undefined') window.addEventListener('beforeprint', () => [...starts.keys()].forEach(wake));

// ---- the shared engine, its loaded instance kept for the callers that need it at once ----

let engine = null;
let loading = null;

// Calls ready(engine) (or failed(error)): at once when the engine is loaded, else in a task of
// its own once it is (each element's first compute is its own task, not one for them all).
export function withEngine(ready, failed) {
  if (engine) {
    ready(engine);
    return;
  }
  if (!loading) {
    const create = globalThis.createAttentionEngine;
    // missing: a page or bundle with the element's code but without the engine's
    const missing = Object.assign(new Error('createAttentionEngine is missing'), { code: 'missing' });
    loading = typeof create === 'function' ? create() : Promise.reject(missing);
    loading.then((loaded) => {
      engine = loaded;
    }, () => {
      loading = null; // a later element may try again (createAttentionEngine() does)
    });
  }
  loading.then((loaded) => inTurn(() => ready(loaded)), (error) => inTurn(() => failed(error)));
}

// ---- turns: queued work, one piece a task ----

const turns = [];
// made at the first turn, not on import: an open port keeps node's event loop alive, so a
// static-site build that imports the element (its server render) would never exit
let channel = null;

function inTurn(fn) {
  turns.push(fn);
  if (turns.length === 1) next();
}

// (a message, not setTimeout: nested timeouts are held to 4 ms each)
function next() {
  if (typeof MessageChannel === 'undefined') {
    setTimeout(takeTurn, 0);
    return;
  }
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => takeTurn();
  }
  channel.port2.postMessage(null);
}

function takeTurn() {
  const fn = turns.shift();
  try {
    fn();
  } finally {
    if (turns.length > 0) next();
  }
}
