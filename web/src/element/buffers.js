// The arrays of the results an element computes (updates.js): those computed on this thread
// are written into the arrays of its results no longer in use (ResultArrays), those the
// worker computed are given back to it once off screen (WorkerResults), so that edit after
// edit allocates nothing new. live(): the results in use (the one on screen, its Before).

import { ResultArrays, WorkerResults, WORKER_CELLS } from '../engine/updates.js';
import { plainResult, typedResult, resultRowViews } from '../engine/rows.js';

export class ResultBuffers {
  constructor(live) {
    this.live = live;
    this.arrays = new ResultArrays(); // the arrays of the results computed on this thread
    this.workerResults = new WorkerResults(); // and of those the worker computed
  }

  // The engine's result for `input`, computed here, in arrays of none of the results in
  // use nor of `also` (a result made just before, still to be shown).
  here(engine, input, also = []) {
    return this.arrays.resultOf(engine.compute(input, { typed: true, reuse: true }), [...this.live(), ...also]);
  }

  // The engine's result for `input`, computed in the worker: a promise of its row views.
  inWorker(engine, input) {
    return engine.compute(input).then((typed) => this.workerResults.rowsOf(typed));
  }

  // The worker's results no longer in use go back to it; with no engine (computed on this
  // thread now: they are garbage, or the worker broke) they are only forgotten.
  giveBack(engine) {
    this.workerResults.giveBack(engine, this.live());
  }
}

// A copy of a result (the element's `result` property): matrices as arrays of rows of numbers
// (masks of booleans); from WORKER_CELLS attention cells on, each row a Float64Array instead
// (masks' rows and fullyMasked Uint8Array, 1 = masked).
export function resultCopy(result) {
  const { heads } = result;
  return heads.length * heads[0].weights.length * heads[0].weights[0].length >= WORKER_CELLS
    ? resultRowViews(typedResult(result, { copy: true })) : plainResult(result);
}
