// <attention-visualizer>: the steps of the page as a custom element for
// tutorial authors. One classic script (dist/attention-visualizer.js, the
// engine included); every element on a page shares the one engine that
// createAttentionEngine() caches, and each is drawn and computed only once near the viewport
// or asked for by a script (visibility.js). Shadow DOM with adopted stylesheets, so
// the host page's CSS neither breaks it nor is touched by it.
//
// Attributes (docs/authoring.md): state, sentence, tokenize,
// tokens, x, wq, wk, wv, heads, wo, context, context-tokens, each option's
// (state/options.js), lang,
// steps, step, head, panels, editable, decimals, theme.
// Property `state` (read: a copy; write: a whole or partial state, merged and
// validated; a state refused by the checks throws a TypeError with
// .descriptor and changes nothing, and so does one the engine refuses when it
// is computed at once); property `result` (a copy of the result on screen: see its
// getter); property `computing` (true until the result of the newest edit is
// on screen); property `error` (the engine's refusal of the newest edit, or
// null); event `change` with detail {state} after every edit and step
// change (a drag of the temperature slider or of a number: once, when let go), `computed` when the result of the newest edit is on screen (or its
// error shown), `ready` once the first result is on screen.
//
// An edit is computed as on the full page (updates.js): at once when small,
// after the next paint when larger (a burst of edits is one computation), in
// the engine's Web Worker from 1024 × 1024 attention cells; meanwhile the
// steps keep the last result, dimmed.

import PAGE_CSS from '../../style.css';
import ELEMENT_CSS from '../../element.css';
import { translate, describe, describeLoadFailure, detectLanguage, htmlLang, LANGUAGES } from '../ui/i18n.js';
import { stepsFor, shownCell, isPlain } from '../views/steps.js';
import { createPipeline, revealCurrent } from '../views/pipeline.js';
import { engineInput, optionChanges } from '../engine/variant.js';
import { OPTIONS, COMPARED, optionByAttribute, readAttribute } from '../state/options.js';
import { Updates, ResultArrays, WorkerResults, WORKER_CELLS } from '../engine/updates.js';
import { plainResult, typedResult, resultRowViews } from '../engine/rows.js';
import { sameNumbers, cellMessage, locate, headField, fieldName, readState } from '../state/model.js';
import { TUTORIAL, presetOf } from '../state/presets.js';
import { presetHint } from '../views/hints.js';
import { tokenize, defaultMode } from '../io/tokenize.js';
import { parseMatrixText } from '../io/parse.js';
import { excerpt, quotedTokens } from '../ui/quote.js';
import { followTokens, madeUpTokens } from '../state/vectors.js';
import { el, button, setAttr } from '../ui/dom.js';
import { tutorialState } from '../state/presets.js';
import { validateState, fitLearn, MAX_TOKENS } from '../state/schema.js';
import { decodeHash } from '../state/link.js';
import { parseStateJson, copyState } from '../state/json.js';
import { createLearner } from '../views/learn.js';
import { StateStore } from '../state/store.js';
import { Editor } from '../edit/editor.js';
import { undoKey, sameInputs } from '../state/history.js';
import { learnedState } from '../state/learned.js';
import { Tools, embedCode } from '../views/tools.js';
import { FullView, FULL_MODE, showSteps, loadFailure } from './full.js';
import { headTab, markHeadTab } from '../edit/headtabs.js';
import { PANELS, DATA_ATTRIBUTES, CONFIG_ATTRIBUTES, STEP_IDS, THEMES, headingLevel } from './attributes.js';
import { HostTheme } from './theme.js';
import { stepMove, keepKeys } from './keys.js';
import { takeDrops } from './drop.js';
import { forget, whenNear, wake, withEngine } from './visibility.js';
import { ModelChoice, derivedFields, chosenState, choiceKey } from '../engine/model-run.js';
import { ModelPicker } from '../edit/model-picker.js';
import { renderPredictions } from '../views/predictions.js';

// Where this script was loaded from: embed.html and index.html sit next to it. (Under node,
// a static-site build's server render, there is no document: importing defines nothing.)
const SCRIPT_URL = typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : '';

// The values mode and tokenize take (attributes.js declares the others').
const MODES = ['full'];
const TOKENIZE_MODES = ['char', 'space', 'word'];
// The engine's operands as the editor's fields.
const ENGINE_FIELDS = { x: 'x', wq: 'wq', wk: 'wk', wv: 'wv', wo: 'wo', context: 'c' };

// ---- styles: one set of sheets for every element ----

let sheets = null;
function styleSheets() {
  if (!sheets) {
    // rem would follow the host page's root font size: sizes follow the element's own instead.
    const page = PAGE_CSS.replace(/(\d*\.?\d+)rem\b/g, 'calc($1 * var(--av-rem))');
    sheets = [page, ELEMENT_CSS].map((text) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(text);
      return sheet;
    });
  }
  return sheets;
}

// ---- attributes → state ----

const isOn = (value) => value !== null && value !== 'false';

function matrixAttribute(name, text) {
  const parsed = parseMatrixText(text.replace(/;/g, '\n'));
  if (parsed.ok) return parsed.rows;
  throw attributeError(name, parseProblem(name, parsed.error));
}

// A parse.js error as a message naming the field, the row and the column.
function parseProblem(name, error) {
  const { code, row, column, text, count, expected } = error;
  // a decimal comma or an overlong cell: the page's own words for it
  if (code === 'decimal_comma' || code === 'too_long') return cellMessage(null, error, []);
  const problem = (key, params = {}) => ({ key: 'errStateField', params: { field: name, problem: { key, params } } });
  if (code === 'not_number' || code === 'not_finite' || code === 'empty_cell') {
    return problem('probMatrixCell', { row: row + 1, col: column + 1, text: code === 'empty_cell' ? '""' : text });
  }
  if (code === 'ragged') return problem('probMatrixRagged', { row: row + 1, count, expected });
  if (code === 'empty_row') return problem('probMatrixRow', { row: row + 1 });
  return problem('probMatrix');
}

function jsonAttribute(name, text) {
  try {
    return JSON.parse(text);
  } catch {
    throw attributeError(name, { key: 'errStateJson', params: {} });
  }
}

const fieldError = (name, key, params = {}) => attributeError(name, { key: 'errStateField', params: { field: name, problem: { key, params } } });

function attributeError(name, detail) {
  const error = new Error(name);
  error.descriptor = { key: 'errAttribute', params: { name, detail } };
  return error;
}

// Each data attribute with those it is read with: a change of one applies its
// group to the state on screen and changes nothing else (issue 32.2).
const GROUPS = [
  ['tokens', 'sentence', 'tokenize'], ['x'], ['heads', 'wq', 'wk', 'wv'], ['wo'], ['context', 'context-tokens'],
  ...OPTIONS.filter((o) => o.stage !== 'model').map((o) => [o.attribute]), ['model', 'layer'], ['decimals'], ['head'], ['lang'], ['step'],
];
const groupOf = (name) => GROUPS.find((group) => group.includes(name));

