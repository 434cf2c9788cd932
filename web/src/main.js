// Wires the page: one store (store.js) holds the state; the editor
// (editor.js) turns what is typed into the store's inputs; each change of
// the inputs asks the WebAssembly engine for every step, and the step(s) in
// view are rendered. While some input does not read, the last good result
// stays, marked as stale.

import { detectLanguage, htmlLang, translate, describe, LANGUAGES } from './i18n.js';
import { presetOf, TUTORIAL } from './presets.js';
import { sameNumbers, locate, headField, fieldName } from './model.js';
import { engineInput, optionChanges, COMPARED } from './variant.js';
import { Updates, rowsOf } from './updates.js';
import { stepsFor, renderStep, updateStep, shownCell, signedLegend } from './steps.js';
import { showPipeline, revealCurrent } from './pipeline.js';
import { el, setDisabled } from './dom.js';
import { decodeHash, encodeHash, fitLearn, readState, tutorialState } from './share.js';
import { Tools } from './tools.js';
import { Store as Storage, renderStorageNotice } from './persist.js';
import { undoKey, inputsOf } from './history.js';
import { StateStore } from './store.js';
import { Editor, applyStrings } from './editor.js';
import { createLearner } from './learn.js';
import { learnedState } from './learned.js';

const $ = (id) => document.getElementById(id);
const HEAD_EDITORS = ['wq', 'wk', 'wv'];
const PLAY_INTERVAL_MS = 3000;
const LANG_KEY = 'attention-visualizer.lang';
const ENGINE_FIELDS = { x: 'x', wq: 'wq', wk: 'wk', wv: 'wv', wo: 'wo', context: 'c' };

// What the page holds besides the store's state: the engine, the last good
// result, the timers and the marks of what is on screen.
const state = {
  generalError: null,
  engine: null,
  engineStatus: 'loading', // 'loading' | 'ready' | 'failed'
  loadError: '',
  lastGood: null,
  stepIndex: 4, // where to go when the step in view disappears
  playTimer: null,
  selections: {},
  // The compared options (scale, temperature, masks) before the latest change, or null.
  compareBase: null,
  compareOption: null,
  hashError: null, // a link's state that could not be read
  writtenHash: '', // the hash this page wrote last (a different one comes from the user)
  // The history entry of the state that last arrived whole (a link, a file, a
  // preset, the tutorial) while it is the one on screen: not the user's work.
  arrival: null,
  arriving: false, // the next state kept is such an arrival
  holding: false, // a drag of the slider or of a number is under way: it becomes one edit when let go
  renderedView: null, // the view the steps were last rendered for
  urgent: false, // while a whole state (loaded, undone, redone) is told: computed at once
};
// The state (store.js). A first visit opens on the attention weights: the one
// picture of attention (who listens to whom, each row summing to 1), with the
// diagram above it saying where they come from and where they go.
const firstState = tutorialState(storedLanguage() || detectLanguage(navigator.languages));
const store = new StateStore({ ...firstState, view: { ...firstState.view, step: 'softmax' } });
const view = () => store.state.view;
const storage = new Storage(undefined, undefined, () => showStorageNotice()); // the state kept in localStorage (persist.js); a deferred write that fails shows the notice

const editor = new Editor({
  store,
  lang: () => view().lang,
  replace: (next) => replaceWork(() => loadState(next)),
  undo: () => undoEdit(),
  redo: () => redoEdit(),
  hold,
  optionChanged: (key) => {
    if (key === 'cross') state.compareBase = null; // the keys change
    else noteComparedChange(key);
  },
  changed: renderCounted, // the steps keep the last good result, marked
});
$('edit-panel').append(editor.panel);

// The store's state changed: new inputs are computed (updates.js), a view
// the page did not render yet is rendered.
store.subscribe((current, types) => {
  editor.sync(current);
  const inputs = [...types].some((type) => type !== 'view' && type !== 'learn');
  if (inputs) {
    state.generalError = null;
    // an edit by a click, an apply, a loaded state, undo: at once; typing: as updates.js schedules it
    if (editor.urgent || state.urgent) update();
    else updates.schedule();
  } else if (types.has('view') && current.view !== state.renderedView) {
    if (current.view.lang !== document.documentElement.dataset.lang) applyStaticStrings();
    render();
  } else if (state.lastGood) {
    scheduleHash(); // the goal of "How it learns"
  }
});

