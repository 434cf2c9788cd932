// <attention-visualizer>: the steps of the page as a custom element for
// tutorial authors. One classic script (dist/attention-visualizer.js, the
// engine included); every element on a page shares the one engine that
// createAttentionEngine() caches, and each is drawn and computed only once near the viewport
// or asked for by a script (visibility.js). Two views behind one interface draw it: the
// compact one (compact.js: shadow DOM with adopted stylesheets, so the host page's CSS neither
// breaks it nor is touched by it) and, on the visualizer's own page, the full one (full.js).
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
//
// The views (compact.js, full.js) answer the same calls, and the element makes no other:
// mount() (where it draws: {root, keys, drops}), mountEditor(panel), render({counted}),
// renderFar() (not started: an empty frame), renderWaiting() (while the newest edit computes:
// in full mode the edit and the status at once, the steps keep the last result, marked),
// renderTools(), keys(event) (a keydown the element did not take: ←/→), hold(on) (a drag),
// shownState() (the step on screen), themeStale() (theme.js), openHead(h), closedComparison(),
// stopPlay(), and for the status attributeProblems(), headingProblems(), loadFailure(lang, f).
// They read the element through its view host (_viewHost), never its private fields.

import { describe, describeLoadFailure, LANGUAGES } from '../ui/i18n.js';
import { presetHint } from '../views/hints.js';
import { tutorialState } from '../state/presets.js';
import { validateState, fitLearn } from '../state/schema.js';
import { copyState } from '../state/json.js';
import { StateStore } from '../state/store.js';
import { Editor } from '../edit/editor.js';
import { undoKey, sameInputs } from '../state/history.js';
import { FullView } from './full.js';
import { CompactView } from './compact.js';
import {
  DATA_ATTRIBUTES, CONFIG_ATTRIBUTES, FULL_MODE, isOn, elementLang, readAttributes, stateWithAttribute, mergedState, stateOfText,
  refusal, displayAttributes,
} from './attributes.js';
import { embedCode } from './embed-code.js';
import { makeTools, makeLearner } from './parts.js';
import { Computation } from './compute.js';
import { viewInputs, stepsContext, engineRefusal, statusMessages } from './context.js';
import { resultCopy } from './buffers.js';
import { emit, stateDetail } from './events.js';
import { Changes } from './changes.js';
import { HostTheme } from './theme.js';
import { takeDrops } from './drop.js';
import { forget, whenNear, wake, withEngine } from './visibility.js';
import { checkCell } from './check.js';
import { ElementModels } from './models.js';