// The state the `state` attribute (a share hash or state JSON) names, or the tutorial.
function baseState(element, lang) {
  const text = element.getAttribute('state');
  if (!text) return tutorialState(lang);
  const parsed = text.trim().startsWith('{') ? parseStateJson(text.trim()) : decodeHash(text.trim());
  if (!parsed.ok) throw attributeError('state', parsed.message || { key: 'errStateHash', params: {} });
  return parsed.state;
}

// `group`'s attributes written into s (a copy of `before`, the state they apply to).
// An attribute taken away leaves its field as it is (a boolean one: its default).
function applyGroup(element, s, before, group, lang) {
  const get = (name) => element.getAttribute(name);
  const has = (name) => get(name) !== null;
  switch (group[0]) {
    case 'tokens':
      if (has('tokenize') && !TOKENIZE_MODES.includes(get('tokenize'))) throw fieldError('tokenize', 'probOneOf', { list: TOKENIZE_MODES.join(', ') });
      if (has('tokens')) s.tokens = jsonAttribute('tokens', get('tokens'));
      else if (has('sentence')) s.tokens = tokenize(get('sentence'), get('tokenize') || defaultMode(get('sentence')));
      if (!has('x')) followVectors(s, before);
      if (!has('key-padding')) fitPadding(s);
      break;
    case 'x':
      if (has('x')) s.x = matrixAttribute('x', get('x'));
      break;
    case 'heads':
      if (has('heads')) s.heads = jsonAttribute('heads', get('heads'));
      else if (['wq', 'wk', 'wv'].some(has)) {
        s.heads = [{ ...s.heads[0] }];
        for (const w of ['wq', 'wk', 'wv']) if (has(w)) s.heads[0][w] = matrixAttribute(w, get(w));
      }
      break;
    case 'wo':
      if (has('wo')) s.wo = matrixAttribute('wo', get('wo'));
      break;
    case 'context':
      if (has('context')) {
        const x = matrixAttribute('context', get('context'));
        const tokens = has('context-tokens') ? jsonAttribute('context-tokens', get('context-tokens')) : x.map((_, i) => `k${i + 1}`);
        s.context = { tokens, x };
      }
      if (!has('key-padding')) fitPadding(s);
      break;
    case 'model':
      for (const name of group) {
        const { key } = optionByAttribute(name);
        const read = readAttribute(name, get(name), s[key]);
        if (!read.ok) throw attributeError(name, read.detail);
        s[key] = read.value;
      }
      // the model's matrices now when it is here, else when it arrives (_modelArrived)
      Object.assign(s, derivedFields(element._models, s, get('sentence'), (descriptor) => attributeError('model', descriptor)));
      break;
    case 'decimals':
      if (has('decimals')) s.view = { ...s.view, decimals: Number(get('decimals')) };
      break;
    case 'head':
      if (has('head')) s.view = { ...s.view, head: headNumber(s, get('head')) };
      break;
    case 'lang':
      s.view = { ...s.view, lang };
      break;
    case 'step': {
      const checked = has('step') && validateState(s); // (a state that does not read is named by the caller)
      if (checked && checked.ok) s.view = { ...s.view, step: stepId(checked.state, get('step').trim()) };
      break;
    }
    default: {
      // an option (options.js reads it: a boolean one taken away goes back to its default)
      const { key } = optionByAttribute(group[0]);
      const read = readAttribute(group[0], get(group[0]), s[key]);
      if (!read.ok) throw attributeError(group[0], read.detail);
      s[key] = read.value;
    }
  }
}

// The display attributes (and mode) that do not read, as messages: each is still read as far
// as it does (an unknown step or panel left out, an unknown theme as auto).
function configProblems(element) {
  const problems = [];
  const list = (name, allowed) => {
    const text = element.getAttribute(name);
    if (text === null || (name === 'steps' && text.trim() === 'all')) return;
    const bad = text.split(/[\s,]+/).filter(Boolean).find((word) => !allowed.includes(word));
    if (bad !== undefined) problems.push(fieldError(name, 'probListOf', { text: excerpt(bad), list: allowed.join(', ') }).descriptor);
  };
  const one = (name, allowed) => {
    const text = element.getAttribute(name);
    if (text !== null && text !== '' && !allowed.includes(text)) problems.push(fieldError(name, 'probOneOf', { list: allowed.join(', ') }).descriptor);
  };
  list('steps', STEP_IDS);
  list('panels', PANELS);
  one('theme', THEMES);
  one('mode', MODES);
  if (element.getAttribute('mode') === 'full' && !FULL_MODE.allowed) problems.push({ key: 'errFullMode', params: {} });
  return problems;
}

// s checked, or the error of the first attribute given.
function validated(element, s) {
  const checked = validateState(s);
  if (!checked.ok) throw attributeError(firstAttribute(element), checked.message);
  return checked.state;
}

// head="2": from 1, as on screen and as the attribute counts (the state counts from 0).
function headNumber(s, text) {
  const heads = Array.isArray(s.heads) ? s.heads.length : 1;
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 1 || n > heads) throw fieldError('head', 'probInteger', { min: 1, max: heads });
  return n - 1;
}

// The state the attributes describe: the base (the `state` attribute's, the
// tutorial, or a state set by property before the element was connected) with
// every other attribute given on top. errors (a Map): each group's error by
// its first name ('state' for the whole), the groups that read applied.
function stateFromAttributes(element, lang, base, errors, restored) {
  errors.clear();
  const s = { ...base, view: { ...base.view } };
  // The language of a restored state stays unless lang="…" says otherwise.
  const given = (group) => group.some((name) => element.hasAttribute(name)) || (group[0] === 'lang' && !restored);
  for (const group of GROUPS.filter(given)) {
    try {
      applyGroup(element, s, base, group, lang);
    } catch (error) {
      if (!error.descriptor) throw error;
      errors.set(group[0], error.descriptor);
    }
  }
  return validated(element, s);
}

// The state with the group of the attribute `name` applied, all else as it was.
function stateWithAttribute(element, state, name, lang, errors) {
  const group = groupOf(name);
  const s = { ...state, view: { ...state.view } };
  try {
    applyGroup(element, s, state, group, lang);
    const next = validated(element, s);
    errors.delete(group[0]);
    errors.delete('state'); // what did not read together reads now
    return next;
  } catch (error) {
    if (!error.descriptor) throw error;
    errors.set(group[0], error.descriptor);
    return state;
  }
}

// Tokens given without X: each keeps its vector in `base` (the tutorial's 我, 爱, 你, or the
// state's), any other gets a made-up one (vectors.js). Tokens that are no list of strings
// are left for validateState() to name.
function followVectors(s, base) {
  const { tokens } = s;
  if (tokens === base.tokens || !Array.isArray(tokens) || tokens.length > MAX_TOKENS || !tokens.every((t) => typeof t === 'string')) return;
  s.x = followTokens(tokens, base.tokens, base.x, { width: base.x[0].length });
}