function storedLanguage() {
  try {
    const lang = localStorage.getItem(LANG_KEY);
    return LANGUAGES.includes(lang) ? lang : null;
  } catch {
    return null; // storage can be blocked; the browser language decides then
  }
}

function storeLanguage(lang) {
  try {
    localStorage.setItem(LANG_KEY, lang);
  } catch {
    // not remembered, nothing else lost
  }
}

// ---- computing ----

// The store's inputs read for the engine, or null when it cannot compute now
// (the engine loading; what the editor holds does not read).
function readForEngine() {
  if (state.engineStatus !== 'ready') return null;
  const current = store.state;
  return { ...readState(current), state: current };
}

// A result of `read` (and its comparison `before`, or null) becomes the last good one.
function accept(read, result, before) {
  const { state: computed, matrices, options } = read;
  state.lastGood = {
    state: computed, tokens: computed.tokens, keyTokens: computed.context ? computed.context.tokens : computed.tokens,
    matrices, options, result, before: before ? before.result : null, changes: before ? before.changes : [],
  };
}

function engineFailed(error) {
  const field = fieldOfEngineError(error);
  const current = store.state;
  const tokens = field === 'c' ? current.context.tokens : current.tokens;
  const params = { ...locate(field, error.row, error.column, tokens), name: field ? fieldName(field) : error.operand, message: error.message };
  state.generalError = { key: error.code === 'overflow' ? 'errOverflow' : 'errEngine', params };
}

function compute() {
  const read = readForEngine();
  if (!read) return;
  state.generalError = null;
  let result;
  try {
    result = computeRows(engineInput(read.matrices, read.options));
  } catch (error) {
    engineFailed(error);
    return;
  }
  const base = comparisonBase(read);
  let before = null;
  if (base) {
    try {
      before = { result: computeRows(engineInput(read.matrices, base)), changes: optionChanges(base, read.options) };
    } catch {
      state.compareBase = null; // e.g. overflow without the scaling: no comparison then
    }
  }
  accept(read, result, before);
}
// The typed form (no arrays of rows built from 2^25 numbers) seen as rows of views (updates.js).
const computeRows = (input) => rowsOf(state.engine.compute(input, { typed: true }));

function fieldOfEngineError(error) {
  const base = ENGINE_FIELDS[error.operand];
  if (!base) return null;
  return HEAD_EDITORS.includes(base) ? headField(base, error.head || 0) : base;
}

// The options before the latest change, for the comparison, or null.
function comparisonBase(read) {
  if (!state.compareBase) return null;
  const base = { ...read.options, ...state.compareBase };
  if (base.keyPadding.length !== read.options.keyPadding.length) {
    state.compareBase = null; // the keys changed: the old padding no longer applies
    return null;
  }
  return optionChanges(base, read.options).length > 0 ? base : null;
}

// Called before a compared option changes: the settings so far become "before",
// unless the same control is still being changed (typing a temperature).
function noteComparedChange(option) {
  if (!state.lastGood || (state.compareBase && state.compareOption === option)) return;
  state.compareBase = Object.fromEntries(COMPARED.map((key) => [key, state.lastGood.options[key]]));
  state.compareOption = option;
}

function hasErrors() {
  return Boolean(state.generalError) || editor.hasErrors();
}

// Recompute and render, at once, after the next paint or in the engine's
// worker, by the size of the input (updates.js). Each full render counts
// itself in <html data-render-count> (for tests and the page-latency benchmark).
const updates = new Updates({
  cells: attentionCells,
  here: () => {
    compute();
    renderCounted();
  },
  start: startInBackground,
  waiting: () => {
    editor.render(); // the edit shows at once
    renderStatus(); // the steps keep the last result, marked, until the new one
  },
  failed: engineFailed,
  done: renderCounted,
});
const update = () => updates.update();

