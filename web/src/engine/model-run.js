// The model a state names (options.js `model` and `layer`), read into the state's own fields, so
// that the step by step shows one of its heads with the engine's compute(), as any other state:
//   tokens   the sentence read by the model's tokenizer (io/model-tokens.js), at most maxTokens
//   x        runModel()'s layers[layer].input: what the heads read, after LayerNorm (norm1)
//   heads    that layer's W_Q, W_K, W_V (d_model × d_k each) and b_Q, b_K, b_V where it has them;
//            wo its W_O, bo its b_O where it has one
//   causal   the model's mask; the options that add positions off (options.js withModel)
// A token the model does not know runs as its stand-in (the start token, else the first of the
// vocab) and is named on screen with it (notes.unknown): never a silent zero.
// A head switched off (off: { layer, head }, runModel's headsOff) changes what follows it: a later
// layer's X is the run's without it (notes.ablated), the predictions are given with and without it.
//
//   modelState(state, found, engine, text, off) → { state, notes }    (throws a descriptor'd Error)
//   derivedFields(choice, s, text, refuse)   what a model gives a state read from attributes
//   chosenState(state, found, name, layer, engine)   a model chosen in the picker
//   ownFound(name, model), modelLoadFailure(name, error)   an author's model read, or why not
//   ModelChoice                      the element's: loads models on demand, keeps their notes

import { loadModelIndex, loadModel, ownModel, ownModelUrl, loadOwnModel, ownShape, MAX_MODEL_BYTES } from './models.js';
import { modelTokens } from '../io/model-tokens.js';
import { quotedTokens, excerpt } from '../ui/quote.js';
import { modelText, MODEL_EXAMPLES } from '../state/model-choice.js';
import { MODEL_OPTIONS } from '../state/options.js';

const failure = (key, params = {}) => Object.assign(new Error(key), { descriptor: { key, params } });

// An engine's or tokenizer's refusal of a model (code, path, message) as the page says it.
const refusal = (entry, error) => failure('errModelInvalid', { name: entry.label || entry.name, code: error.code, message: excerpt(String(error.message), 200) });

// A model from a file or URL of the author's (engine/models.js), as the index lists a model:
// its title from the file's own (a string, or { zh, en }), else the file's name; no roles claimed.
export function ownEntry(name, model) {
  const text = (v) => (typeof v === 'string' && v.trim() ? excerpt(v.trim(), 80) : null);
  const title = model.title !== null && typeof model.title === 'object' ? model.title : { zh: model.title, en: model.title };
  const base = name.replace(/^file:/, '').split('/').pop();
  return { name, label: name.replace(/^file:/, ''), title: { zh: text(title.zh) || text(title.en) || base, en: text(title.en) || text(title.zh) || base }, roles: [] };
}

// { entry, model } of an author's model, or a descriptor'd Error: what the page reads of it
// (ownShape), then everything else by the engine when it is run (modelState: its errors, its limits).
export function ownFound(name, model) {
  const shape = ownShape(model);
  if (shape) throw failure('errModelShape', { name: name.replace(/^file:/, ''), path: shape.path });
  return { entry: ownEntry(name, model), model };
}

// A model that did not load, as the page says it (zh and en).
export function modelLoadFailure(name, error) {
  if (error.descriptor) return error.descriptor;
  if (error.code === 'limit') return { key: 'errModelTooBig', params: { name, mb: MAX_MODEL_BYTES / 1024 / 1024 } };
  if (error.code === 'json') return { key: 'errModelNotJson', params: { name } };
  if (error.code === 'file_page') return { key: 'errModelFilePage', params: { name } };
  if (error.code === 'origin') return { key: 'errModelOrigin', params: { name } };
  return { key: 'errModelLoad', params: { name, message: excerpt(String(error.message), 200) } };
}

// The token a token the model does not know runs as.
export function standIn(model) {
  const start = model.tokenizer && model.tokenizer.start;
  const id = typeof start === 'string' && model.vocab.includes(start) ? model.vocab.indexOf(start) : 0;
  return { id, text: model.vocab[id] };
}

// The head switched off when it changes the state's X (a head of an earlier layer), else null.
const ablating = (off, layer) => (off && off.layer < layer ? off : null);

// The key of what a state asks of a model: its name, layer and tokens, and the head switched off.
export function choiceKey(state, off = null) {
  return `${state.model}\u0000${state.layer}\u0000${state.tokens.join('\u0001')}${off ? `\u0000${off.layer}.${off.head}` : ''}`;
}