// Heads × queries × keys: the size of a computation (updates.js).
function attentionCells(state) {
  const keys = state.context ? state.context.tokens.length : state.tokens.length;
  return state.heads.length * state.tokens.length * keys;
}

const firstAttribute = (element) => DATA_ATTRIBUTES.find((name) => element.hasAttribute(name) && name !== 'lang') || 'state';

// Key padding not given follows the keys: none when their number changed
// (the old padding of 3 keys cannot apply to 5). A key count that is no
// count (a hostile `tokens`) is left for validateState() to name.
function fitPadding(s) {
  const keys = s.context && typeof s.context === 'object' ? s.context.tokens : s.tokens;
  const count = Array.isArray(keys) && keys.length <= MAX_TOKENS ? keys.length : 0;
  if (!Array.isArray(s.keyPadding) || s.keyPadding.length !== count) s.keyPadding = Array(count).fill(false);
}

// step="softmax" (any case), step="5" (1-based) or step="all"; anything else
// is an error listing this state's steps (the link and embed code copied
// later would otherwise carry a step no state may hold).
function stepId(state, text) {
  const word = text.toLowerCase();
  const steps = stepsFor(readState(state).options);
  if (word === 'all') return word;
  if (/^\d+$/.test(word)) return steps[Math.min(steps.length, Math.max(1, Number(word))) - 1].id;
  const step = steps.find((s) => s.id === word);
  if (!step) throw fieldError('step', 'probStepOf', { count: steps.length, list: steps.map((s) => s.id).join(', ') });
  return step.id;
}

// The `state` property's text: a share link's hash (av1.…, with or without its '#' or the
// address before it) or the JSON text of a state, some or all of its fields; what does not
// read is refused as an invalid state is.
function stateOfText(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      throw refusal({ key: 'errState', params: { detail: { key: 'errStateJson', params: {} } } });
    }
  }
  const decoded = decodeHash(trimmed.includes('#') ? trimmed.slice(trimmed.indexOf('#') + 1) : trimmed);
  if (!decoded.ok) throw refusal(decoded.message || { key: 'errState', params: { detail: { key: 'errStateHash', params: {} } } });
  return decoded.state;
}

// A refused state as an error: the English text, and the descriptor for either language.
function refusal(descriptor) {
  const error = new TypeError(describe('en', descriptor));
  error.descriptor = descriptor;
  return error;
}

// ---- the element ----

// Without a DOM (node) the class exists, for imports, over a plain base; it is never defined there.
export class AttentionVisualizer extends (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) {
  static get observedAttributes() {
    return [...DATA_ATTRIBUTES, ...CONFIG_ATTRIBUTES];
  }

  constructor() {
    super();
    this._root = null; // made when first connected (_mount): the mode decides where
    this._full = false; // mode="full": the page's layout, in the light DOM (full.js)
    this._fullView = null;
    // The state (store.js): set by the attributes, the `state` property and the edits;
    // _onStore() computes and renders what it holds. _handled: the state it last saw.
    this._store = new StateStore();
    this._store.subscribe((state, types) => this._onStore(state, types));
    this._handled = null;
    // the models a state names (model-run.js), loaded from the models/ folder beside the script
    this._models = new ModelChoice({
      base: () => new URL('models/', SCRIPT_URL || document.baseURI), engine: () => this._engine, loaded: () => this._modelArrived(),
    });
    this._attributeState = null; // the state the attributes made, until edited
    this._headOff = false; // the model's head on screen switched off in the predictions (runModel's headsOff)
    this._picker = new ModelPicker({
      entries: () => this._models.entries(), lang: () => this._lang(), choose: (name, layer) => this._chooseModel(name, layer), eager: () => this._full,
      layers: (name) => this._models.found.get(name)?.model.layers.length ?? null,
    });
    this._arrays = new ResultArrays(); // the arrays of the results computed on this thread
    this._workerResults = new WorkerResults(); // and of those the worker computed
    this._result = null; // the result on screen (row views, updates.js) ...
    this._resultState = null; // ... and the state it was computed from
    this._waiting = false; // an edit whose result is not on screen yet
    this._readySent = false;
    // `ready`: resolved (with the element) once the first result is on screen, rejected (an
    // Error with its code) when the engine cannot load; a listener added late still hears it
    this._ready = new Promise((resolve, reject) => {
      this._settleReady = { resolve, reject };
    });
    this._ready.catch(() => {}); // a page that never asks is not told of an unhandled rejection
    this._stepList = el('ol', 'steps');
    this._updates = new Updates({
      cells: () => attentionCells(this._state),
      here: () => {
        this._computeHere();
        this._computed();
        this._giveBack(null); // the worker's results left are garbage now, or it broke
      },
      start: (engine) => {
        this._giveBack(engine);
        const state = this._state;
        const { matrices, options } = readState(state);
        const base = this._comparisonBase(options);
        const rowsOf = (typed) => this._workerResults.rowsOf(typed);
        const main = engine.compute(engineInput(matrices, options));
        const before = base && engine.compute(engineInput(matrices, base)).then(
          (typed) => ({ result: rowsOf(typed), changes: optionChanges(base, options) }),
          () => {
            this._compareBase = null; // no comparison then, as in _computeHere()
            return null;
          },
        );
        return Promise.all([main.then(rowsOf), before]).then(([result, compared]) => () => this._take(state, result, compared));
      },
      waiting: () => this._renderWaiting(),
      failed: (error) => this._failed(error),
      done: (engine) => {
        this._computed();
        this._giveBack(engine);
      },
    });
    this._started = false; // drawn and computed: once near the viewport or asked for (visibility.js)
    this._engine = null;
    this._engineError = null;
    this._attributeErrors = new Map(); // the attributes that do not read: group → descriptor
    this._propertyBase = null; // a state set by property before the element was first connected
    this._engineErrorMessage = null;
    this._selections = {};
    // What the views (full.js, and the compact render's steps: showSteps) read of the element and
    // ask of it: no view reads the element's private fields.
    this._viewHost = {
      state: () => this._state,
      result: () => this._result,
      resultState: () => this._resultState,
      editor: () => this._editor,
      holding: () => this._holding,
      running: () => Boolean(this._updates.running),
      ctx: (lang) => this._ctx(lang),
      statusMessages: (lang) => this._statusMessages(lang),
      setView: (view) => this._setView(view),
    };
    Object.defineProperties(this._viewHost, {
      selections: { get: () => this._selections }, // each step's selected cell, by step id
      tools: { get: () => this._tools },
    });
    this._statusMessage = null; // the page's message over the steps (a damaged link), until the next whole state
    this._urgent = false; // a whole state loaded: computed at once
    // The before/after comparison (full mode): the compared options (scale,
    // temperature, masks) before the latest change, or null; the result before.
    this._compareBase = null;
    this._compareOption = null;
    this._before = null;
    this._shownStep = null; // the step id shown last, or 'all'
    this._editor = null; // "Edit the example" (editor.js), made when first editable
    this._editorBox = null;
    this._quiet = false; // a change the element tells of itself (or not at all: attributes)
    this._holding = false; // a drag under way (scrub.js): its change event waits for its end
    this._heldChange = false;
    this._tools = new Tools({
      state: () => this._shownState(),
      ctx: (lang) => this._ctx(lang),
      editable: () => this._editable(),
      apply: (state, { whole = false } = {}) => (whole ? this._replace(state) : this._apply(state)),
      rerender: () => (this._full ? this._fullView.renderTools(true) : this._render()),
      config: () => this._displayAttributes(),
      baseUrl: () => (this._full ? location.href : SCRIPT_URL || location.href),
    });
    // "How it learns" (learn.js): trained weights become the state's, of the head trained.
    this._learner = createLearner({
      engine: () => this._engine,
      commit: ({ head, x, c, wq, wk }) => {
        const s = this._state;
        this._apply({
          ...s, x, ...(c ? { context: { ...s.context, x: c } } : {}),
          heads: s.heads.map((h, i) => (i === head ? { ...h, wq, wk } : h)),
        });
      },
      setSettings: (learn) => this._apply({ ...this._state, learn }),
      loadLearned: (name) => this._replace(learnedState(name, { lang: this._state.view.lang, decimals: this._state.view.decimals })),
    });
    // the system's scheme, or a host page that switches its own theme on <html> or <body>
    this._theme = new HostTheme(this, () => {
      if (this._state && !this._full && this._root.classList.contains('dark') !== this._isDark(this._config().theme)) this._render();
    });
  }