function renderCounted() {
  render();
  const root = document.documentElement;
  root.dataset.renderCount = String(Number(root.dataset.renderCount || 0) + 1);
}

function attentionCells() {
  const current = store.state;
  const keys = current.context ? current.context.tokens.length : current.tokens.length;
  return current.tokens.length * keys * current.heads.length;
}

// The computation of the current input (and its comparison) on the worker's engine.
function startInBackground(engine) {
  const read = readForEngine();
  if (!read) {
    renderCounted();
    return null;
  }
  const base = comparisonBase(read);
  const main = engine.compute(engineInput(read.matrices, read.options));
  const before = base && engine.compute(engineInput(read.matrices, base)).then(
    (typed) => ({ result: rowsOf(typed), changes: optionChanges(base, read.options) }),
    () => {
      state.compareBase = null; // no comparison then, as in compute()
      return null;
    },
  );
  return Promise.all([main, before]).then(([result, compared]) => () => accept(read, rowsOf(result), compared));
}

// ---- rendering ----

function applyStaticStrings() {
  const { lang } = view();
  document.documentElement.lang = htmlLang(lang);
  document.documentElement.dataset.lang = lang;
  document.title = translate(lang, 'docTitle');
  applyStrings(document, lang);
  showStorageNotice();
  // The switch button is written in the language it switches to.
  $('lang-toggle-name').lang = htmlLang(lang === 'zh' ? 'en' : 'zh');
  $('steps').dataset.staleLabel = translate(lang, 'staleLabel');
  $('signed-legend').replaceChildren(signedLegend(lang));
}

// The example above the steps, read only: its tokens as chips (the first
// EXAMPLE_TOKENS of a long sentence), and the second sentence's in cross-attention.
const EXAMPLE_TOKENS = 24;
function renderExample() {
  const { tokens, context, view: { lang } } = store.state;
  showTokens($('example-tokens'), tokens, lang);
  $('example-context-line').hidden = !context;
  if (context) showTokens($('example-context'), context.tokens, lang);
}

function showTokens(box, tokens, lang) {
  const shown = tokens.slice(0, EXAMPLE_TOKENS);
  const more = tokens.length > shown.length ? translate(lang, 'moreTokens', { n: tokens.length }) : '';
  const key = JSON.stringify([shown, more]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...shown.map((token) => el('span', 'example-token', token)), ...(more ? [el('span', 'example-more', more)] : []));
}

// The edit panel: closed at first; beside the steps on a wide screen, above them on a narrow one.
function toggleEditor() {
  const open = $('edit-toggle').getAttribute('aria-expanded') !== 'true';
  $('edit-toggle').setAttribute('aria-expanded', String(open));
  $('edit-panel').hidden = !open;
  $('workspace').classList.toggle('editing', open);
}

// The head buttons above the steps; they choose the head in view (as the
// editor's do). A head with a bad cell (in the editor) is marked.
function renderHeadTabs() {
  const container = $('view-heads');
  const { lang } = view();
  const h = state.lastGood ? state.lastGood.options.heads : 1;
  container.hidden = h === 1;
  const key = `${lang}|${h}`;
  if (container.dataset.key !== key) {
    container.dataset.key = key;
    const label = container.querySelector('.head-tabs-label');
    container.replaceChildren(label, ...Array.from({ length: h }, (_, i) => {
      const button = el('button', 'head-tab', String(i + 1));
      button.type = 'button';
      button.dataset.head = i;
      button.setAttribute('aria-label', translate(lang, 'headN', { n: i + 1 }));
      button.addEventListener('click', () => {
        store.dispatch('view', { head: i });
        render();
        button.focus();
      });
      return button;
    }));
  }
  container.querySelectorAll('.head-tab').forEach((button, i) => {
    button.setAttribute('aria-pressed', i === view().head ? 'true' : 'false');
    button.classList.toggle('has-error', HEAD_EDITORS.some((base) => editor.errors[headField(base, i)]));
  });
}