// Where this script was loaded from: embed.html and index.html sit next to it. (Under node,
// a static-site build's server render, there is no document: importing defines nothing.)
const SCRIPT_URL = typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : '';

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
    // The state (store.js): set by the attributes, the `state` property and the edits;
    // _onStore() computes and renders what it holds. _handled: the state it last saw.
    this._store = new StateStore();
    this._store.subscribe((state, types) => this._onStore(state, types));
    this._handled = null;
    this._attributeState = null; // the state the attributes made, until edited
    // when a change is told (event change): changes.js
    this._changes = new Changes({ store: this._store, tell: () => this._emit('change', this._stateDetail()), hold: (on) => this._view.hold(on) });
    // a model the state names (models.js), loaded from the models/ folder beside the script
    this._models = new ElementModels({
      engine: () => this._engine, state: () => this._state, lang: () => this._lang(), full: () => this._full,
      amend: (state) => this._store.amend(state),
      apply: (state) => this._apply(state), replace: (state) => this._replace(state), render: () => this._render(),
      setView: (view) => this._setView(view), // (a head of the layer on screen opened: model-view.js)
      // (head="3" is read again once the model has its heads, while the state is the attributes')
      reread: () => {
        if (this._full || this._state !== this._attributeState || !this.hasAttribute('model')) return false;
        this._readAttributes();
        return true;
      },
    }, () => new URL('models/', SCRIPT_URL || document.baseURI));
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
    // Computed (compute.js) where and when its size says, into the arrays of results no longer shown.
    this._compute = new Computation({
      state: () => this._state,
      engine: () => this._engine,
      comparing: () => this._full,
      live: () => [this._result, this._before?.result].filter(Boolean),
      resultState: () => this._resultState,
      take: (state, result, before) => this._take(state, result, before),
      failed: (error) => this._failed(error),
      computed: () => this._computed(),
      waiting: () => this._view.renderWaiting(),
    });
    this._started = false; // drawn and computed: once near the viewport or asked for (visibility.js)
    this._engine = null;
    this._engineError = null;
    this._attributeErrors = new Map(); // the attributes that do not read: group → descriptor
    this._propertyBase = null; // a state set by property before the element was first connected
    this._engineErrorMessage = null;
    this._selections = {};
    // What the views (compact.js, full.js, and their steps: showSteps) read of the element and
    // ask of it: no view reads the element's private fields.
    this._viewHost = {
      state: () => this._state,
      result: () => this._result,
      resultState: () => this._resultState,
      editor: () => this._editor,
      editable: () => this._editable(),
      lang: () => this._lang(),
      isDark: (theme) => this._theme.isDark(theme), // theme="auto" follows what the element sits on (theme.js)
      holding: () => this._changes.holding,
      waiting: () => this._waiting,
      refused: () => Boolean(this._engineErrorMessage),
      running: () => Boolean(this._compute.running),
      ctx: (lang) => this._ctx(lang),
      statusMessages: (lang) => this._statusMessages(lang),
      setView: (view) => this._setView(view),
      render: () => this._render(),
      predictions: (lang) => this._models.predictions(lang), // a model's, under the steps, or null
      picks: (lang) => this._models.picks(lang), // what a model's head picks, under the sentence, or null
    };
    Object.defineProperties(this._viewHost, {
      selections: { get: () => this._selections }, // each step's selected cell, by step id
      tools: { get: () => this._tools },
    });
    // The view that draws it: compact.js, or full.js once connected with mode="full" (_mount).
    this._view = new CompactView(this._viewHost, this);
    this._statusMessage = null; // the page's message over the steps (a damaged link), until the next whole state
    this._urgent = false; // a whole state loaded: computed at once
    this._before = null; // the before/after comparison's (full mode, compute.js): {result, changes}, or null
    this._editor = null; // "Edit the example" (editor.js), made when first editable
    // The export panel (views/tools.js) and "How it learns" (views/learn.js): parts.js
    const baseUrl = () => (this._full ? location.href : SCRIPT_URL || location.href);
    const actions = {
      state: () => this._state, shownState: () => this._shownState(), engine: () => this._engine, ctx: (lang) => this._ctx(lang),
      editable: () => this._editable(), apply: (state) => this._apply(state), replace: (state) => this._replace(state),
      rerenderTools: () => this._view.renderTools(true), displayAttributes: () => this._displayAttributes(), baseUrl,
    };
    this._tools = makeTools(actions);
    this._learner = makeLearner(actions);
    // the system's scheme, or a host page that switches its own theme on <html> or <body>
    this._theme = new HostTheme(this, () => {
      if (this._state && this._view.themeStale()) this._render();
    });
  }

  // Where the element draws, decided when first connected (mode is read then):
  // in full mode the element's own children, the page's layout (full.js), its
  // keys and dropped files taken from the whole document; else a shadow root
  // with adopted stylesheets (compact.js).
  _mount() {
    this._full = this.getAttribute('mode') === 'full' && FULL_MODE.allowed; // (else refused: configProblems)
    if (this._full) this._view = new FullView(this._viewHost, this);
    const { root, keys, drops } = this._view.mount();
    this._root = root;
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
        this._models.arrived(); // (a model waiting for the engine is read now)
        if (this._state) this._compute.update();
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
      else this._changes.quietly(() => this._store.dispatch('load', stateWithAttribute(this, this._state, name, this._lang(), this._attributeErrors, this._models.choice)));
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
    return this._state ? this._view.shownState() : null;
  }

  // An event's detail: {state}, a copy of the state shown now, made when first read (events.js).
  _stateDetail() {
    return stateDetail(this._shownState());
  }

  // A whole state or some of its fields (merged into the current one: attributes.js mergedState).
  set state(value) {
    wake(this);
    if (typeof value === 'string') {
      this.state = stateOfText(value); // a share link's hash, or a state's JSON text (React 19 sets the property)
      return;
    }
    const result = validateState(mergedState(this._state || tutorialState(this._lang()), value, this._state?.view));
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
    return resultCopy(this._result);
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

  // A learner's value for a cell or a row, checked against the numbers on screen (check.js),
  // and sent as an `answer` event with the same detail.
  check(cell, value) {
    wake(this);
    const detail = checkCell({ engine: () => this._engine, state: () => this._resultState || this._state }, cell, value);
    this._emit('answer', detail);
    return detail;
  }

  // ---- state ----

  // The language shown (attributes.js): lang="…", the state's, the page's or the browser's.
  _lang() {
    return elementLang(this, this._state);
  }

  // The whole state from the attributes (first connected, or a new `state` attribute), on
  // a state set by property before the first connection if there is one; what was typed
  // gives way to it.
  _readAttributes() {
    const read = readAttributes(this, this._lang(), this._propertyBase, this._attributeErrors, this._models.choice);
    if (read) this._store.dispatch('load', read);
    else if (!this._state) this._store.dispatch('load', tutorialState(this._lang()));
    this._propertyBase = null;
    this._changes.quietly(() => this._editor?.reset(this._state));
    this._attributeState = this._state;
  }

  get _state() {
    return this._store.state;
  }

  // The store's state changed: computed when its inputs did, rendered; an
  // edit made in the editor is told (event change).
  _onStore(state, types) {
    const before = this._handled;
    this._handled = state;
    if (this._models.resolve(state)) return; // (heard again, read with its model)
    this._editor?.sync(state);
    // (in full mode an edit or a whole state is a result shown, even with the same inputs, as the page counted it)
    if (sameInputs(before, state)) this._render({ counted: this._full && [...types].some((type) => type !== 'view' && type !== 'learn') });
    else this._edited();
    if (!this._changes.quiet) this._changes.changed();
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
      this._view.stopPlay();
      this._selections = {};
      this._compute.compareBase = null;
      this._before = null;
      this._statusMessage = null;
    }
    // computed (when small; at once in full mode) and rendered now; what was typed gives way to it
    this._urgent = this._full;
    try {
      this._changes.quietly(() => {
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
    this._changes.changed();
  }

  // A whole state chosen in the element (a preset, a state file, a learned
  // example) replaces the work on screen: event `replace` first (the page keeps
  // the work it replaces: main.js), then the state.
  _replace(state) {
    this._emit('replace', { state: copyState(state) });
    this._apply(state);
  }

  // Every event of the element, bubbling and composed alike (events.js).
  _emit(type, detail) {
    emit(this, type, detail);
  }

  // The inputs changed: computed now, after the next paint or in the worker
  // (updates.js; once the engine has loaded), and shown at once.
  _edited() {
    this._waiting = true;
    if (this._engine && (this._urgent || (this._full && this._editor.urgent))) this._compute.update();
    else if (this._engine) this._compute.schedule();
    if (this._waiting) this._view.renderWaiting(); // else rendered with its result
  }

  _take(state, result, before = null) {
    this._resultState = state;
    this._result = result;
    this._before = before;
    this._engineErrorMessage = null;
  }

  // The engine's refusal, naming the field, row and column (the token) it is about.
  _failed(error) {
    this._engineErrorMessage = engineRefusal(error, this._state);
  }

  _closeComparison() {
    this._compute.compareBase = null;
    this._before = null;
    this._compute.update();
    this._view.closedComparison();
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

  // (mode="full" refused on a host page: the editor still, as the author asked for the whole page)
  _editable() {
    return this._full || this.getAttribute('mode') === 'full' || isOn(this.getAttribute('editable'));
  }

  _setView(view) {
    this._changes.quietly(() => this._store.dispatch('view', view));
    this._changes.changed();
  }

  // ---- rendering ----

  // counted: a result (or an input that does not read) is shown: full mode
  // counts it in <html data-render-count> (for tests and the page-latency benchmark).
  _render({ counted = false } = {}) {
    if (!this._state || !this._root) return;
    if (!this._started) {
      this._view.renderFar();
      return;
    }
    if (!this._editor && this._editable()) this._makeEditor();
    if (this._editor) this._models.picker.render(this._state);
    this._view.render({ counted });
  }

  // The status over the steps, full and compact alike (context.js): [kind, text] of each message.
  _statusMessages(lang) {
    const models = this._models.status(this._shownState(), lang);
    return [...models, ...statusMessages(lang, {
      errors: [...this._attributeErrors.values(), ...this._view.attributeProblems()],
      engineError: this._engineError, loadFailure: (failure) => this._view.loadFailure(lang, failure),
      loaded: Boolean(this._engine), running: this._compute.running,
      refusals: [this._engineErrorMessage, this._statusMessage].filter(Boolean),
      shown: this._shownState(),
      stale: this._editable() && this._editor && this._editor.hasErrors() && this._result,
      after: this._view.headingProblems(),
    })];
  }

  // The steps' context (context.js): the result on screen with the inputs it was computed
  // from, shown as the current view says.
  _ctx(lang) {
    return stepsContext(viewInputs(lang, this._resultState, this._state), this._result, this._full && this._before, {
      onCloseCompare: () => this._closeComparison(),
      onOpenHead: (h) => this._view.openHead(h),
      learn: this._learner,
      learnSettings: this._state.learn || null,
      check: (cell, value) => this.check(cell, value),
      onExercise: () => this._render(), // a blank filled in (views/exercise.js)
    });
  }

  // ---- editing (editable) ----

  // "Edit the example" (editor.js), as on the full page; made once (when first drawn), kept in place.
  _makeEditor() {
    this._editor = new Editor({
      store: this._store,
      lang: () => this._lang(),
      replace: (state) => this._replace(state), // a preset: `replace` first, in every mode (docs/authoring.md)
      undo: () => this._changes.undoRedo('undo'),
      redo: () => this._changes.undoRedo('redo'),
      hold: (on) => this._changes.hold(on),
      optionChanged: (key) => this._compute.optionChanged(key), // the before/after comparison's
      changed: () => this._render({ counted: true }),
      // the preset's note, from the result on screen once it is the newest edit's
      presetHint: () => (this._result && !this._waiting ? presetHint(this._ctx(this._lang())) : null),
    });
    this._view.mountEditor(this._editor.panel);
    this._editor.panel.querySelector('#model-slot').append(this._models.picker.node);
    this._models.picker.render(this._state);
    this._editor.reset(this._state);
  }

  _onKeydown(event) {
    const undo = this._editable() && undoKey(event);
    if (undo) {
      event.preventDefault();
      if (undo === 'undo') this._editor.undo(); // input that does not read goes back to the last that did first
      else this._changes.undoRedo('redo');
      return;
    }
    this._view.keys(event);
  }

  // The display attributes present (an iframe's query takes editable only when on).
  _displayAttributes() {
    return this._full ? [] : displayAttributes(this, this._editable()); // (the page's: as an element's defaults)
  }

  // The markup that shows exactly this: 'element' or 'iframe'.
  embedCode(form) {
    return embedCode(form, this._shownState(), this._displayAttributes(), SCRIPT_URL || document.baseURI, document.baseURI);
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('attention-visualizer')) {
  customElements.define('attention-visualizer', AttentionVisualizer);
}