  // Where the element draws, decided when first connected (mode is read then):
  // in full mode the element's own children, the page's layout (full.js), its
  // keys and dropped files taken from the whole document; else a shadow root
  // with adopted stylesheets.
  _mount() {
    this._full = this.getAttribute('mode') === 'full' && FULL_MODE.allowed; // (else refused: configProblems)
    let keys;
    let drops;
    if (this._full) {
      this._root = this;
      this._fullView = new FullView(this._viewHost, this);
      keys = document;
      drops = document;
    } else {
      this.attachShadow({ mode: 'open' });
      this.shadowRoot.adoptedStyleSheets = styleSheets();
      this._root = el('div', 'av av-far'); // (an empty frame until started: _render() names its classes)
      this._root.setAttribute('role', 'group');
      this.shadowRoot.append(this._root);
      keepKeys(this.shadowRoot);
      keys = this._root;
      drops = this._root;
    }
    keys.addEventListener('keydown', (event) => this._onKeydown(event));
    takeDrops(drops, this._root, { editable: () => this._editable(), importFiles: (files) => this._tools.importFiles(files) });
  }

  connectedCallback() {
    this._theme.connect();
    // The attributes are read when first connected (in full mode the page that is the element
    // loads the state: load()); moved or re-attached, the element keeps its state.
    if (!this._root) {
      this._mount();
      if (!this._full) this._readAttributes();
    }
    if (!this._started) {
      if (this._full) this._start();
      else whenNear(this, () => this._start());
    }
    this._render();
  }

  // Near the viewport, asked for by a script or printed (visibility.js): the engine loaded
  // (at once when another element loaded it), the state computed and drawn.
  _start() {
    this._started = true;
    withEngine(
      (engine) => {
        this._engine = engine;
        this._modelArrived(); // (a model waiting for the engine is read now)
        if (this._state) this._updates.update();
      },
      (error) => {
        this._engineError = { code: (error && error.code) || 'load', message: (error && error.message) || String(error) };
        this._settleReady.reject(Object.assign(new Error(describeLoadFailure('en', this._engineError)), { code: this._engineError.code }));
        this._computed(); // nothing will be computed
      },
    );
    if (!this._engine) this._render(); // (else rendered with its result)
  }

  disconnectedCallback() {
    this._theme.disconnect();
    forget(this); // not started yet: waits again once connected again
  }

  // (Before the first connection the attributes are read then, all at once.) The `state`
  // attribute names the whole state: the attributes are read again; any other changes what it
  // names and nothing else: the reader's edits and a state set by property stay.
  attributeChangedCallback(name, before, after) {
    if (before === after || !this._root) return;
    if (DATA_ATTRIBUTES.includes(name) && !this._full) {
      if (name === 'state') this._readAttributes();
      else this._quietly(() => this._store.dispatch('load', stateWithAttribute(this, this._state, name, this._attributeLang(), this._attributeErrors)));
    }
    this._render();
  }

  // (In full mode the step is one of the steps on screen: a step the inputs no longer have is not shared.)
  get state() {
    const shown = this._shownState();
    return shown && copyState(shown);
  }

  // (The step is one of the steps on screen: `steps` may hide the one the state names.)
  _shownState() {
    if (!this._state) return null;
    if (this._full) return this._fullView.shownState();
    const { step } = this._state.view;
    const steps = this._visibleSteps();
    const shown = step === 'all' ? step : steps[this._currentIndex(steps)].id;
    return shown === step ? this._state : { ...this._state, view: { ...this._state.view, step: shown } };
  }

  // An event's detail, whose `state` is a copy of the state shown when the
  // event was sent, made when first read (at n = 4096 a copy costs ~10 ms, and
  // the page sends an event for every edit). States are replaced, never changed.
  _stateDetail() {
    const shown = this._shownState();
    let copy;
    return {
      get state() {
        copy ??= shown && copyState(shown);
        return copy;
      },
    };
  }

  // A whole state or some of its fields (merged into the current one); key
  // padding not given is kept only while the number of keys stays.
  set state(value) {
    wake(this);
    if (typeof value === 'string') {
      this.state = stateOfText(value); // a share link's hash, or a state's JSON text (React 19 sets the property)
      return;
    }
    const current = this._state || tutorialState(this._lang());
    const merged = { ...current, ...value };
    if (value && !Object.hasOwn(value, 'x')) followVectors(merged, current);
    if (value && value.view) merged.view = { ...(this._state ? this._state.view : {}), ...value.view };
    if (!(value && Object.hasOwn(value, 'keyPadding'))) fitPadding(merged);
    const result = validateState(value && Object.hasOwn(value, 'learn') ? merged : fitLearn(merged));
    if (!result.ok) throw refusal(result.message);
    // before the first connection: kept, as the base the attributes then apply to
    if (!this._root) this._propertyBase = result.state;
    this._apply(result.state, { strict: true });
  }

  // A copy of the result on screen: {heads: [{q, k, v, scores, scaled, weights,
  // output}], concat, output, masked, fullyMasked, pe, xWithPe, contextPe,
  // contextWithPe}, absent parts null; matrices as arrays of rows of numbers
  // (masks of booleans). From WORKER_CELLS attention cells (heads × queries ×
  // keys) on, each row is a Float64Array instead (masks' rows and fullyMasked
  // Uint8Array, 1 = masked): arrays of 2^25 numbers would hold the page for seconds.
  get result() {
    wake(this);
    if (!this._result) return null;
    const { heads } = this._result;
    return heads.length * heads[0].weights.length * heads[0].weights[0].length >= WORKER_CELLS
      ? resultRowViews(typedResult(this._result, { copy: true })) : plainResult(this._result);
  }