function renderStatus() {
  const { lang } = view();
  const messages = [];
  if (state.engineStatus === 'loading') messages.push(['loading', translate(lang, 'loading')]);
  else if (state.engineStatus === 'failed') messages.push(['error', translate(lang, 'loadFailed', { detail: state.loadError })]);
  if (updates.running) messages.push(['loading', translate(lang, 'computing')]);
  if (state.generalError) messages.push(['error', describe(lang, state.generalError)]);
  if (state.hashError) messages.push(['error', describe(lang, state.hashError)]);
  const stale = hasErrors() && state.lastGood;
  if (stale) messages.push(['stale', translate(lang, 'staleNote')]);
  $('status').replaceChildren(...messages.map(([kind, text]) => el('p', `status-${kind}`, text)));
  $('steps').classList.toggle('stale', Boolean(stale) || updates.running);
  document.documentElement.toggleAttribute('data-computing', updates.running); // for tests and the bench
}

// The steps of the last computed variant (the six plain ones before any).
function currentSteps() {
  return stepsFor(state.lastGood ? state.lastGood.options : { pe: false, heads: 1, usesWo: false });
}

const overview = () => view().step === 'all';

function currentIndex(steps) {
  const i = steps.findIndex((step) => step.id === view().step);
  return i >= 0 ? i : Math.min(state.stepIndex, steps.length - 1);
}

function renderNav() {
  const { lang } = view();
  const steps = currentSteps();
  const index = currentIndex(steps);
  renderPipeline();
  setDisabled([[$('prev'), overview() || index === 0], [$('next'), overview() || index === steps.length - 1],
    [$('play'), overview()], [$('overview'), false]]);
  $('play').textContent = translate(lang, state.playTimer ? 'pause' : 'play');
  $('play').setAttribute('aria-pressed', state.playTimer ? 'true' : 'false');
  $('overview').setAttribute('aria-pressed', overview() ? 'true' : 'false');
  $('overview').textContent = translate(lang, overview() ? 'guided' : 'overview');
  $('step-position').textContent = overview() ? translate(lang, 'allSteps')
    : translate(lang, 'stepOf', { n: index + 1, total: steps.length });
  renderHeadTabs();
}

// The diagram of the last computed variant, its current step lit (none in the overview).
function renderPipeline() {
  const box = $('pipeline');
  if (!state.lastGood) {
    box.replaceChildren();
    return;
  }
  const steps = currentSteps();
  const current = overview() ? null : steps[currentIndex(steps)].id;
  revealCurrent(showPipeline(box, stepsContext(), { current, onOpen: openStep }));
}

// A stage chosen in the diagram: its step alone, or in the overview the step scrolled to.
function openStep(id) {
  stopPlay();
  const i = currentSteps().findIndex((step) => step.id === id);
  if (!overview()) {
    goTo(i);
    return;
  }
  scrollUnder($('steps').children[i]);
}

// Scrolls `node` to just under the sticky toolbar (the page's scroll padding):
// always, or (passed) only when the reader is already below its top.
function scrollUnder(node, passed = false) {
  if (!passed || node.getBoundingClientRect().top < $('steps-toolbar').getBoundingClientRect().bottom) node.scrollIntoView({ block: 'start' });
}

const isPlain = (options) => options.heads === 1 && !options.usesWo && !options.causal && !options.keyPadding.some(Boolean)
  && options.scale && options.temperature === 1 && !options.pe && !options.cross;

