// When and where a recompute runs, for the page (main.js) and every
// <attention-visualizer> (element.js) alike, by the size of the input in
// attention cells (heads × queries × keys):
//   - up to COALESCE_CELLS, at once (well within a frame);
//   - above it, after the next paint: the edit shows first, and a burst of
//     edits costs one recompute with the latest input;
//   - from WORKER_CELLS (n ≈ 1024 and more; a second or more at n = 4096), in
//     the engine's Web Worker, so that the page never waits for it. One
//     computation runs at a time; edits made meanwhile wait as one, and the
//     result they make stale is dropped unseen. Where no worker can start (a
//     CSP without worker-src blob:, Trusted Types, no Worker) or it breaks, the
//     computation runs on the page's thread, after a PAUSE_MS pause in edits.
// Results come in the engine's typed form, seen as rows of views (rows.js):
// no arrays of rows are built from 2^25 numbers.

import { normalizeResult } from './variant.js';
import { resultRowViews, isHeld } from './rows.js';
import { HEATMAP_PIXELS } from '../ui/limits.js';
import { afterFrame } from '../ui/dom.js';

export const COALESCE_CELLS = 128 * 128;
export const WORKER_CELLS = 1024 * 1024;
const PAUSE_MS = 300;

// A compute(input, { typed: true }) result, normalised (variant.js), its matrices as row views
// (made when first read: normalised first, which reads every matrix of a single head).
export const rowsOf = (typed) => resultRowViews(normalizeResult(typed));

// Results computed on the page's thread come from the engine's reused arrays
// (compute(input, { typed: true, reuse: true }): views of its memory, valid
// until its next call) and are copied at once into the arrays of an earlier
// result of the same sizes that is no longer in use. A fresh Float64Array a
// matrix (seven of them, 2 MB each at n = 512) cost an edit ~6 ms of page
// faults and ~3 ms more of garbage collection. An earlier result's arrays are
// written again only when it is not `live` (the caller's: the result on
// screen, the comparison's Before, a result about to be) and no export is
// reading them (holdRows). A result with a side over HEATMAP_PIXELS keeps its
// arrays: its heatmaps are painted in slices, over tasks (views/heatmap.js).
const KEPT = 4; // results remembered: a result and its Before on screen, two to write again

export class ResultArrays {
  constructor() {
    this.made = []; // [{result: what resultOf() gave, arrays: its typed arrays}], oldest first
  }

  // rowsOf(a copy of the engine's reused result `views`), in the arrays of made
  // results outside `live` (results as resultOf() gave them) where their lengths fit.
  resultOf(views, live) {
    const free = new Map(); // `${type} ${length}` → arrays
    for (const entry of this.made) {
      if (live.includes(entry.result) || entry.arrays.some((array) => isHeld(array.buffer))) continue;
      for (const array of entry.arrays) {
        const key = `${array.constructor.name} ${array.length}`;
        if (!free.has(key)) free.set(key, []);
        free.get(key).push(array);
      }
    }
    const arrays = [];
    let recyclable = true;
    const copyOf = (view) => {
      const array = free.get(`${view.constructor.name} ${view.length}`)?.pop() || new view.constructor(view.length);
      array.set(view);
      arrays.push(array);
      return array;
    };
    const copied = new Map(); // a matrix met twice gets the same copy
    const walk = (part) => {
      const out = {};
      for (const [key, value] of Object.entries(part)) {
        if (key === 'heads') out.heads = value.map(walk);
        else if (ArrayBuffer.isView(value)) out[key] = copyOf(value); // fullyMasked
        else if (value !== null && typeof value === 'object' && ArrayBuffer.isView(value.data)) {
          if (!copied.has(value)) {
            copied.set(value, { rows: value.rows, cols: value.cols, data: copyOf(value.data) });
            if (value.rows > HEATMAP_PIXELS || value.cols > HEATMAP_PIXELS) recyclable = false;
          }
          out[key] = copied.get(value);
        } else out[key] = value;
      }
      return out;
    };
    const result = rowsOf(walk(views));
    // a made result some of whose arrays were taken is forgotten (the rest are garbage)
    const taken = new Set(arrays);
    const kept = this.made.filter((entry) => !entry.arrays.some((array) => taken.has(array)));
    this.made = [...kept, ...(recyclable ? [{ result, arrays }] : [])].slice(-KEPT);
    return result;
  }
}