  // A whole state replacing the one shown, as a link or a state file brings it
  // (the state property merges): the engine's refusal shown over the last
  // result, not thrown. The page that is this element (main.js) gives states it
  // has checked; any other caller's is checked here, a TypeError as the setter's.
  // Full mode also has the store (store.js: its history, for storage) and a
  // message over the steps (a descriptor, as i18n.js describe() reads it) until
  // the next whole state, or null.
  load(state) {
    wake(this);
    if (!this._full) {
      const checked = validateState(state);
      if (!checked.ok) throw refusal(checked.message);
      this._apply(checked.state);
      return;
    }
    this._apply(state);
  }

  get store() {
    return this._full ? this._store : null;
  }

  // (full mode) The state shown, itself, not a copy as `state` gives: states are
  // replaced, never changed, and the page only reads it (a copy at n = 4096 cost
  // the page's link writer 10–43 ms in one task on every change of view).
  get shownState() {
    return this._full ? this._shownState() : null;
  }

  get statusMessage() {
    return this._statusMessage;
  }

  // (the page's own, main.js) A descriptor that does not read in both languages throws and is
  // not kept: kept, it would break every later render (and so the next state set).
  set statusMessage(descriptor) {
    try {
      if (descriptor !== null) for (const lang of LANGUAGES) describe(lang, descriptor);
    } catch (error) {
      throw new TypeError(`statusMessage: ${error.message}`, { cause: error });
    }
    this._statusMessage = descriptor;
    this._render();
  }

  get computing() {
    wake(this);
    return this._waiting;
  }

  // A Promise resolved with the element once its first result is on screen (as
  // document.fonts.ready): unlike the `ready` event, never missed by a late listener.
  get ready() {
    wake(this);
    return this._ready;
  }

  // The engine's refusal of the newest edit (an overflow, say), in both
  // languages, while the steps show the last result it computed; else null.
  get error() {
    wake(this);
    const d = this._engineErrorMessage;
    return d ? { zh: describe('zh', d), en: describe('en', d) } : null;
  }

  // ---- state ----

  _lang() {
    const own = this.getAttribute('lang');
    if (LANGUAGES.includes(own)) return own;
    if (this._state) return this._state.view.lang;
    const inherited = this.closest('[lang]');
    return detectLanguage(inherited ? inherited.getAttribute('lang') : navigator.languages);
  }

  _attributeLang() {
    return LANGUAGES.includes(this.getAttribute('lang')) ? this.getAttribute('lang') : this._lang();
  }

  // The whole state from the attributes (first connected, or a new `state` attribute), on
  // a state set by property before the first connection if there is one; what was typed
  // gives way to it.
  _readAttributes() {
    const lang = this._attributeLang();
    try {
      const base = this._propertyBase || baseState(this, lang);
      const restored = Boolean(this._propertyBase) || this.hasAttribute('state');
      this._store.dispatch('load', stateFromAttributes(this, lang, base, this._attributeErrors, restored));
    } catch (error) {
      if (!error.descriptor) throw error;
      this._attributeErrors.set('state', error.descriptor);
      if (!this._state) this._store.dispatch('load', tutorialState(this._lang()));
    }
    this._propertyBase = null;
    this._quietly(() => this._editor?.reset(this._state));
    this._attributeState = this._state;
  }

  // A state that names a model, read into its matrices once the model is here (model-run.js):
  // true when the store was amended (the new state is heard next).
  _resolveModel(state) {
    if (!state || !state.model || this._models.notesOf(state)) return false;
    let derived;
    try {
      derived = this._models.derive(state);
    } catch (error) {
      if (!error.descriptor) throw error;
      return false; // (its message: the models' status)
    }
    const checked = derived && validateState(fitLearn(derived.state));
    if (!checked) return false;
    if (!checked.ok) {
      this._models.error = { name: state.model, descriptor: checked.message };
      return false;
    }
    this._store.amend(checked.state);
    return true;
  }

  // The picker's choice: the tutorial's example, or a model (loaded first) at a layer.
  async _chooseModel(name, layer) {
    const { lang, decimals } = this._state.view;
    if (!name) {
      this._replace({ ...tutorialState(lang), view: { ...tutorialState(lang).view, decimals } });
      return;
    }
    await this._models.request(name);
    const found = this._models.found.get(name);
    if (!found || !this._engine) {
      this._render(); // (the models' status says why)
      return;
    }
    let derived;
    try {
      derived = chosenState(this._state, found, name, layer, this._engine);
    } catch (error) {
      if (!error.descriptor) throw error;
      this._models.error = { name, descriptor: error.descriptor };
      this._render();
      return;
    }
    const checked = validateState(fitLearn(derived.state));
    if (!checked.ok) return;
    this._models.notes.set(choiceKey(checked.state), derived.notes);
    if (name === this._state.model) this._apply(checked.state);
    else this._replace(checked.state);
  }

  // A model's next-token predictions under the steps (views/predictions.js), or null.
  _renderPredictions(lang) {
    const state = this._state;
    const off = this._headOff && { layer: state.layer, head: state.view.head };
    const shown = state.model && this._models.predictions(state, off);
    if (!shown) return null;
    return renderPredictions(lang, {
      ...shown, tokens: state.tokens, off: Boolean(off), layer: state.layer, head: state.view.head,
      onToggle: () => {
        this._headOff = !this._headOff;
        this._render();
        (this._full ? this : this.shadowRoot).querySelector('.head-off')?.focus();
      },
    });
  }

  // A model (or the engine) arrived: the attributes read again when the state is theirs (head="3"
  // then has the model's heads), else the state resolved; true when either changed the state.
  _modelArrived() {
    if (!this._state || !this._state.model) return false;
    if (!this._full && this._state === this._attributeState && this.hasAttribute('model')) {
      this._readAttributes();
      return true;
    }
    if (this._resolveModel(this._state)) return true;
    this._render();
    return false;
  }

  // Runs fn, then tells the store's subscribers, without a change event (the caller sends it, or none is due).
  _quietly(fn) {
    this._quiet = true;
    try {
      fn();
      this._store.flush();
    } finally {
      this._quiet = false;
    }
  }

  get _state() {
    return this._store.state;
  }

  // The store's state changed: computed when its inputs did, rendered; an
  // edit made in the editor is told (event change).
  _onStore(state, types) {
    const before = this._handled;
    this._handled = state;
    if (this._resolveModel(state)) return; // (heard again, read with its model)
    this._editor?.sync(state);
    // (in full mode an edit or a whole state is a result shown, even with the same inputs, as the page counted it)
    if (sameInputs(before, state)) this._render({ counted: this._full && [...types].some((type) => type !== 'view' && type !== 'learn') });
    else this._edited();
    if (!this._quiet) this._changed();
  }