// What the steps (and the exports) show of the last result.
function stepsContext() {
  const { tokens, keyTokens, matrices, options, result, before, changes } = state.lastGood;
  const { lang, decimals } = view();
  const head = Math.min(view().head, options.heads - 1);
  const inputs = {
    x: matrices.x, c: matrices.c, wo: matrices.wo,
    ...Object.fromEntries(HEAD_EDITORS.map((base) => [base, matrices[headField(base, head)]])),
  };
  return {
    lang, decimals, tokens, keyTokens, inputs, result: result.heads[head], full: result, options, head,
    tutorial: isPlain(options) && tokens.length === 3 && ['x', 'wq', 'wk', 'wv'].every((f) => sameNumbers(matrices[f], TUTORIAL[f])),
    // a preset's note stays while its numbers do, at any temperature (the near-uniform hint asks for one)
    preset: isPlain({ ...options, temperature: 1 }) ? presetOf(tokens, matrices) : null,
    compare: before && changes.length > 0 ? {
      before: { weights: before.heads[head].weights, masked: before.masked },
      after: { weights: result.heads[head].weights, masked: result.masked },
      changes,
    } : null,
    onCloseCompare: closeComparison,
    onOpenHead: openHead,
    learn: learner,
    learnSettings: store.state.learn || null,
  };
}

// "How it learns" (learn.js): trained weights become the inputs of the head trained.
const learner = createLearner({
  engine: () => (state.engineStatus === 'ready' ? state.engine : null),
  commit: ({ head, x, c, wq, wk }) => {
    const s = store.state;
    store.dispatch('edit', {
      ...s, x, ...(c ? { context: { ...s.context, x: c } } : {}),
      heads: s.heads.map((h, i) => (i === head ? { ...h, wq, wk } : h)),
    });
    flushNow();
  },
  setSettings: (settings) => store.dispatch('learn', settings),
  loadLearned: (name) => replaceWork(() => loadState(learnedState(name, { lang: view().lang, decimals: view().decimals }))),
});

// arrival: {from} when the one step shown is reached from another (steps.js renderStep).
function renderSteps(arrival = null) {
  const container = $('steps');
  if (!state.lastGood) {
    container.replaceChildren();
    return;
  }
  const ctx = stepsContext();
  state.renderedView = view();
  const steps = currentSteps();
  const indices = overview() ? steps.map((_, i) => i) : [currentIndex(steps)];
  // Steps of the same layout as those on screen get the new numbers in place.
  const shown = [...container.children];
  const nodes = indices.map((i, k) => {
    const options = {
      selection: state.selections[steps[i].id] || null,
      onSelection: (selection) => { state.selections[steps[i].id] = selection; },
    };
    if (shown[k] && updateStep(shown[k], steps[i], i, steps.length, ctx, options)) return shown[k];
    return renderStep(steps[i], i, steps.length, ctx, { ...options, arrival: overview() ? null : arrival });
  });
  if (nodes.length !== shown.length || nodes.some((node, k) => node !== shown[k])) container.replaceChildren(...nodes);
  renderTools();
  scheduleHash();
}

// ---- share: the state in the URL hash, export, import (share.js, tools.js) ----

// What is on screen as a state (share.js): the last good inputs and the view.
function shareState() {
  const steps = currentSteps();
  const { heads } = state.lastGood.options;
  const { learn } = store.state;
  const shared = { ...state.lastGood.state, view: { ...view(), step: overview() ? 'all' : steps[currentIndex(steps)].id, head: Math.min(view().head, heads - 1) } };
  delete shared.learn;
  return learn ? fitLearn({ ...shared, learn }) : shared;
}

// A state from a link, a file or the tools: inputs, step, head, language, decimals.
function loadState(restored) {
  stopPlay();
  const lang = view().lang;
  // nothing of the work before stays: its errors, selections, comparison, a damaged link's message
  state.selections = {};
  state.compareBase = null;
  state.hashError = null;
  store.dispatch('load', restored);
  editor.reset(store.state); // what was typed gives way to it
  if (restored.view.lang !== lang) applyStaticStrings();
  flushNow();
}

// Tells the store's subscribers now, the new inputs computed at once.
function flushNow() {
  state.urgent = true;
  try {
    store.flush();
  } finally {
    state.urgent = false;
  }
}

