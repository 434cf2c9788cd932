// An element's computations: when and where (updates.js: at once when small, after the next
// paint when larger, in the engine's Web Worker from WORKER_CELLS attention cells), into the
// arrays of its results no longer in use (buffers.js), with the before/after comparison's
// Before (full mode). element.js shows what they give.
//
// host: {
//   state()                      the state to compute;
//   engine()                     the engine, loaded;
//   comparing()                  whether the comparison is shown (full mode);
//   live()                       the results in use (the one on screen, its Before);
//   resultState()                the state of the result on screen;
//   take(state, result, before)  a result to show, with its Before ({result, changes}) or null;
//   failed(error)                the engine's refusal of the state;
//   computed()                   the newest edit's result (or its error) is on screen;
//   waiting()                    a computation has started: the steps keep the last result.
// }

import { engineInput, optionChanges } from '../engine/variant.js';
import { COMPARED } from '../state/options.js';
import { Updates } from '../engine/updates.js';
import { readState } from '../state/model.js';
import { ResultBuffers } from './buffers.js';

// Heads × queries × keys: the size of a computation (updates.js).
function attentionCells(state) {
  const keys = state.context ? state.context.tokens.length : state.tokens.length;
  return state.heads.length * state.tokens.length * keys;
}

export class Computation {
  constructor(host) {
    this.host = host;
    this.buffers = new ResultBuffers(host.live);
    // The before/after comparison (full mode): the compared options (scale,
    // temperature, masks) before the latest change, or null.
    this.compareBase = null;
    this.compareOption = null;
    this.updates = new Updates({
      cells: () => attentionCells(host.state()),
      here: () => {
        this.computeHere();
        host.computed();
        this.buffers.giveBack(null); // the worker's results left are garbage now, or it broke
      },
      start: (engine) => {
        this.buffers.giveBack(engine);
        const state = host.state();
        const { matrices, options } = readState(state);
        const base = this.comparisonBase(options);
        const main = this.buffers.inWorker(engine, engineInput(matrices, options));
        const before = base && this.buffers.inWorker(engine, engineInput(matrices, base)).then(
          (result) => ({ result, changes: optionChanges(base, options) }),
          () => {
            this.compareBase = null; // no comparison then, as in computeHere()
            return null;
          },
        );
        return Promise.all([main, before]).then(([result, compared]) => () => host.take(state, result, compared));
      },
      waiting: () => host.waiting(),
      failed: (error) => host.failed(error),
      done: (engine) => {
        host.computed();
        this.buffers.giveBack(engine);
      },
    });
  }

  get running() {
    return this.updates.running;
  }

  // Computed now (updates.js update) or after the next paint, a burst of edits once (schedule).
  update() {
    this.updates.update();
  }

  schedule() {
    this.updates.schedule();
  }

  computeHere() {
    const host = this.host;
    const state = host.state();
    const { matrices, options } = readState(state);
    // the results in use are never written (buffers.js): the one on screen,
    // its Before, and while the Before is computed, the new result
    const compute = (opts, also) => this.buffers.here(host.engine(), engineInput(matrices, opts), also);
    let result;
    try {
      result = compute(options);
    } catch (error) {
      host.failed(error);
      return;
    }
    const base = this.comparisonBase(options);
    let before = null;
    if (base) {
      try {
        before = { result: compute(base, [result]), changes: optionChanges(base, options) };
      } catch {
        this.compareBase = null; // e.g. overflow without the scaling: no comparison then
      }
    }
    host.take(state, result, before);
  }

  // The options compared with the current ones (full mode), or null.
  comparisonBase(options) {
    if (!this.host.comparing() || !this.compareBase) return null;
    const base = { ...options, ...this.compareBase };
    if (base.keyPadding.length !== options.keyPadding.length) {
      this.compareBase = null; // the keys changed: the old padding no longer applies
      return null;
    }
    return optionChanges(base, options).length > 0 ? base : null;
  }

  // Called before an option changes in the editor: the before/after comparison is the full
  // mode's; cross-attention changes the keys (no comparison then).
  optionChanged(key) {
    if (!this.host.comparing()) return;
    if (key === 'cross') this.compareBase = null; // the keys change
    else this.noteComparedChange(key);
  }

  // Called before a compared option changes: the settings so far become "before",
  // unless the same control is still being changed (typing a temperature).
  noteComparedChange(option) {
    const resultState = this.host.resultState();
    if (!resultState || (this.compareBase && this.compareOption === option)) return;
    const { options } = readState(resultState);
    this.compareBase = Object.fromEntries(COMPARED.map((key) => [key, options[key]]));
    this.compareOption = option;
  }
}