  // strict: a state the engine refuses when computed at once (an overflow,
  // say) throws and the element stays as it was (the `state` property); one
  // computed later (in the background) is shown with its error over the last
  // result, as while editing.
  _apply(next, { strict = false } = {}) {
    const state = fitLearn(next); // an edit of the tokens may leave the goal of "How it learns" behind
    const kept = strict && [this._store.snapshot(), this._handled, this._result, this._resultState, this._engineErrorMessage];
    if (this._full) {
      // nothing of the work before stays: its selections, comparison, a damaged link's message
      this._fullView.stopPlay();
      this._selections = {};
      this._compareBase = null;
      this._before = null;
      this._statusMessage = null;
    }
    // computed (when small; at once in full mode) and rendered now; what was typed gives way to it
    this._urgent = this._full;
    try {
      this._quietly(() => {
        this._store.dispatch('load', state);
        this._editor?.reset(this._state);
      });
    } finally {
      this._urgent = false;
    }
    if (strict && !this._waiting && this._engineErrorMessage) {
      const message = this._engineErrorMessage;
      let snapshot;
      [snapshot, this._handled, this._result, this._resultState, this._engineErrorMessage] = kept;
      this._store.revert(snapshot);
      this._editor?.reset(this._state);
      this._render();
      throw refusal(message);
    }
    this._changed();
  }

  // A whole state chosen in the element (a preset, a state file, a learned
  // example) replaces the work on screen: event `replace` first (the page keeps
  // the work it replaces: main.js), then the state.
  _replace(state) {
    this._emit('replace', { state: copyState(state) });
    this._apply(state);
  }

  // A change by the user: told now, or (a drag under way) when let go.
  _changed() {
    if (this._holding) this._heldChange = true;
    else this._notifyChange();
  }

  // Every event of the element (ready, change, computed, replace): a CustomEvent with its
  // detail that bubbles and is composed, as `change` always was (types/attention-visualizer.d.ts),
  // so that a listener on a host page's ancestor or beyond a shadow root hears each alike.
  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  _notifyChange() {
    this._emit('change', this._stateDetail());
  }

  // Undo and redo (editable: Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z, Ctrl+Y): the inputs
  // before (after) the last edit, with the view on screen.
  _undoRedo(action) {
    if (!(action === 'undo' ? this._store.undo() : this._store.redo())) return;
    this._quietly(() => {});
    this._notifyChange();
  }

  // A drag updates the steps as it goes, and is one change (and one undo entry) when let go.
  _hold(on) {
    this._store.hold(on);
    this._holding = on;
    if (this._full) this._fullView.hold(on);
    if (on || !this._heldChange) return;
    this._heldChange = false;
    this._notifyChange();
  }

  // The inputs changed: computed now, after the next paint or in the worker
  // (updates.js; once the engine has loaded), and shown at once.
  _edited() {
    this._waiting = true;
    if (this._engine && (this._urgent || (this._full && this._editor.urgent))) this._updates.update();
    else if (this._engine) this._updates.schedule();
    if (this._waiting) this._renderWaiting(); // else rendered with its result
  }

  _computeHere() {
    const { matrices, options } = readState(this._state);
    // the results in use are never written (updates.js ResultArrays): the one on screen,
    // its Before, and while the Before is computed, the new result
    const inUse = [this._result, this._before?.result].filter(Boolean);
    const compute = (opts, live) => this._arrays.resultOf(this._engine.compute(engineInput(matrices, opts), { typed: true, reuse: true }), live);
    let result;
    try {
      result = compute(options, inUse);
    } catch (error) {
      this._failed(error);
      return;
    }
    const base = this._comparisonBase(options);
    let before = null;
    if (base) {
      try {
        before = { result: compute(base, [...inUse, result]), changes: optionChanges(base, options) };
      } catch {
        this._compareBase = null; // e.g. overflow without the scaling: no comparison then
      }
    }
    this._take(this._state, result, before);
  }

  // The worker's results no longer on screen go back to it (updates.js WorkerResults).
  _giveBack(engine) {
    this._workerResults.giveBack(engine, [this._result, this._before?.result]);
  }

  _take(state, result, before = null) {
    this._resultState = state;
    this._result = result;
    this._before = before;
    this._engineErrorMessage = null;
  }

  // The engine's refusal, naming the field, row and column (the token) it is about.
  _failed(error) {
    const base = ENGINE_FIELDS[error.operand];
    const field = base && (['wq', 'wk', 'wv'].includes(base) ? headField(base, error.head || 0) : base);
    const tokens = field === 'c' ? this._state.context.tokens : this._state.tokens;
    const params = { ...locate(field, error.row, error.column, tokens), name: field ? fieldName(field) : error.operand, message: error.message };
    this._engineErrorMessage = { key: error.code === 'overflow' ? 'errOverflow' : 'errEngine', params };
  }

  // The options compared with the current ones (full mode), or null.
  _comparisonBase(options) {
    if (!this._full || !this._compareBase) return null;
    const base = { ...options, ...this._compareBase };
    if (base.keyPadding.length !== options.keyPadding.length) {
      this._compareBase = null; // the keys changed: the old padding no longer applies
      return null;
    }
    return optionChanges(base, options).length > 0 ? base : null;
  }

  // Called before a compared option changes: the settings so far become "before",
  // unless the same control is still being changed (typing a temperature).
  _noteComparedChange(option) {
    if (!this._resultState || (this._compareBase && this._compareOption === option)) return;
    const { options } = readState(this._resultState);
    this._compareBase = Object.fromEntries(COMPARED.map((key) => [key, options[key]]));
    this._compareOption = option;
  }

  _closeComparison() {
    this._compareBase = null;
    this._before = null;
    this._updates.update();
    this._fullView.closedComparison();
  }

  // The newest edit's result (or its error) is on screen.
  _computed() {
    this._waiting = false;
    this._render({ counted: true });
    if (!this._readySent && this._engine) {
      this._readySent = true;
      this._settleReady.resolve(this);
      this._emit('ready', this._stateDetail());
    }
    this._emit('computed', this._stateDetail());
  }

  _config() {
    const stepsAttr = this.getAttribute('steps');
    const panelsAttr = this.getAttribute('panels');
    return {
      steps: stepsAttr && stepsAttr.trim() !== 'all' ? stepsAttr.split(/[\s,]+/).filter(Boolean) : null,
      panels: new Set(panelsAttr ? panelsAttr.split(/[\s,]+/).filter(Boolean) : PANELS),
      theme: this.getAttribute('theme') || 'auto',
    };
  }

  // (mode="full" refused on a host page: the editor still, as the author asked for the whole page)
  _editable() {
    return this._full || this.getAttribute('mode') === 'full' || isOn(this.getAttribute('editable'));
  }

  // The steps of the result on screen (those of the newest edit once it is computed).
  _visibleSteps() {
    const all = stepsFor(readState(this._resultState || this._state).options);
    const { steps } = this._config();
    const visible = steps ? all.filter((step) => steps.includes(step.id)) : all;
    return visible.length > 0 ? visible : all;
  }

