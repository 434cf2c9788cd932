// The element's model view (views/modelgrid.js) of the model its state names: every layer ×
// head of runModel()'s run on the state's tokens (with the head on screen switched off when
// the predictions say so: runModel's headsOff, so the later layers follow), made once for the
// model's tokens and updated in place (a new run's weights, the head open: the focus stays on
// the thumbnail); a thumbnail opens its head in the step by step (that layer's input and
// weights, engine/model-run.js).
//   host: the element's models' host (models.js); models: its ElementModels

import { fitLearn, validateState } from '../state/schema.js';
import { rowViews } from '../engine/rows.js';
import { modelState, choiceKey } from '../engine/model-run.js';
import { createModelGrid } from '../views/modelgrid.js';

// (n, n): true where a causal model's query i may not see key j > i
const causalMask = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => j > i));

export class ElementModelView {
  constructor(host, models) {
    this.host = host;
    this.models = models;
    this.grid = null; // { element, update } of the model and tokens below
    this.key = null; // what the grid was made of: model, tokens, language
    this.weights = null; // [layer][head] → (n, n): runModel's on those tokens ...
    this.runKey = null; // ... with the head off (or none)
  }

  // The model view of the state on screen, or null (no model read yet).
  render(lang) {
    const { host, models } = this;
    const state = host.state();
    const notes = models.choice.notesOf(state);
    const engine = host.engine();
    if (!notes || !engine) return null;
    const current = { layer: state.layer, head: state.view.head };
    const off = models.choice.off; // (the head switched off, pinned: models.js)
    const { model } = models.choice.found.get(state.model);
    const key = [state.model, state.tokens.join('\u0001'), lang].join('\u0000');
    const runKey = [key, off ? `${off.layer} ${off.head}` : ''].join('\u0000');
    if (runKey !== this.runKey) {
      const run = engine.runModel(model, notes.ids, { typed: true, ...(off ? { headsOff: [off] } : {}) });
      this.weights = run.layers.map((layer) => layer.attention.heads.map((head) => rowViews(head.weights))); // [layer][head] → (n, n)
      this.runKey = runKey;
    }
    const next = { weights: this.weights, current, off, decimals: state.view.decimals };
    if (key === this.key) {
      this.grid.update(next);
      return this.grid.element;
    }
    this.grid = createModelGrid(lang, {
      ...next,
      tokens: state.tokens,
      masked: model.causal ? causalMask(state.tokens.length) : null,
      roles: notes.entry.roles || [],
      onOpen: (layer, head) => this.open(layer, head),
    });
    this.key = key;
    return this.grid.element;
  }

  // Head `head` of layer `layer` in the step by step: the state read at that layer.
  open(layer, head) {
    const { host, models } = this;
    const state = host.state();
    const found = models.choice.found.get(state.model);
    if (!found || !host.engine() || (state.layer === layer && state.view.head === head)) return;
    if (state.layer === layer) {
      host.setView({ head }); // (the layer's heads are in the state: a change of view, as the head tabs make)
      return;
    }
    let derived;
    try {
      derived = modelState({ ...state, layer, view: { ...state.view, head } }, found, host.engine());
    } catch (error) {
      if (!error.descriptor) throw error;
      models.choice.error = { name: state.model, descriptor: error.descriptor };
      host.render();
      return;
    }
    const checked = validateState(fitLearn(derived.state));
    if (!checked.ok) return;
    models.choice.notes.set(choiceKey(checked.state), derived.notes);
    host.apply(checked.state);
  }
}