// state with its matrices the model's (found: { entry, model } of the index and the file).
// text: what the tokenizer reads (the sentence attribute's, or the state's own tokens).
export function modelState(state, { entry, model }, engine, text = modelText(state.tokens), off = null) {
  let read;
  try {
    read = modelTokens(model, text);
  } catch (error) {
    if (error.code) throw refusal(entry, error);
    throw error;
  }
  let tokens = read.tokens;
  const cut = tokens.length > model.maxTokens ? { count: tokens.length, max: model.maxTokens } : null;
  if (cut) tokens = tokens.slice(0, model.maxTokens);
  if (tokens.length === 0) throw failure('errModelNoTokens', { name: entry.name });
  const instead = standIn(model);
  const ids = tokens.map((t) => (t.id < 0 ? instead.id : t.id));
  const layers = model.layers.length;
  const layer = Math.min(state.layer, layers - 1);
  let run;
  let without;
  try {
    run = engine.runModel(model, ids); // (an author's model checked here: its shapes, numbers, limits)
    without = off && off.layer < layers && off.head < model.layers[off.layer].heads.length ? engine.runModel(model, ids, { headsOff: [off] }) : null;
  } catch (error) {
    if (error.code) throw refusal(entry, error);
    throw error;
  }
  const ablated = without && ablating(off, layer);
  const shown = ablated ? without : run; // what this layer reads
  const { heads, wo, bo } = model.layers[layer];
  const biases = (h) => Object.fromEntries(['bq', 'bk', 'bv'].filter((b) => h[b] !== undefined).map((b) => [b, h[b]]));
  const next = {
    ...state,
    tokens: tokens.map((t) => t.text),
    x: shown.layers[layer].input, // (n, dModel): the layer's input after its LayerNorm
    heads: heads.map((h) => ({ wq: h.wq, wk: h.wk, wv: h.wv, ...biases(h) })),
    wo,
    ...(bo !== undefined ? { bo } : {}),
    causal: Boolean(model.causal),
    ...MODEL_OPTIONS, // no positions added: the model's own are in X already
    keyPadding: tokens.map(() => false),
    layer,
    view: { ...state.view, head: Math.min(state.view.head, heads.length - 1) },
  };
  delete next.context;
  if (bo === undefined) delete next.bo; // the state's own, of before
  const unknown = tokens.flatMap((t, i) => (t.id < 0 ? [{ position: i, text: t.text }] : []));
  return {
    state: next,
    notes: {
      entry, unknown, instead: instead.text, cut, layer, layers, layerAsked: state.layer, ids, ablated,
      probabilities: run.probabilities, without: without && without.probabilities, // (n, vocab) each
      weights: shown.layers[layer].attention.heads.map((h) => h.weights), // per head (n, n): the picks' row
    },
  };
}

// The fields a model gives a state read from attributes (s, not checked yet; text: the sentence
// attribute's, or null): none while the model loads, or with no element's models (choice null). refuse(descriptor) → the Error to throw.
export function derivedFields(choice, s, text, refuse) {
  if (!choice || !s.model || !Array.isArray(s.tokens) || !s.tokens.every((t) => typeof t === 'string')) return {};
  try {
    const derived = choice.derive(s, text ?? undefined);
    return derived ? derived.state : {};
  } catch (error) {
    if (!error.descriptor) throw error;
    throw refuse(error.descriptor);
  }
}

// state with the model `name` chosen (found: loaded), at `layer`: the sentence on screen kept when
// the model knows most of its tokens, else the model's example sentence; the first head shown.
export function chosenState(state, found, name, layer, engine, off = null) {
  const asked = { ...state, model: name, layer, view: { ...state.view, head: state.model === name ? state.view.head : 0 } };
  const text = modelText(state.tokens);
  let read;
  try {
    read = modelTokens(found.model, text);
  } catch {
    read = { tokens: [], started: false }; // (modelState says why)
  }
  const words = read.tokens.slice(read.started ? 1 : 0);
  const knows = words.length > 0 && words.filter((t) => t.id >= 0).length * 2 >= words.length;
  return modelState(asked, found, engine, knows || !MODEL_EXAMPLES[name] ? text : MODEL_EXAMPLES[name], off);
}

// A title set inside quotes “…” (zh and en alike): the quotes of its own become single ones,
// ‘it’ in “‘it’: the animal or the street?”, not ““it”…”.
export function nestedQuotes(title) {
  let open = true;
  return title.replace(/["“”]/g, (mark) => {
    const single = mark === '“' || (mark === '"' && open) ? '‘' : '’';
    open = single === '’';
    return single;
  });
}