  _setView(view) {
    this._quietly(() => this._store.dispatch('view', view));
    this._changed();
  }

  // ---- rendering ----

  // counted: a result (or an input that does not read) is shown: full mode
  // counts it in <html data-render-count> (for tests and the page-latency benchmark).
  _render({ counted = false } = {}) {
    if (!this._state || !this._root) return;
    if (!this._started) {
      this._root.classList.toggle('dark', this._isDark(this._config().theme)); // far: an empty frame of its theme
      return;
    }
    if (this._editor) this._picker.render(this._state);
    if (this._full) {
      if (!this._editor) this._makeEditor();
      this._fullView.render();
      this.querySelector('.predictions')?.remove();
      const predictions = this._renderPredictions(this._lang());
      if (predictions) this.querySelector('#steps').after(predictions);
      if (counted) {
        const root = document.documentElement;
        root.dataset.renderCount = String(Number(root.dataset.renderCount || 0) + 1);
      }
      return;
    }
    const lang = this._lang();
    const config = this._config();
    const root = this._root;
    root.lang = htmlLang(lang);
    root.setAttribute('aria-label', translate(lang, 'elementLabel'));
    root.className = ['av', ...PANELS.filter((p) => !config.panels.has(p)).map((p) => `no-${p}`),
      this._isDark(config.theme) ? 'dark' : ''].filter(Boolean).join(' ');
    const focusedId = this.shadowRoot.activeElement && this.shadowRoot.activeElement.dataset.focusId;
    // The editor stays in place (typing must keep its focus); the rest is drawn anew.
    if (this._editable()) this._renderEditor();
    const parts = [];
    if (config.panels.has('nav')) parts.push(this._renderNav(lang));
    if (this._state.heads.length > 1) parts.push(this._renderHeads(lang));
    parts.push(this._renderStatus(lang), this._renderSteps(lang));
    const predictions = this._renderPredictions(lang);
    if (predictions) parts.push(predictions);
    // the example's steps first; its editor under them (on a phone the editor is a long page of fields)
    if (this._editable()) parts.push(this._editorBox);
    if (config.panels.has('tools') && this._result) parts.push(this._tools.render(lang));
    const keep = parts.filter((node) => node.isConnected);
    for (const node of [...root.children]) if (!keep.includes(node)) node.remove();
    parts.forEach((node, i) => {
      if (root.children[i] !== node) root.insertBefore(node, root.children[i] || null);
    });
    if (focusedId) {
      const again = root.querySelector(`[data-focus-id="${focusedId}"]`);
      // Next pressed at the last step (Previous at the first) is disabled now: its focus goes
      // to the first of Previous, Next and "all steps" left enabled, not to the body.
      (again && again.disabled ? [...root.querySelectorAll('.av-bar > button')].find((b) => !b.disabled) : again)?.focus();
      // a stage left by ←/→ hands its focus to the stage of the step it opened (the one in the Tab order)
      if (again && focusedId.startsWith('stage-') && again.tabIndex < 0) root.querySelector('.pipeline-stage[tabindex="0"]')?.focus();
    }
    this._levelHeadings();
    // On a narrow screen the diagram scrolls sideways: keep the current stage in sight
    // (scrollIntoView would scroll the host page too).
    const pipeline = root.querySelector('.pipeline');
    if (pipeline) revealCurrent(pipeline);
  }

  // heading-level="N": the steps' titles (h3) and the editor's (h2) are read as level N, what
  // they hold one or two below; headings drawn later (a step's learning panel) too.
  _levelHeadings() {
    const { level } = headingLevel(this.getAttribute('heading-level'));
    this._headingObserver ||= new MutationObserver(() => this._levelHeadings());
    this._headingObserver.disconnect();
    for (const h of this._root.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
      const below = Number(h.tagName[1]) - (this._editorBox?.contains(h) ? 2 : 3);
      if (level === null) h.removeAttribute('aria-level');
      else setAttr(h, 'aria-level', String(Math.min(6, Math.max(1, level + below))));
    }
    if (level !== null) this._headingObserver.observe(this._root, { childList: true, subtree: true });
  }

  // While the newest edit computes: in full mode the edit and the status show
  // at once, the steps keep the last result, marked, until the new one (their
  // render at n = 512 would cost as much as the computation).
  _renderWaiting() {
    if (this._full && this._editor) this._fullView.renderWaiting();
    else this._render();
  }

  // theme="auto" follows what the element sits on (theme.js)
  _isDark(theme) {
    return this._theme.isDark(theme);
  }

  _currentIndex(steps) {
    const i = steps.findIndex((step) => step.id === this._state.view.step);
    return i >= 0 ? i : 0;
  }

  _renderNav(lang) {
    const t = (key, params) => translate(lang, key, params);
    const steps = this._visibleSteps();
    const overview = this._state.view.step === 'all';
    const index = this._currentIndex(steps);
    const bar = el('div', 'av-bar');
    const go = (i) => this._setView({ step: steps[Math.max(0, Math.min(steps.length - 1, i))].id });
    const prev = button(t('prev'), () => go(index - 1));
    prev.disabled = overview || index === 0;
    prev.dataset.focusId = 'prev';
    const next = button(t('next'), () => go(index + 1));
    next.disabled = overview || index === steps.length - 1;
    next.dataset.focusId = 'next';
    // a labelled group, not a landmark: landmarks are the host page's (several elements, several navs)
    const nav = el('div', 'pipeline-box');
    nav.setAttribute('role', 'group');
    nav.setAttribute('aria-label', translate(lang, 'stepsLabel'));
    // the whole computation, its stages opening the steps this element shows, one of them in the Tab order
    nav.append(createPipeline(this._view(lang), {
      current: overview ? null : steps[index].id, onOpen: (id) => this._setView({ step: id }), enabled: steps.map((step) => step.id), roving: true,
    }));
    const all = button(t(overview ? 'guided' : 'overview'), () => this._setView({ step: overview ? steps[0].id : 'all' }));
    all.setAttribute('aria-pressed', overview ? 'true' : 'false');
    all.dataset.focusId = 'all';
    bar.append(prev, nav, next, all);
    return bar;
  }

  _renderHeads(lang) {
    const box = el('div', 'av-heads');
    box.setAttribute('role', 'group');
    box.append(el('span', 'head-tabs-label', translate(lang, 'viewHeadLabel')));
    const errors = this._editable() && this._editor ? this._editor.errors : {};
    this._state.heads.forEach((_, h) => {
      const tab = headTab(lang, h, () => this._setView({ head: h }));
      markHeadTab(tab, h, this._state.view.head, errors);
      box.append(tab);
    });
    return box;
  }

  _renderStatus(lang) {
    const box = el('div', 'status');
    box.append(...this._statusMessages(lang).map(([kind, text]) => el('p', `status-${kind}`, text)));
    return box;
  }