// The hash follows the screen: at once for a small state, HASH_PAUSE_MS after
// the last change for a larger one (at d = 64 the link is some 100 KB, and
// encoding and replacing it takes 15–25 ms, more than a frame), and before
// the page is hidden or left, so a copied address is never behind.
const HASH_AT_ONCE_NUMBERS = 1024;
const HASH_PAUSE_MS = 400;
let hashTimer = 0;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = 0;
  if (state.holding) return;
  const numbers = Object.values(state.lastGood.matrices).reduce((sum, m) => sum + m.length * m[0].length, 0);
  if (numbers <= HASH_AT_ONCE_NUMBERS) writeHash();
  else hashTimer = setTimeout(writeHash, HASH_PAUSE_MS);
}

function flushHash() {
  if (hashTimer) writeHash();
}

// A state whose JSON is longer than this gets no link in the address bar: the
// link would pass Chromium's 2 MB URL limit (at n = 4096 it would be ~7 MB,
// and encoding it would stall the page). The hash is then cleared, so that a
// reload does not bring back an older state; storage still keeps this one.
const HASH_MAX_JSON_CHARS = 1400000;

function writeHash() {
  clearTimeout(hashTimer);
  hashTimer = 0;
  const current = shareState();
  const text = JSON.stringify(current);
  keepState(current, text);
  const hash = text.length <= HASH_MAX_JSON_CHARS ? `#${encodeHash(current)}` : '';
  const mark = storage.mark(); // tells a reload that this hash is the page's own (persist.js)
  const marked = history.state && history.state.writer === mark.writer && history.state.rev === mark.rev;
  if (hash === location.hash && marked) return;
  state.writtenHash = hash;
  try {
    history.replaceState(mark, '', hash || `${location.pathname}${location.search}`);
  } catch {
    // a URL too long for the browser, or (Firefox) too many calls: as below
  }
  // In a burst of edits the browser may drop the call (Chromium throttles it,
  // silently): the address would stay behind, so it is written again a little
  // later (a reload opens the newer stored state meanwhile: persist.js).
  hashRetries = location.hash === hash ? 0 : hashRetries + 1;
  if (hashRetries > 0 && hashRetries <= HASH_RETRIES) hashTimer = setTimeout(writeHash, HASH_RETRY_MS);
}
const HASH_RETRY_MS = 2000;
const HASH_RETRIES = 10; // Chromium's limit lasts some 10 s; a URL it never takes is not tried forever
let hashRetries = 0;

// ---- nothing lost: storage (persist.js), undo and redo (history.js) ----

// A link's hash wins over the stored state, but a hash this page wrote itself
// does not win over later work stored since (persist.js). The stored work a
// link replaces is first in the undo history, and set aside when the user
// made it. A damaged link still reports its error, over the stored state (or
// the tutorial) it opens instead.
function restoreAtStart() {
  const link = decodeHash(location.hash);
  const stored = storage.load(); // read even when the link wins: a damaged one is set aside before anything is saved
  const origin = link.ok ? storage.hashOrigin(history.state) : null;
  if (link.ok && origin !== 'stored-newer') {
    if (stored && origin === 'link') {
      store.history.record(stored); // undo brings it back
      if (storage.storedMade() && inputsOf(stored) !== inputsOf(link.state)) storage.setAsideWork(storage.stored.text);
    }
    state.arriving = origin === 'link';
    loadState(link.state);
  } else if (stored) {
    state.arriving = !storage.storedMade();
    loadState(stored);
  } else {
    state.arriving = true;
    editor.loadPreset('tutorial');
  }
  if (!link.ok) state.hashError = link.message;
  renderStatus();
  showStorageNotice();
}

// A whole state from a link, a state file or a preset (show() puts it on
// screen) replaces the work on screen: that stays in undo, and is set aside
// in storage when the user made it. made: the new state is the user's own
// work (restored from where it was set aside).
function replaceWork(show, made = false) {
  if (state.lastGood) {
    writeHash(); // the latest edit is recorded and kept first
    if (store.history.current() !== state.arrival) storage.setAsideWork(storage.latest);
  } else if (!state.arriving && storage.stored) {
    storage.setAsideWork(storage.stored.text); // the engine still loading: the stored work is on screen
  }
  state.arriving = !made;
  if (made) state.arrival = null;
  show();
  showStorageNotice();
}

