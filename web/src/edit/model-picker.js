// The model picker beside the sentence ("Edit the example", page and element alike): the tutorial's
// example (its hand-set 2-d vectors) or one of the shipped models (web/models/index.json), and,
// with a model, which of its layers the step by step shows (the heads are the head tabs').
//   host: { entries() → Promise of the index's entries, layers(name) → its layer count or null,
//           title(name, lang) → the title of a model loaded that the index does not list (an author's), or null,
//           choose(name, layer) (name '' for the tutorial), lang(), eager() → whether the index
//           loads at once (the page, which ships models/) or when the picker is first focused
//           (an element on a host page: nothing is requested until the reader asks),
//           openFile(file) (an author's own model file chosen), error() → the text of why the
//           last model chosen could not be shown, or null }
//   picker.node            the fields, placed by the editor
//   picker.render(state)   shows the state's choice (the index loaded on first render)

import { translate } from '../ui/i18n.js';
import { setText } from '../ui/dom.js';

function field(id, labelKey) {
  const box = document.createElement('div');
  box.className = 'field field-model';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.dataset.i18n = labelKey;
  const select = document.createElement('select');
  select.id = id;
  box.append(label, select);
  return { box, label, select };
}

export class ModelPicker {
  constructor(host) {
    this.host = host;
    this.model = field('model-picker', 'modelLabel');
    this.layer = field('model-layer', 'layerLabel');
    this.model.select.setAttribute('aria-describedby', 'model-hint');
    this.hint = document.createElement('p');
    this.hint.id = 'model-hint';
    this.hint.className = 'hint model-hint';
    // an author's own model file: chosen (a button, for the keyboard, over a hidden file input)
    this.input = document.createElement('input');
    this.input.type = 'file';
    this.input.accept = '.json,application/json';
    this.input.hidden = true;
    this.input.className = 'model-file-input';
    this.input.addEventListener('change', () => {
      const [file] = this.input.files;
      this.input.value = '';
      if (file) host.openFile(file);
    });
    this.open = document.createElement('button');
    this.open.type = 'button';
    this.open.className = 'button-small model-open';
    this.open.addEventListener('click', () => this.input.click());
    this.error = document.createElement('p');
    this.error.className = 'model-error';
    this.error.setAttribute('role', 'alert');
    this.node = document.createElement('div');
    this.node.className = 'model-choice';
    this.node.append(this.model.box, this.layer.box, this.open, this.input, this.hint, this.error);
    this.entries = null; // the index's entries once loaded
    this.asked = false;
    this.state = null;
    this.model.select.addEventListener('focus', () => this.ask());
    this.model.select.addEventListener('change', () => this.host.choose(this.model.select.value, 0));
    this.layer.select.addEventListener('change', () => this.host.choose(this.model.select.value, Number(this.layer.select.value)));
  }

  // The index, asked for once: the models offered when it arrives.
  ask() {
    if (this.asked) return;
    this.asked = true;
    this.host.entries().then((entries) => {
      this.entries = entries;
      if (this.state) this.render(this.state);
    }, () => {}); // (no models to offer: the tutorial alone; a model named says why: model-run.js)
  }

  render(state) {
    this.state = state;
    if (this.host.eager() || state.model) this.ask();
    const lang = this.host.lang();
    const t = (key) => translate(lang, key);
    setText(this.model.label, t('modelLabel'));
    setText(this.layer.label, t('layerLabel'));
    setText(this.hint, t('modelPickerHint'));
    setText(this.open, t('modelOpenFile'));
    const error = this.host.error();
    setText(this.error, error || '');
    this.error.hidden = !error;
    const options = [['', t('modelTutorial')], ...(this.entries || []).map((e) => [e.name, e.title[lang] || e.name])];
    // a state naming a model not in the index (yet) still shows its name
    if (state.model && !options.some(([name]) => name === state.model)) options.push([state.model, this.host.title(state.model, lang) || state.model]);
    fill(this.model.select, options);
    this.model.select.value = state.model;
    const layers = state.model ? this.host.layers(state.model) : null;
    this.layer.box.hidden = !layers;
    if (layers) {
      fill(this.layer.select, Array.from({ length: layers }, (_, l) => [String(l), String(l + 1)]));
      this.layer.select.value = String(Math.min(state.layer, layers - 1));
    }
  }
}

// The select's options as [value, text], rewritten only when they differ (a render keeps focus).
function fill(select, options) {
  const same = select.options.length === options.length && options.every(([value, text], i) => select.options[i].value === value && select.options[i].text === text);
  if (same) return;
  select.replaceChildren(...options.map(([value, text]) => {
    const option = document.createElement('option');
    option.value = value;
    option.textContent = text;
    return option;
  }));
}