  // The status over the steps, full and compact alike: [kind, text] of each message.
  _statusMessages(lang) {
    const messages = [];
    const add = (kind, text) => messages.push([kind, text]);
    for (const descriptor of this._attributeErrors.values()) add('error', describe(lang, descriptor));
    if (!this._full) for (const descriptor of configProblems(this)) add('error', describe(lang, descriptor));
    if (this._engineError) add('error', this._full ? loadFailure(lang, this._engineError) : describeLoadFailure(lang, this._engineError));
    else if (!this._engine) add('loading', translate(lang, 'loading'));
    else if (this._updates.running) add('loading', translate(lang, 'computing'));
    if (this._engineErrorMessage) add('error', describe(lang, this._engineErrorMessage));
    if (this._statusMessage) add('error', describe(lang, this._statusMessage));
    const shown = this._shownState();
    for (const { kind, descriptor } of this._models.status(shown, lang)) add(kind, describe(lang, descriptor));
    const madeUp = shown ? madeUpTokens(shown) : [];
    if (madeUp.length > 0) add('note', translate(lang, 'madeUpVectors', quotedTokens(madeUp)));
    // what is typed in the editor does not read (its message is under its field): the steps show the last that did
    if (this._editable() && this._editor && this._editor.hasErrors() && this._result) add('stale', translate(lang, 'staleNote'));
    const heading = this._full ? {} : headingLevel(this.getAttribute('heading-level'));
    if (heading.error) add('error', describe(lang, heading.error));
    return messages;
  }

  // The inputs of `state` as the views read them (all the pipeline diagram needs;
  // the steps' ctx adds the result).
  _view(lang, state = this._state) {
    const { matrices, options } = readState(state);
    const head = Math.min(this._state.view.head, options.heads - 1);
    const tokens = state.tokens;
    const keyTokens = state.context ? state.context.tokens : tokens;
    return {
      lang, decimals: this._state.view.decimals, tokens, keyTokens, options, head, matrices,
      inputs: { x: matrices.x, c: matrices.c, wo: matrices.wo, ...state.heads[head] },
    };
  }

  // The steps' context: the result on screen with the inputs it was computed
  // from, shown as the current view says.
  _ctx(lang) {
    const view = this._view(lang, this._resultState);
    const { options, tokens, matrices, head } = view;
    const before = this._full && this._before;
    return {
      ...view,
      result: this._result.heads[head], full: this._result,
      // the tutorial's printed values are of temperature 1
      tutorial: isPlain(options) && options.temperature === 1 && tokens.length === 3 && ['x', 'wq', 'wk', 'wv'].every((f) => sameNumbers(matrices[f], TUTORIAL[f])),
      // the preset whose numbers these are (head 0's, on its own tokens), whatever the options:
      // its note says what the weights on screen now show (hints.js)
      preset: !options.cross && head === 0 ? presetOf(tokens, matrices) : null,
      compare: before && before.changes.length > 0 ? {
        before: { weights: before.result.heads[head].weights, masked: before.result.masked },
        after: { weights: this._result.heads[head].weights, masked: this._result.masked },
        changes: before.changes,
      } : null,
      onCloseCompare: () => this._closeComparison(),
      onOpenHead: (h) => (this._full ? this._fullView.openHead(h) : this._setView({ head: h, step: 'softmax' })),
      learn: this._learner,
      learnSettings: this._state.learn || null,
    };
  }

  // Steps of the same layout as those on screen get the new numbers in place (as on the full page).
  _renderSteps(lang) {
    const list = this._stepList;
    if (!this._result) {
      list.replaceChildren();
      return list;
    }
    list.classList.toggle('stale', Boolean(this._engineErrorMessage) || (this._editable() && this._editor.hasErrors()) || this._waiting);
    list.dataset.staleLabel = translate(lang, 'staleLabel');
    const ctx = this._ctx(lang);
    const steps = this._visibleSteps();
    const current = this._state.view.step === 'all' ? 'all' : steps[this._currentIndex(steps)].id;
    const indices = current === 'all' ? steps.map((_, i) => i) : [this._currentIndex(steps)];
    // one step reached from another: its arrival plays (steps.js)
    const left = this._shownStep;
    const arrival = current !== 'all' && left && left !== 'all' && left !== current ? { from: shownCell(list.querySelector(':scope > .step')) } : null;
    this._shownStep = current;
    showSteps(list, this._viewHost, { steps, indices, all: stepsFor(ctx.options), ctx, arrival });
    return list;
  }

  // ---- editing (editable) ----

  // "Edit the example" (editor.js), as on the full page; made once, kept in place.
  _renderEditor() {
    if (!this._editor) this._makeEditor();
    this._editor.render();
  }

  _makeEditor() {
    this._editor = new Editor({
      store: this._store,
      lang: () => this._lang(),
      replace: (state) => this._replace(state), // a preset: `replace` first, in every mode (docs/authoring.md)
      undo: () => this._undoRedo('undo'),
      redo: () => this._undoRedo('redo'),
      hold: (on) => this._hold(on),
      // the before/after comparison is the full mode's
      optionChanged: (key) => {
        if (!this._full) return;
        if (key === 'cross') this._compareBase = null; // the keys change
        else this._noteComparedChange(key);
      },
      changed: () => this._render({ counted: true }),
      // the preset's note, from the result on screen once it is the newest edit's
      presetHint: () => (this._result && !this._waiting ? presetHint(this._ctx(this._lang())) : null),
    });
    if (this._full) {
      this._fullView.mountEditor(this._editor.panel);
    } else {
      this._editorBox = el('section', 'panel inputs av-editor');
      this._editorBox.setAttribute('aria-labelledby', 'inputs-title');
      this._editorBox.append(this._editor.panel);
    }
    this._editor.panel.querySelector('#model-slot').append(this._picker.node);
    this._picker.render(this._state);
    this._editor.reset(this._state);
  }

  _onKeydown(event) {
    const undo = this._editable() && undoKey(event);
    if (undo) {
      event.preventDefault();
      if (undo === 'undo') this._editor.undo(); // input that does not read goes back to the last that did first
      else this._undoRedo('redo');
      return;
    }
    if (this._full) {
      this._fullView.onKeydown(event);
      return;
    }
    const move = stepMove(event);
    if (!move || this._state.view.step === 'all') return;
    const steps = this._visibleSteps();
    const i = this._currentIndex(steps) + move;
    if (i < 0 || i >= steps.length) return;
    event.preventDefault();
    this._setView({ step: steps[i].id });
  }

  // The display attributes present (an iframe's query takes editable only when on).
  _displayAttributes() {
    if (this._full) return []; // the page's embed code shows the steps as an element's defaults do
    return CONFIG_ATTRIBUTES.filter((name) => this.hasAttribute(name) && (name !== 'editable' || this._editable()))
      .map((name) => [name, this.getAttribute(name)]);
  }

  // The markup that shows exactly this: 'element' or 'iframe'.
  embedCode(form) {
    return embedCode(form, this._shownState(), this._displayAttributes(), SCRIPT_URL || document.baseURI, document.baseURI);
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('attention-visualizer')) {
  customElements.define('attention-visualizer', AttentionVisualizer);
}