function restoreWork(restored, key) {
  storage.forget(key);
  replaceWork(() => loadState(restored), true);
}

const linked = () => !storage.latest || storage.latest.length <= HASH_MAX_JSON_CHARS;
const showStorageNotice = () => renderStorageNotice($('storage-notice'), view().lang, storage, { restore: restoreWork, linked: linked() });

// Every state shown is kept in storage (the store's history has it: store.js),
// marked as the user's work unless it is the one that arrived.
function keepState(current, text) {
  store.flush(); // recorded in the history
  if (state.arriving) {
    state.arrival = store.history.current();
    state.arriving = false;
  }
  const shown = [storage.problem, linked()];
  storage.save(text, store.history.current() !== state.arrival);
  if (storage.problem !== shown[0] || (storage.problem && linked() !== shown[1])) showStorageNotice();
  editor.render(); // its undo and redo buttons
}

// Undo and redo go through the store; the inputs they bring are computed and shown.
function undoEdit() {
  if (!state.lastGood) return;
  writeHash(); // an edit still waiting to be recorded is recorded first
  stopPlay();
  if (store.undo()) flushNow();
}

function redoEdit() {
  if (!state.lastGood) return;
  writeHash();
  stopPlay();
  if (store.redo()) flushNow();
}

// A link opened in this tab (the address edited, a link to #av1.… clicked).
function restoreHash() {
  const restored = decodeHash(location.hash);
  if (restored.ok) {
    replaceWork(() => loadState(restored.state));
  } else {
    state.hashError = restored.message;
    renderStatus();
  }
}

const tools = new Tools({
  state: shareState,
  ctx: stepsContext,
  editable: () => true,
  apply: (next, { whole = false } = {}) => (whole ? replaceWork(() => loadState(next)) : loadState(next)),
  rerender: () => {
    toolsKey = '';
    renderTools();
  },
  config: () => [],
  baseUrl: () => location.href,
});

// The panel reads the inputs and results when used, so it is rebuilt only
// when its lists (matrices to export, import targets) or language change.
let toolsKey = '';
function renderTools() {
  const panel = $('share-tools');
  if (!state.lastGood) {
    toolsKey = '';
    panel.replaceChildren();
    return;
  }
  const { heads, usesWo, cross, pe } = state.lastGood.options;
  const key = [view().lang, heads, usesWo, cross, pe, Math.min(view().head, heads - 1)].join('|');
  if (key === toolsKey) return;
  toolsKey = key;
  const focused = panel.contains(document.activeElement) ? document.activeElement.dataset.focusId : null;
  panel.replaceChildren(tools.render(view().lang));
  if (focused) panel.querySelector(`[data-focus-id="${focused}"]`)?.focus();
}

function render() {
  editor.render();
  renderExample();
  renderStatus();
  renderNav();
  renderSteps();
}

function closeComparison() {
  state.compareBase = null;
  update();
  $('steps').querySelector('[data-step="softmax"]')?.focus();
}

// A head of the "all heads" grid: its steps, from its weights.
function openHead(h) {
  const steps = currentSteps();
  store.dispatch('view', { head: h, step: 'softmax' });
  state.stepIndex = steps.findIndex((step) => step.id === 'softmax');
  render();
  scrollUnder($('steps').querySelector('[data-step="softmax"]'));
  $('view-heads').querySelector(`.head-tab[data-head="${h}"]`).focus({ preventScroll: true });
}

// ---- navigation ----

function goTo(i) {
  const steps = currentSteps();
  const from = overview() ? null : shownCell($('steps').firstElementChild);
  state.stepIndex = Math.min(steps.length - 1, Math.max(0, i));
  store.dispatch('view', { step: steps[state.stepIndex].id });
  renderNav();
  renderSteps({ from });
  scrollUnder($('steps'), true); // deep in a long step, the next one starts at its top
}

function stopPlay() {
  if (state.playTimer) clearInterval(state.playTimer);
  state.playTimer = null;
}

