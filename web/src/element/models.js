// The element's side of a model named by its state (model="…", issue 36): the model loaded
// (engine/model-run.js), read into the state's matrices, chosen in the picker
// (edit/model-picker.js), and its next-token predictions under the steps (views/predictions.js),
// with a head switched off or on (the layers after it then read the run without it), and, on the
// page, the row of the head on screen that picks most clearly (views/picks.js). The element (element.js) holds one and calls it
// from its store, engine and render callbacks; it reaches the element only through `host`:
//   { engine(), state(), lang(), full(), amend(state), apply(state), replace(state),
//     setView(view), render(), reread() (the attributes read again: true when they made the state) }
import { tutorialState } from '../state/presets.js';
import { validateState, fitLearn } from '../state/schema.js';
import { describe } from '../ui/i18n.js';
import { ModelChoice, chosenState, choiceKey, ownFound, modelLoadFailure } from '../engine/model-run.js';
import { readModelFile } from '../engine/models.js';
import { ModelPicker } from '../edit/model-picker.js';
import { renderPredictions } from '../views/predictions.js';
import { renderPicks } from '../views/picks.js';
import { el } from '../ui/dom.js';
import { ElementModelView } from './model-view.js';

export class ElementModels {
  constructor(host, base) {
    this.host = host;
    // the models a state names, loaded from the models/ folder beside the script (base())
    this.choice = new ModelChoice({ base, page: () => document.baseURI, engine: () => host.engine(), loaded: () => this.arrived() });
    this.picker = new ModelPicker({
      entries: () => this.choice.entries(), lang: () => host.lang(), choose: (name, layer) => this.choose(name, layer), eager: () => host.full(),
      openFile: (file) => this.openFile(file), error: () => this.pickError && describe(host.lang(), this.pickError),
      layers: (name) => this.choice.found.get(name)?.model.layers.length ?? null,
      title: (name, lang) => this.choice.found.get(name)?.entry.title[lang] ?? null,
    });
    this.pickError = null; // the descriptor of the last model chosen in the picker that could not be shown
    this.view = new ElementModelView(host, this); // every layer × head (model-view.js), over the predictions
    this.shownPredictions = null; // the predictions' section, kept across renders (its toggle's focus stays)
    this.panels = el('div', 'model-panels'); // both, under the steps: kept, so that a focus in them stays
  }

  // A state that names a model, read into its matrices once the model is here: true when the
  // store was amended (the new state is heard next).
  resolve(state) {
    if (!state || !state.model || this.choice.notesOf(state)) return false;
    let derived;
    try {
      derived = this.choice.derive(state);
    } catch (error) {
      if (!error.descriptor) throw error;
      return false; // (its message: the models' status)
    }
    const checked = derived && validateState(fitLearn(derived.state));
    if (!checked) return false;
    if (!checked.ok) {
      this.choice.error = { name: state.model, descriptor: checked.message };
      return false;
    }
    this.host.amend(checked.state);
    return true;
  }

  // The picker's choice: the tutorial's example, or a model (loaded first) at a layer.
  async choose(name, layer) {
    const { host } = this;
    this.pickError = null;
    const { lang, decimals } = host.state().view;
    if (name !== host.state().model) this.choice.off = null; // (a head of the model on screen)
    if (!name) {
      host.replace({ ...tutorialState(lang), view: { ...tutorialState(lang).view, decimals, step: 'softmax' } }); // (at its weights, as ?example=tutorial)
      return;
    }
    if (!this.choice.found.has(name)) await this.choice.request(name); // (a file chosen is found already)
    const found = this.choice.found.get(name);
    if (!found || !host.engine()) {
      if (this.choice.error && this.choice.error.name === name) this.pickError = this.choice.error.descriptor;
      host.render(); // (the models' status says why; the picker too)
      return;
    }
    let derived;
    try {
      derived = chosenState(host.state(), found, name, layer, host.engine(), this.choice.off);
    } catch (error) {
      if (!error.descriptor) throw error;
      this.choice.error = { name, descriptor: error.descriptor };
      this.pickError = error.descriptor; // (the state on screen stays: the last good result)
      if (/^file:/.test(name)) this.choice.found.delete(name);
      host.render();
      return;
    }
    const checked = validateState(fitLearn(derived.state));
    if (!checked.ok) {
      this.pickError = checked.message;
      host.render();
      return;
    }
    this.choice.notes.set(choiceKey(checked.state, this.choice.off), derived.notes);
    if (name === host.state().model) host.apply(checked.state);
    else host.replace(checked.state);
  }

