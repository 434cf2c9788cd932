// One store for the page and the element: the state (schema.js's format: the
// inputs, the options, `learn` and the view {step, head, lang, decimals}) as
// one plain object, replaced (never changed in place) by named actions.
// Subscribers hear once per burst of actions (at the end of the current task,
// or at flush()), with the set of action types. Undo and redo (history.js)
// are part of it: the inputs are recorded once per burst that changed them,
// and a drag (hold) is one entry, recorded when let go.
//
// What is typed but does not read yet (a cell "0,5", a dimension of 0) is not
// state: it stays in the editor (editor.js) with its message, and the store
// keeps the last state that read.

import { History } from './history.js';
import { fitLearn } from './schema.js';

const clampHead = (view, heads) => (view.head < heads ? view : { ...view, head: heads - 1 });

const ACTIONS = {
  // A whole state: a link, a file, a preset, the attributes, the `state` property.
  load: (state, next) => next,
  // New inputs (every field but `view` and `learn`): an edit, a matrix trained or
  // imported. The view stays (its head within the heads); the goal of "How it
  // learns" stays as far as it still applies to the tokens.
  edit: (state, inputs) => {
    const { view, learn } = state;
    const next = { ...inputs, view: clampHead(view, inputs.heads.length) };
    if (learn !== undefined) next.learn = learn;
    else delete next.learn;
    return fitLearn(next);
  },
  // Some of step, head, lang, decimals.
  view: (state, view) => ({ ...state, view: clampHead({ ...state.view, ...view }, state.heads.length) }),
  // The goal of "How it learns" (schema.js `learn`), or null for none.
  learn: (state, learn) => {
    const next = { ...state, learn };
    if (!learn) delete next.learn;
    return learn ? fitLearn(next) : next;
  },
};

export const ACTION_TYPES = Object.keys(ACTIONS);

export class StateStore {
  // state: the first state, or null until the first `load`.
  constructor(state = null) {
    this.state = state;
    this.history = new History();
    this.listeners = new Set();
    this.types = new Set(); // the actions since the last notification
    this.queued = false;
    this.holding = false;
    this.held = false; // inputs changed during a hold, not recorded yet
  }

  // listener(state, types): after every burst of actions. Returns the unsubscribe function.
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // Applies the named action; false (and nothing heard) when it changed nothing.
  dispatch(type, payload) {
    const action = ACTIONS[type];
    if (!action) throw new Error(`Unknown action: ${type}`);
    if (this.state === null && type !== 'load') throw new Error(`No state for ${type} yet`);
    const next = action(this.state, payload);
    if (next === this.state) return false;
    this.state = next;
    this.changed(type);
    return true;
  }

  changed(type) {
    this.types.add(type);
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => this.flush());
  }

  // Tells the subscribers now (a caller that needs the screen to follow at once).
  flush() {
    if (!this.queued) return;
    this.queued = false;
    const types = this.types;
    this.types = new Set();
    // a change of the view alone is no edit (history.js)
    if ([...types].some((type) => type !== 'view' && type !== 'undo' && type !== 'redo' && type !== 'amend')) {
      if (this.holding) this.held = true;
      else this.history.record(this.state);
    }
    for (const listener of [...this.listeners]) listener(this.state, types);
  }

  // The state replaced by what it stands for (a model's matrices, derived from its name and
  // tokens: engine/model-run.js), in the same history entry: undo goes past it, never to it.
  amend(next) {
    const { entries, index } = this.history;
    if (entries[index] === this.state) entries[index] = next;
    this.state = next;
    this.changed('amend');
  }

  // A drag (the temperature slider, a number scrubbed) under way: it changes the
  // state as it goes and becomes one history entry when let go.
  hold(on) {
    this.holding = on;
    if (on || !this.held) return;
    this.held = false;
    this.history.record(this.state);
  }

  // What revert() puts back: the state and the history, before an action that may be refused.
  snapshot() {
    this.flush();
    return { state: this.state, entries: [...this.history.entries], index: this.history.index };
  }

  // Puts back a snapshot, unheard: a state the engine refused at once (the
  // element's `state` property throws then, and nothing changed).
  revert({ state, entries, index }) {
    this.state = state;
    this.history.entries = entries;
    this.history.index = index;
    this.types = new Set();
    this.queued = false;
  }

  canUndo() {
    return this.history.canUndo();
  }

  canRedo() {
    return this.history.canRedo();
  }

  // The inputs of the entry before (after) the current one, shown with the
  // current view (and "Guess first": no input either, history.js sameInputs); false when there is none.
  undo() {
    this.flush(); // an edit still unheard is recorded first
    return this.restore(this.history.undo(), 'undo');
  }

  redo() {
    this.flush();
    return this.restore(this.history.redo(), 'redo');
  }

  restore(entry, type) {
    if (!entry) return false;
    const guess = this.state.guess === undefined ? {} : { guess: this.state.guess };
    this.state = { ...entry, ...guess, view: clampHead(this.state.view, entry.heads.length) };
    this.changed(type);
    return true;
  }
}