function togglePlay() {
  if (state.playTimer) {
    stopPlay();
    renderNav();
    return;
  }
  const last = currentSteps().length - 1;
  if (currentIndex(currentSteps()) === last) goTo(0);
  state.playTimer = setInterval(() => {
    const index = currentIndex(currentSteps()) + 1;
    if (index >= currentSteps().length - 1) stopPlay();
    goTo(index);
  }, PLAY_INTERVAL_MS);
  renderNav();
  renderSteps();
}

// Left/Right walk the steps unless the key belongs to a field or a matrix.
function onKeydown(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || overview()) return;
  if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
  const target = event.target;
  if (target instanceof Element && target.closest('input, textarea, select, [contenteditable], .matrix-view, .lines-view')) return;
  event.preventDefault();
  stopPlay();
  goTo(currentIndex(currentSteps()) + (event.key === 'ArrowRight' ? 1 : -1));
}

// A drag (of the slider, of a number) updates every step as it goes but is
// one edit: the URL, storage and undo history take its end. An update still
// waiting (large inputs) records it when it is done.
function hold(on) {
  state.holding = on;
  store.hold(on);
  const waiting = updates.frame || updates.timer || updates.running;
  if (!on && state.lastGood && !waiting) scheduleHash();
}

// ---- start ----

function loadEngine() {
  const create = globalThis.createAttentionEngine;
  if (typeof create !== 'function') return Promise.reject(new Error('attention-engine.js did not load'));
  return create();
}

function start() {
  applyStaticStrings();
  restoreAtStart();
  window.addEventListener('pagehide', flushHash);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushHash();
  });
  window.addEventListener('hashchange', () => {
    if (location.hash !== state.writtenHash) restoreHash();
  });
  // Files dropped anywhere on the page are imported (tools.js says where they go).
  document.addEventListener('dragover', (event) => {
    if (event.dataTransfer && event.dataTransfer.types.includes('Files')) event.preventDefault();
  });
  document.addEventListener('drop', (event) => {
    if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    tools.importFiles([...event.dataTransfer.files]);
  });

  $('edit-toggle').addEventListener('click', toggleEditor);
  // Whatever is scrolled to (a step, a focused cell) stops below the sticky toolbar;
  // a narrower toolbar (the edit panel opened beside it) keeps the lit stage in sight.
  new ResizeObserver(() => {
    document.documentElement.style.scrollPaddingTop = `${$('steps-toolbar').offsetHeight + 8}px`;
    if ($('pipeline').firstElementChild) revealCurrent($('pipeline').firstElementChild);
  }).observe($('steps-toolbar'));
  $('lang-toggle').addEventListener('click', () => {
    const lang = view().lang === 'zh' ? 'en' : 'zh';
    storeLanguage(lang);
    store.dispatch('view', { lang });
    applyStaticStrings();
    render();
  });
  $('skip-link').addEventListener('click', (event) => {
    event.preventDefault(); // the hash holds the state: a fragment would read as a damaged link
    $('steps-title').scrollIntoView({ block: 'start' });
    $('step-controls').focus({ preventScroll: true });
  });
  $('prev').addEventListener('click', () => { stopPlay(); goTo(currentIndex(currentSteps()) - 1); });
  $('next').addEventListener('click', () => { stopPlay(); goTo(currentIndex(currentSteps()) + 1); });
  $('play').addEventListener('click', togglePlay);
  $('overview').addEventListener('click', () => {
    stopPlay();
    const steps = currentSteps();
    store.dispatch('view', { step: overview() ? steps[currentIndex(steps)].id : 'all' });
    renderNav();
    renderSteps();
  });
  document.addEventListener('keydown', onKeydown);
  document.addEventListener('keydown', (event) => {
    const action = undoKey(event);
    if (!action) return;
    event.preventDefault();
    if (action === 'undo') editor.undo();
    else redoEdit();
  });

  loadEngine().then(
    (engine) => {
      state.engine = engine;
      state.engineStatus = 'ready';
      update();
    },
    (error) => {
      state.engineStatus = 'failed';
      state.loadError = error && error.message ? error.message : String(error);
      render();
    },
  );
}

start();