  // An author's own model file chosen in the picker: its size bounded before it is read, its
  // shape and then (when run) the engine's checks; shown as file:NAME.json, or the picker says why
  // not and the state on screen stays.
  async openFile(file) {
    const { host } = this;
    const base = file.name.replace(/[/\\]/g, '_').slice(-115);
    const name = `file:${/\.json$/.test(base) ? base : `${base}.json`}`;
    try {
      const found = ownFound(name, await readModelFile(file));
      this.choice.found.set(name, found);
      this.choice.failed.delete(name);
    } catch (error) {
      this.pickError = modelLoadFailure(name.slice(5), error);
      host.render();
      return;
    }
    this.choice.off = null;
    await this.choose(name, 0);
  }

  // The model's panels under the steps (the element's views ask for them as its predictions): its
  // model view and its predictions, in one box kept across renders, or null (no model).
  predictions(lang) {
    const wanted = [this.view.render(lang), this.predictionsPanel(lang)].filter(Boolean);
    if (wanted.length === 0) return null;
    const box = this.panels;
    for (const child of [...box.children]) if (!wanted.includes(child)) child.remove();
    wanted.forEach((node, i) => {
      if (box.children[i] !== node) box.insertBefore(node, box.children[i] || null);
    });
    return box;
  }

  // The model's next-token predictions, or null (no model).
  predictionsPanel(lang) {
    const { host } = this;
    const state = host.state();
    const shown = state.model && this.choice.predictions(state);
    if (!shown) return null;
    const { off } = this.choice;
    this.shownPredictions = renderPredictions(lang, {
      ...shown, tokens: state.tokens, causal: state.causal, off: Boolean(off), layer: off ? off.layer : state.layer, head: off ? off.head : state.view.head,
      onToggle: () => this.toggleHead(), // (its toggle kept: a focus on it stays)
    }, this.shownPredictions);
    return this.shownPredictions;
  }

  // The head on screen switched off (or the one switched off on again): the state read again with
  // it, since the layers after it read the run without it.
  toggleHead() {
    const { host } = this;
    const state = host.state();
    this.choice.off = this.choice.off ? null : { layer: state.layer, head: state.view.head };
    if (!this.resolve(state)) host.render();
  }

  // On the page, what the head on screen picks (views/picks.js), or null (no model read).
  picks(lang) {
    const state = this.host.state();
    const notes = this.choice.notesOf(state);
    if (!notes) return null;
    const { layer, view: { head, decimals } } = state;
    const role = (notes.entry.roles || []).find((r) => r.layer === layer && r.head === head);
    return renderPicks(lang, {
      tokens: state.tokens, weights: notes.weights[head], layer, head, decimals, role: role ? role.role : null,
      onTutorial: () => this.choose(''),
    });
  }

  // A model (or the engine) arrived: the attributes read again when the state is theirs (head="3"
  // then has the model's heads), else the state resolved; true when either changed the state.
  arrived() {
    const state = this.host.state();
    if (!state || !state.model) return false;
    if (this.host.reread()) return true;
    if (this.resolve(state)) return true;
    this.host.render();
    return false;
  }

  // The models' messages over the steps, as [kind, text].
  status(state, lang) {
    return this.choice.status(state, lang).map(({ kind, descriptor }) => [kind, describe(lang, descriptor)]);
  }
}