// The descriptors of a model state's notes, for the status over the steps.
export function modelNotes(notes, lang) {
  const title = nestedQuotes(notes.entry.title[lang] || notes.entry.name);
  const list = [{ kind: 'note', descriptor: { key: notes.layer === 0 ? 'modelInputFirst' : 'modelInputLater', params: { title, layer: notes.layer + 1, before: notes.layer } } }];
  if (notes.unknown.length > 0) {
    const tokens = quotedTokens(notes.unknown.map((u) => u.text));
    list.push({ kind: 'unknown', descriptor: { key: 'modelUnknown', params: { ...tokens, instead: notes.instead } } });
  }
  if (notes.ablated) list.push({ kind: 'note', descriptor: { key: 'modelInputAblated', params: { layer: notes.ablated.layer + 1, head: notes.ablated.head + 1 } } });
  if (notes.cut) list.push({ kind: 'note', descriptor: { key: 'modelCut', params: notes.cut } });
  if (notes.layerAsked !== notes.layer) list.push({ kind: 'error', descriptor: { key: 'modelLayerClamped', params: { asked: notes.layerAsked + 1, layers: notes.layers } } });
  return list;
}

// The element's models: loaded on demand from base (the models/ folder beside the script), kept;
// what the state on screen asks of them derived at once when loaded (sync), else when they are.
//   host: { base() → URL, page() → the page's address (an author's ./my.json is read from it),
//           engine() → the engine or null, loaded() → a model arrived }
// An author's model by URL loads as a shipped one does; one from a file is put in `found` by
// the picker (file:NAME.json), and a state naming it elsewhere says to choose the file again.
export class ModelChoice {
  constructor(host) {
    this.host = host;
    this.found = new Map(); // name → { entry, model }
    this.index = null; // the index's entries, once loaded
    this.waiting = new Map(); // name → Promise
    this.error = null; // { name, descriptor }: the last model asked for that did not load or read
    this.failed = new Set(); // the names that did not load: not asked for again
    this.notes = new Map(); // choiceKey → notes of the derived state
    this.off = null; // { layer, head }: the head switched off (runModel's headsOff), or null
  }

  // { entry, model } of a loaded model, or null (then asked for: host.loaded() when it is here).
  get(name) {
    if (this.found.has(name)) return this.found.get(name);
    if (!this.failed.has(name)) this.request(name);
    return null;
  }

  loading(name) {
    return this.waiting.has(name);
  }

  async entries() {
    if (!this.index) this.index = await loadModelIndex(this.host.base());
    return this.index;
  }

  request(name) {
    if (this.waiting.has(name)) return this.waiting.get(name);
    const promise = (async () => {
      const own = ownModel(name);
      if (own === 'file') throw failure('errModelFileAgain', { name: name.slice(5) });
      if (own === 'url') {
        const model = await loadOwnModel(ownModelUrl(name, this.host.page()));
        this.found.set(name, ownFound(name, model));
        return;
      }
      const index = await this.entries();
      const entry = index.find((e) => e.name === name);
      if (!entry) throw failure('errModelUnknown', { name, list: index.map((e) => e.name).join(', ') });
      const model = await loadModel(this.host.base(), entry.file);
      this.found.set(name, { entry, model });
    })().then(
      () => {
        this.waiting.delete(name);
        this.error = null;
        this.host.loaded();
      },
      (error) => {
        this.waiting.delete(name);
        this.failed.add(name);
        this.error = { name, descriptor: modelLoadFailure(name, error) };
        this.host.loaded();
      },
    );
    this.waiting.set(name, promise);
    return promise;
  }

  // state read with its model: { state, notes } when the model is here (and the engine), null
  // while it loads; throws a descriptor'd Error for a model it cannot show.
  derive(state, text) {
    const engine = this.host.engine();
    const found = this.get(state.model);
    if (!found || !engine) return null;
    let derived;
    try {
      derived = modelState(state, found, engine, text, this.off);
    } catch (error) {
      if (error.descriptor) this.error = { name: state.model, descriptor: error.descriptor };
      throw error;
    }
    if (this.error && this.error.name === state.model) this.error = null;
    this.notes.set(choiceKey(derived.state, this.off), derived.notes);
    return derived;
  }

  // The model's predictions of a state read (its notes'), and without the head switched off
  // (this.off: its output taken as 0), or null.
  predictions(state) {
    const notes = this.notesOf(state);
    if (!notes) return null;
    const { model } = this.found.get(state.model);
    return { vocab: model.vocab, probabilities: notes.probabilities, without: notes.without };
  }

  notesOf(state) {
    return state.model ? this.notes.get(choiceKey(state, this.off)) || null : null;
  }

  // The status over the steps of a state shown: [{ kind, descriptor }].
  status(state, lang) {
    const list = [];
    if (!state || !state.model) return list;
    if (this.error && this.error.name === state.model) list.push({ kind: 'error', descriptor: this.error.descriptor });
    const notes = this.notesOf(state);
    if (!notes) {
      if (this.loading(state.model)) list.push({ kind: 'loading', descriptor: { key: 'modelLoading', params: { name: state.model } } });
      return list;
    }
    const title = notes.entry.title[lang] || notes.entry.name;
    list.push({ kind: 'note', descriptor: { key: 'modelShown', params: { title, layer: notes.layer + 1, head: state.view.head + 1 } } });
    return [...list, ...modelNotes(notes, lang)];
  }
}