// Results computed in the worker arrive in fresh buffers (some 400 MB at
// n = 4096, and as much again for a comparison's Before). Left to the page's
// garbage collector, each recompute cost a major collection in the render after
// it (5–30 ms of a task). Instead, a result the page no longer reads is given
// back to the worker (worker.recycle), which writes later results into its
// buffers: a result not `live` (the result on screen, its Before) whose arrays
// no export or painting holds (holdRows). Given back after each result is
// taken and before each computation starts, so that what was held then goes later.
export class WorkerResults {
  constructor() {
    this.typed = new Map(); // row views (rowsOf) → the typed result they were made of, until given back
  }

  rowsOf(typed) {
    const rows = rowsOf(typed);
    this.typed.set(rows, typed);
    return rows;
  }

  // Gives back every result of the worker but `live` (row views) that nothing holds; with no
  // worker (it broke: results come from this thread from now on), only forgets them.
  giveBack(worker, live) {
    for (const [rows, typed] of this.typed) {
      if (live.includes(rows)) continue;
      if (worker && matricesOf(typed).some((matrix) => isHeld(matrix.data.buffer))) continue;
      if (worker) worker.recycle(typed);
      this.typed.delete(rows);
    }
  }
}

// A typed result's matrices ({rows, cols, data}), heads' too.
const matricesOf = (typed) => [typed, ...(typed.heads || [])].flatMap((part) => Object.values(part))
  .filter((value) => value !== null && typeof value === 'object' && ArrayBuffer.isView(value.data));

// The engine's worker, one for the page and all its elements, started when
// first needed; null where none can start, or once it broke. Also what "How it
// learns" trains its model from scratch in (views/learninduction.js).
let worker;
export function backgroundEngine() {
  if (worker === undefined) {
    try {
      worker = globalThis.createAttentionEngine.startWorker();
    } catch {
      worker = null;
    }
  }
  return worker;
}

// host: {
//   cells()         the attention cells of the current input;
//   here()          computes on this thread and renders;
//   start(engine)   starts the computation on the worker's engine: a promise of
//                   what to do with its result (a function, called only if no
//                   edit came meanwhile);
//   waiting()       renders while the computation runs (the edit; the steps
//                   keep the last result, marked);
//   failed(error)   an input error the worker's engine threw, for the newest edit;
//   done(engine)    renders after the computation, its result taken or its error noted.
// }
export class Updates {
  constructor(host) {
    this.host = host;
    this.running = false; // a computation in the worker
    this.again = false; // an edit came while it ran
    this.frame = 0;
    this.timer = 0;
  }

  // Recompute now (in the worker above WORKER_CELLS).
  update() {
    this.cancel();
    if (this.host.cells() >= WORKER_CELLS && backgroundEngine()) this.inBackground();
    else this.host.here();
  }

  // An edit asks for an update through here (see the top of this file).
  schedule() {
    const cells = this.host.cells();
    if (cells <= COALESCE_CELLS) {
      this.update();
    } else if (cells >= WORKER_CELLS && !backgroundEngine()) {
      this.cancel();
      this.timer = setTimeout(() => this.update(), PAUSE_MS);
    } else if (!this.frame && !this.timer) {
      this.frame = requestAnimationFrame(() => { this.timer = setTimeout(() => this.update(), 0); });
    }
  }

  // An update still waiting for its frame or pause: the input differs from what was last computed.
  get scheduled() {
    return Boolean(this.frame || this.timer);
  }

  cancel() {
    cancelAnimationFrame(this.frame);
    clearTimeout(this.timer);
    this.frame = 0;
    this.timer = 0;
  }

  // The computation is started in a task of its own: copying the input for the
  // worker (X and C of 4096 × 64, twice with a comparison) takes some 35 ms,
  // and the edit that asked (a click) shows first. It runs from then on: an
  // edit meanwhile is part of the input it starts with.
  inBackground() {
    if (this.running) {
      this.again = true;
      this.host.waiting();
      return;
    }
    this.running = true;
    this.host.waiting();
    setTimeout(() => this.begin(), 0);
  }

  begin() {
    this.again = false; // the latest input is the one started now
    this.host.start(worker).then(
      // Shown in a task after the next frame, not in the task of the worker's message: at
      // n = 4096 the ~400 MB of buffers arriving start a major garbage collection, which
      // ended inside the render (median of the longest task of "2 heads": 36.7 → 27.9 ms
      // CPU, 57 → under 50 ms wall; npm run bench, 3 rounds each).
      (take) => afterFrame().then(() => {
        if (!this.again) take();
      }),
      (error) => {
        if (error.code === 'worker') worker = null; // this thread from now on, for every user
        else if (!this.again) this.host.failed(error);
      },
    ).then(() => {
      this.running = false;
      if (this.again || worker === null) {
        this.again = false;
        this.update(); // the latest input, or the same on this thread
      } else {
        this.host.done(worker);
      }
    });
  }
}
