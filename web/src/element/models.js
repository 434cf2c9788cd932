// The element's side of a model named by its state (model="…", issue 36): the model loaded
// (engine/model-run.js), read into the state's matrices, chosen in the picker
// (edit/model-picker.js), and its next-token predictions under the steps (views/predictions.js),
// with the head on screen switched off or on. The element (element.js) holds one and calls it
// from its store, engine and render callbacks; it reaches the element only through `host`:
//   { engine(), state(), lang(), full(), root(), amend(state), apply(state), replace(state),
//     render(), reread() (the attributes read again: true when they made the state) }
import { tutorialState } from '../state/presets.js';
import { validateState, fitLearn } from '../state/schema.js';
import { describe } from '../ui/i18n.js';
import { ModelChoice, chosenState, choiceKey } from '../engine/model-run.js';
import { ModelPicker } from '../edit/model-picker.js';
import { renderPredictions } from '../views/predictions.js';
import { el } from '../ui/dom.js';
import { ElementModelView } from './model-view.js';

export class ElementModels {
  constructor(host, base) {
    this.host = host;
    // the models a state names, loaded from the models/ folder beside the script (base())
    this.choice = new ModelChoice({ base, engine: () => host.engine(), loaded: () => this.arrived() });
    this.picker = new ModelPicker({
      entries: () => this.choice.entries(), lang: () => host.lang(), choose: (name, layer) => this.choose(name, layer), eager: () => host.full(),
      layers: (name) => this.choice.found.get(name)?.model.layers.length ?? null,
    });
    this.headOff = false; // the model's head on screen switched off in the predictions (runModel's headsOff)
    this.view = new ElementModelView(host, this); // every layer × head (model-view.js), over the predictions
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
    const { lang, decimals } = host.state().view;
    if (!name) {
      host.replace({ ...tutorialState(lang), view: { ...tutorialState(lang).view, decimals } });
      return;
    }
    await this.choice.request(name);
    const found = this.choice.found.get(name);
    if (!found || !host.engine()) {
      host.render(); // (the models' status says why)
      return;
    }
    let derived;
    try {
      derived = chosenState(host.state(), found, name, layer, host.engine());
    } catch (error) {
      if (!error.descriptor) throw error;
      this.choice.error = { name, descriptor: error.descriptor };
      host.render();
      return;
    }
    const checked = validateState(fitLearn(derived.state));
    if (!checked.ok) return;
    this.choice.notes.set(choiceKey(checked.state), derived.notes);
    if (name === host.state().model) host.apply(checked.state);
    else host.replace(checked.state);
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
    const off = this.headOff && { layer: state.layer, head: state.view.head };
    const shown = state.model && this.choice.predictions(state, off);
    if (!shown) return null;
    return renderPredictions(lang, {
      ...shown, tokens: state.tokens, off: Boolean(off), layer: state.layer, head: state.view.head,
      onToggle: () => {
        this.headOff = !this.headOff;
        host.render();
        host.root().querySelector('.head-off')?.focus();
      },
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
