// Wires the page: keeps the inputs (model.js), asks the WebAssembly engine
// for every step on each edit and renders the step(s) in view. While some
// input is invalid the last good result stays, marked as stale.

import { detectLanguage, htmlLang, translate, describe, LANGUAGES } from './i18n.js';
import { DEFAULT_DECIMALS, MIN_DECIMALS, MAX_DECIMALS } from './format.js';
import { tokenize, joinTokens, defaultMode } from './tokenize.js';
import { parseMatrixText } from './parse.js';
import { randomInputs, randomHead, randomStream, STREAM_WO, STREAM_CONTEXT } from './random.js';
import { PRESETS, TUTORIAL, presetOf } from './presets.js';
import {
  createModel, shapeOf, cellText, setCell, readModel, parseDim, parseHeads, applyMatrix, pasteBlock,
  setTokens, removeToken, addToken, togglePadding, sameNumbers, locate, headField, fieldName, activeFields,
  textsFromNumbers, usesWo, cellMessage, parseTemperature,
} from './model.js';
import { engineInput, optionChanges, COMPARED } from './variant.js';
import { Updates, rowsOf } from './updates.js';
import { plainRows } from './rows.js';
import { stepsFor, renderStep, updateStep, shownCell, signedLegend } from './steps.js';
import { showPipeline, revealCurrent } from './pipeline.js';
import { renderTokenEditor, renderMatrixEditor } from './editors.js';
import { dimLabel } from './work.js';
import { el, setDisabled } from './dom.js';
import { decodeHash, encodeHash, modelFromState, stateFromRead, fitLearn } from './share.js';
import { Tools } from './tools.js';
import { sayMessage } from './i18n-embed.js';
import { Store, renderStorageNotice } from './persist.js';
import { History, undoKey, inputsOf } from './history.js';
import { setUpTemperatureSlider, showTemperature, temperatureAt, holdWhilePressed } from './scrub.js';
import { createLearner } from './learn.js';
import { learnedState } from './learned.js';

const $ = (id) => document.getElementById(id);
const DIM_FIELDS = ['dModel', 'dk', 'dv', 'dCtx'];
const EDITORS = ['x', 'c', 'wq', 'wk', 'wv', 'wo'];
const HEAD_EDITORS = ['wq', 'wk', 'wv'];
const CHECKS = { scale: 'scale', causal: 'causal', pe: 'pe', 'use-wo': 'useWo', cross: 'cross' };
const PLAY_INTERVAL_MS = 3000;
const LANG_KEY = 'attention-visualizer.lang';
const ENGINE_FIELDS = { x: 'x', wq: 'wq', wk: 'wk', wv: 'wv', wo: 'wo', context: 'c' };

const state = {
  lang: storedLanguage() || detectLanguage(navigator.languages),
  model: null,
  mode: 'char',
  dimErrors: {},
  applyErrors: {},
  errors: {},
  generalError: null,
  decimals: DEFAULT_DECIMALS,
  engine: null,
  engineStatus: 'loading', // 'loading' | 'ready' | 'failed'
  loadError: '',
  lastGood: null,
  head: 0, // the head edited and shown in the steps
  // A first visit opens on the attention weights: the one picture of attention
  // (who listens to whom, each row summing to 1), with the diagram above it
  // saying where they come from and where they go; every stage is a click away.
  stepId: 'softmax',
  stepIndex: 4, // where to go when the step with stepId disappears
  overview: false,
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
  learn: null, // the goal of "How it learns" (share.js `learn`), once chosen or loaded
};
const store = new Store(undefined, undefined, () => showStorageNotice()); // the state kept in localStorage (persist.js)
const edits = new History(); // undo and redo (history.js)

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

// The model read for the engine, or null when it cannot compute now (input
// errors are in state.errors; the last good result stays).
function readForEngine() {
  const read = readModel(state.model);
  state.errors = read.errors;
  state.generalError = null;
  if (!read.ok || Object.keys(state.dimErrors).length > 0 || state.engineStatus !== 'ready') return null;
  return read;
}

// A result of `read` (and its comparison `before`, or null) becomes the last good one.
function accept(read, tokens, result, before) {
  state.lastGood = {
    tokens: tokens.query, keyTokens: read.options.cross ? tokens.context : tokens.query,
    matrices: read.matrices, options: read.options, result, before: before ? before.result : null, changes: before ? before.changes : [],
  };
}

const tokensOf = (model) => ({ query: [...model.tokens], context: [...model.contextTokens] });

function engineFailed(error) {
  const field = fieldOfEngineError(error);
  const tokens = field === 'c' ? state.model.contextTokens : state.model.tokens;
  const params = { ...locate(field, error.row, error.column, tokens), name: field ? fieldName(field) : error.operand, message: error.message };
  state.generalError = { key: error.code === 'overflow' ? 'errOverflow' : 'errEngine', params };
}

function compute() {
  const read = readForEngine();
  if (!read) return;
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
  accept(read, tokensOf(state.model), result, before);
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
  return Boolean(state.generalError) || Object.keys(state.errors).length > 0 || Object.keys(state.dimErrors).length > 0;
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
    renderInputs(); // the edit shows at once
    renderStatus(); // the steps keep the last result, marked, until the new one
  },
  failed: engineFailed,
  done: renderCounted,
});
const update = () => updates.update();
// Typing asks for an update through here: a burst of keys costs one recompute.
const scheduleUpdate = () => updates.schedule();

function renderCounted() {
  render();
  const root = document.documentElement;
  root.dataset.renderCount = String(Number(root.dataset.renderCount || 0) + 1);
}

function attentionCells() {
  const { model } = state;
  const keys = model.options.cross ? model.contextTokens.length : model.tokens.length;
  return model.tokens.length * keys * model.options.heads;
}

// The computation of the current input (and its comparison) on the worker's engine.
function startInBackground(engine) {
  const read = readForEngine();
  if (!read) {
    renderCounted();
    return null;
  }
  const tokens = tokensOf(state.model);
  const base = comparisonBase(read);
  const main = engine.compute(engineInput(read.matrices, read.options));
  const before = base && engine.compute(engineInput(read.matrices, base)).then(
    (typed) => ({ result: rowsOf(typed), changes: optionChanges(base, read.options) }),
    () => {
      state.compareBase = null; // no comparison then, as in compute()
      return null;
    },
  );
  return Promise.all([main, before]).then(([result, compared]) => () => accept(read, tokens, rowsOf(result), compared));
}

// ---- rendering ----

function applyStaticStrings() {
  const { lang } = state;
  document.documentElement.lang = htmlLang(lang);
  document.title = translate(lang, 'docTitle');
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = translate(lang, node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-aria-label]')) {
    node.setAttribute('aria-label', translate(lang, node.dataset.i18nAriaLabel));
  }
  for (const node of document.querySelectorAll('[data-i18n-title]')) node.title = translate(lang, node.dataset.i18nTitle);
  showStorageNotice();
  // The switch button is written in the language it switches to.
  $('lang-toggle-name').lang = htmlLang(lang === 'zh' ? 'en' : 'zh');
  $('steps').dataset.staleLabel = translate(lang, 'staleLabel');
  $('signed-legend').replaceChildren(signedLegend(lang));
}

function showError(id, message) {
  $(id).textContent = message ? describe(state.lang, message) : '';
}

function setInvalid(input, invalid) {
  if (invalid) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

function renderInputs() {
  const { model, lang } = state;
  const { options } = model;
  const keysFromQuery = !options.cross;
  renderTokenEditor($('token-list'), lang, model.tokens, tokenHandlers('query'), keysFromQuery ? model.padding : null);
  $('token-count').textContent = translate(lang, 'tokenCount', { n: model.tokens.length });
  showError('tokens-error', state.errors.tokens && state.errors.tokens.message);

  $('context-panel').hidden = !options.cross;
  if (options.cross) {
    renderTokenEditor($('context-token-list'), lang, model.contextTokens, tokenHandlers('context'), model.contextPadding);
    $('context-token-count').textContent = translate(lang, 'tokenCount', { n: model.contextTokens.length });
  }
  showError('contextTokens-error', state.errors.contextTokens && state.errors.contextTokens.message);

  for (const dim of DIM_FIELDS) {
    const input = $(`dim-${dim}`);
    if (!state.dimErrors[dim] && document.activeElement !== input) input.value = String(model.dims[dim]);
    showError(`dim-${dim}-error`, state.dimErrors[dim]);
    setInvalid(input, state.dimErrors[dim]);
  }
  renderExample();
  renderOptions();
  renderHeadTabs($('edit-heads'), 'edit');
  for (const base of EDITORS) renderEditor(base);
}

// The example above the steps, read only: its tokens as chips (the first
// EXAMPLE_TOKENS of a long sentence), and the second sentence's in cross-attention.
const EXAMPLE_TOKENS = 24;
function renderExample() {
  const { model, lang } = state;
  showTokens($('example-tokens'), model.tokens, lang);
  $('example-context-line').hidden = !model.options.cross;
  if (model.options.cross) showTokens($('example-context'), model.contextTokens, lang);
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

function renderOptions() {
  const { options } = state.model;
  for (const [id, key] of Object.entries(CHECKS)) $(id).checked = options[key];
  // With several heads W_O is part of multi-head attention.
  $('use-wo').checked = usesWo(state.model);
  $('use-wo').disabled = options.heads > 1;
  $('wo-forced').hidden = options.heads === 1;
  if (!state.dimErrors.heads && document.activeElement !== $('heads')) $('heads').value = String(options.heads);
  showError('heads-error', state.dimErrors.heads);
  setInvalid($('heads'), state.dimErrors.heads);
  if (document.activeElement !== $('temperature')) $('temperature').value = options.temperature;
  showTemperature($('temperature-slider'), parseTemperature(options.temperature).value, state.lang);
  const temperatureError = state.errors.temperature && state.errors.temperature.message;
  showError('temperature-error', temperatureError);
  setInvalid($('temperature'), temperatureError);
}

// The head buttons above the editors ('edit') and above the steps ('view');
// both choose state.head. A head with a bad cell is marked.
function renderHeadTabs(container, which) {
  const h = state.model.options.heads;
  container.hidden = h === 1;
  const key = `${state.lang}|${h}`;
  if (container.dataset.key !== key) {
    container.dataset.key = key;
    const label = container.querySelector('.head-tabs-label');
    container.replaceChildren(label, ...Array.from({ length: h }, (_, i) => {
      const button = el('button', 'head-tab', String(i + 1));
      button.type = 'button';
      button.dataset.head = i;
      button.setAttribute('aria-label', translate(state.lang, 'headN', { n: i + 1 }));
      button.addEventListener('click', () => selectHead(i, which));
      return button;
    }));
  }
  container.querySelectorAll('.head-tab').forEach((button, i) => {
    button.setAttribute('aria-pressed', i === state.head ? 'true' : 'false');
    button.classList.toggle('has-error', HEAD_EDITORS.some((base) => state.errors[headField(base, i)]));
  });
}

function selectHead(h, which) {
  state.head = h;
  render();
  const tabs = $(which === 'edit' ? 'edit-heads' : 'view-heads');
  tabs.querySelector(`.head-tab[data-head="${h}"]`).focus();
}

function editorField(base) {
  return HEAD_EDITORS.includes(base) ? headField(base, state.head) : base;
}

function renderEditor(base) {
  const { model, lang } = state;
  const container = $(`editor-${base}`);
  const field = editorField(base);
  const active = activeFields(model).includes(field);
  container.hidden = !active;
  if (!active) return;
  const [rows, cols] = shapeOf(field, model);
  const rowTokens = { x: model.tokens, c: model.contextTokens }[base];
  const error = state.errors[field];
  renderMatrixEditor(container, {
    field, id: base, name: fieldName(field), lang,
    rowLabels: rowTokens || labels(rows),
    colLabels: labels(cols),
    // a getter: large matrices need their texts only while their text box is
    // open; rows of the shape are the stored ones, not copies (the editor reads them)
    get texts() {
      const store = model.cells[field] || [];
      return Array.from({ length: rows }, (_, r) => {
        const row = store[r] || [];
        if (row.length >= cols) return row.length === cols ? row : row.slice(0, cols);
        return Array.from({ length: cols }, (_, c) => cellText(store, r, c));
      });
    },
    badCell: error ? [error.row, error.column] : null,
  }, matrixHandlers(field));
  const headNote = container.querySelector('.grid-head');
  if (headNote) headNote.textContent = model.options.heads > 1 ? `· ${translate(lang, 'headN', { n: state.head + 1 })}` : '';
  $(`${base}-error`).textContent = editorErrorText(base, field);
}

// This editor's own error, else the first bad cell of another head's matrix.
function editorErrorText(base, field) {
  const own = state.applyErrors[field] || (state.errors[field] && state.errors[field].message);
  if (own) return describe(state.lang, own);
  if (!HEAD_EDITORS.includes(base)) return '';
  for (let h = 0; h < state.model.options.heads; h++) {
    const other = state.errors[headField(base, h)];
    if (other) return translate(state.lang, 'headHasError', { n: h + 1 }) + describe(state.lang, other.message);
  }
  return '';
}

const labels = (count) => Array.from({ length: count }, (_, i) => dimLabel(i));

function renderStatus() {
  const { lang } = state;
  const messages = [];
  if (state.engineStatus === 'loading') messages.push(['loading', translate(lang, 'loading')]);
  else if (state.engineStatus === 'failed') messages.push(['error', translate(lang, 'loadFailed', { detail: state.loadError })]);
  if (updates.running) messages.push(['loading', translate(lang, 'computing')]);
  if (state.generalError) messages.push(['error', describe(lang, state.generalError)]);
  if (state.hashError) messages.push(['error', sayMessage(lang, state.hashError)]);
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

function currentIndex(steps) {
  const i = steps.findIndex((step) => step.id === state.stepId);
  return i >= 0 ? i : Math.min(state.stepIndex, steps.length - 1);
}

function renderNav() {
  const { lang } = state;
  const steps = currentSteps();
  const index = currentIndex(steps);
  renderPipeline();
  setDisabled([[$('prev'), state.overview || index === 0], [$('next'), state.overview || index === steps.length - 1],
    [$('play'), state.overview], [$('overview'), false]]);
  $('play').textContent = translate(lang, state.playTimer ? 'pause' : 'play');
  $('play').setAttribute('aria-pressed', state.playTimer ? 'true' : 'false');
  $('overview').setAttribute('aria-pressed', state.overview ? 'true' : 'false');
  $('overview').textContent = translate(lang, state.overview ? 'guided' : 'overview');
  $('step-position').textContent = state.overview ? translate(lang, 'allSteps')
    : translate(lang, 'stepOf', { n: index + 1, total: steps.length });
  renderHeadTabs($('view-heads'), 'view');
}

// The diagram of the last computed variant, its current step lit (none in the overview).
function renderPipeline() {
  const box = $('pipeline');
  if (!state.lastGood) {
    box.replaceChildren();
    return;
  }
  const steps = currentSteps();
  const current = state.overview ? null : steps[currentIndex(steps)].id;
  revealCurrent(showPipeline(box, stepsContext(), { current, onOpen: openStep }));
}

// A stage chosen in the diagram: its step alone, or in the overview the step scrolled to.
function openStep(id) {
  stopPlay();
  const i = currentSteps().findIndex((step) => step.id === id);
  if (!state.overview) {
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
  const head = Math.min(state.head, options.heads - 1);
  const inputs = {
    x: matrices.x, c: matrices.c, wo: matrices.wo,
    ...Object.fromEntries(HEAD_EDITORS.map((base) => [base, matrices[headField(base, head)]])),
  };
  return {
    lang: state.lang, decimals: state.decimals, tokens, keyTokens, inputs, result: result.heads[head], full: result, options, head,
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
    learnSettings: state.learn,
  };
}

// "How it learns" (learn.js): trained weights become the inputs of the head trained.
const learner = createLearner({
  engine: () => (state.engineStatus === 'ready' ? state.engine : null),
  commit: ({ head, x, c, wq, wk }) => {
    const { cells } = state.model;
    Object.assign(cells, { x: textsFromNumbers(x), [headField('wq', head)]: textsFromNumbers(wq), [headField('wk', head)]: textsFromNumbers(wk) });
    if (c) cells.c = textsFromNumbers(c);
    update();
  },
  setSettings: (settings) => {
    state.learn = settings;
    scheduleHash();
  },
  loadLearned: (name) => replaceWork(() => loadState(learnedState(name, { lang: state.lang, decimals: state.decimals }))),
});

// arrival: {from} when the one step shown is reached from another (steps.js renderStep).
function renderSteps(arrival = null) {
  const container = $('steps');
  if (!state.lastGood) {
    container.replaceChildren();
    return;
  }
  const ctx = stepsContext();
  renderPresetNote(ctx.preset);
  const steps = currentSteps();
  const indices = state.overview ? steps.map((_, i) => i) : [currentIndex(steps)];
  // Steps of the same layout as those on screen get the new numbers in place.
  const shown = [...container.children];
  const nodes = indices.map((i, k) => {
    const options = {
      selection: state.selections[steps[i].id] || null,
      onSelection: (selection) => { state.selections[steps[i].id] = selection; },
    };
    if (shown[k] && updateStep(shown[k], steps[i], i, steps.length, ctx, options)) return shown[k];
    return renderStep(steps[i], i, steps.length, ctx, { ...options, arrival: state.overview ? null : arrival });
  });
  if (nodes.length !== shown.length || nodes.some((node, k) => node !== shown[k])) container.replaceChildren(...nodes);
  renderTools();
  scheduleHash();
}

// ---- share: the state in the URL hash, export, import (share.js, tools.js) ----

// What is on screen as a state (share.js): the last good inputs and the view.
function shareState() {
  const { tokens, keyTokens, matrices, options } = state.lastGood;
  const steps = currentSteps();
  const plain = Object.fromEntries(Object.entries(matrices).map(([field, m]) => [field, plainRows(m)]));
  const shared = stateFromRead(tokens, keyTokens, plain, options, {
    step: state.overview ? 'all' : steps[currentIndex(steps)].id,
    head: Math.min(state.head, options.heads - 1), lang: state.lang, decimals: state.decimals,
  });
  return state.learn ? fitLearn({ ...shared, learn: state.learn }) : shared;
}

// A state from a link, a file or the tools: inputs, step, head, language, decimals.
function loadState(restored) {
  stopPlay();
  const mode = restored.tokens.every((t) => Array.from(t).length === 1) ? 'char' : 'space';
  state.mode = mode;
  $('token-mode').value = mode;
  $('sentence').value = joinTokens(restored.tokens, mode);
  $('context-sentence').value = restored.context ? restored.context.tokens.join(' ') : '';
  state.model = modelFromState(restored);
  state.learn = restored.learn || null;
  const { step, head, lang, decimals } = restored.view;
  state.head = head;
  state.overview = step === 'all';
  if (!state.overview) state.stepId = step;
  state.decimals = decimals;
  $('decimals').value = String(decimals);
  if (lang !== state.lang) {
    state.lang = lang;
    applyStaticStrings();
  }
  showNewModel();
}

// After a whole new model (a state loaded, a preset): nothing of the one before
// stays (its errors, selections, comparison, a damaged link's message); computed and shown.
function showNewModel() {
  state.dimErrors = {};
  state.applyErrors = {};
  state.selections = {};
  state.compareBase = null;
  state.hashError = null;
  update();
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
  const mark = store.mark(); // tells a reload that this hash is the page's own (persist.js)
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
  const stored = store.load(); // read even when the link wins: a damaged one is set aside before anything is saved
  const origin = link.ok ? store.hashOrigin(history.state) : null;
  if (link.ok && origin !== 'stored-newer') {
    if (stored && origin === 'link') {
      edits.record(stored); // undo brings it back
      if (store.storedMade() && inputsOf(stored) !== inputsOf(link.state)) store.setAsideWork(store.stored.text);
    }
    state.arriving = origin === 'link';
    loadState(link.state);
  } else if (stored) {
    state.arriving = !store.storedMade();
    loadState(stored);
  } else {
    state.arriving = true;
    loadPreset('tutorial');
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
    if (edits.current() !== state.arrival) store.setAsideWork(store.latest);
  } else if (!state.arriving && store.stored) {
    store.setAsideWork(store.stored.text); // the engine still loading: the stored work is on screen
  }
  state.arriving = !made;
  if (made) state.arrival = null;
  show();
  showStorageNotice();
}

function restoreWork(restored, key) {
  store.forget(key);
  replaceWork(() => loadState(restored), true);
}

const linked = () => !store.latest || store.latest.length <= HASH_MAX_JSON_CHARS;
const showStorageNotice = () => renderStorageNotice($('storage-notice'), state.lang, store, { restore: restoreWork, linked: linked() });

// Every state shown is kept in the history (if its inputs changed) and in
// storage, marked as the user's work unless it is the one that arrived.
function keepState(current, text) {
  edits.record(current, text);
  if (state.arriving) {
    state.arrival = edits.current();
    state.arriving = false;
  }
  const shown = [store.problem, linked()];
  store.save(text, edits.current() !== state.arrival);
  if (store.problem !== shown[0] || (store.problem && linked() !== shown[1])) showStorageNotice();
  renderUndo();
}

function renderUndo() {
  // With invalid input on screen, undo first goes back to the last valid inputs.
  setDisabled([[$('undo'), !edits.canUndo() && !(hasErrors() && state.lastGood)], [$('redo'), !edits.canRedo()]]);
}

// An entry of the history shown with the current step, language and decimals.
function showEdit(restored) {
  if (!restored) return;
  const { view } = shareState();
  loadState({ ...restored, view: { ...view, head: Math.min(view.head, restored.heads.length - 1) } });
  renderUndo();
}

function undoEdit() {
  if (!state.lastGood) return;
  writeHash(); // an edit still waiting to be recorded is recorded first
  showEdit(edits.undo(hasErrors() ? 0 : 1));
}

function redoEdit() {
  if (!state.lastGood) return;
  writeHash();
  showEdit(edits.redo());
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
  const key = [state.lang, heads, usesWo, cross, pe, Math.min(state.head, heads - 1)].join('|');
  if (key === toolsKey) return;
  toolsKey = key;
  const focused = panel.contains(document.activeElement) ? document.activeElement.dataset.focusId : null;
  panel.replaceChildren(tools.render(state.lang));
  if (focused) panel.querySelector(`[data-focus-id="${focused}"]`)?.focus();
}

function render() {
  renderInputs();
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
  state.head = h;
  const steps = currentSteps();
  state.stepId = 'softmax';
  state.stepIndex = steps.findIndex((step) => step.id === 'softmax');
  render();
  scrollUnder($('steps').querySelector('[data-step="softmax"]'));
  $('view-heads').querySelector(`.head-tab[data-head="${h}"]`).focus({ preventScroll: true });
}

// ---- navigation ----

function goTo(i) {
  const steps = currentSteps();
  const from = state.overview ? null : shownCell($('steps').firstElementChild);
  state.stepIndex = Math.min(steps.length - 1, Math.max(0, i));
  state.stepId = steps[state.stepIndex].id;
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
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || state.overview) return;
  if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
  const target = event.target;
  if (target instanceof Element && target.closest('input, textarea, select, [contenteditable], .matrix-view, .lines-view')) return;
  event.preventDefault();
  stopPlay();
  goTo(currentIndex(currentSteps()) + (event.key === 'ArrowRight' ? 1 : -1));
}

// ---- editing ----

const SENTENCES = {
  query: { input: 'sentence', list: 'token-list', mode: () => state.mode, tokens: () => state.model.tokens },
  context: { input: 'context-sentence', list: 'context-token-list', mode: () => defaultMode($('context-sentence').value), tokens: () => state.model.contextTokens },
};

function retokenize(which) {
  const s = SENTENCES[which];
  setTokens(state.model, tokenize($(s.input).value, s.mode()), which);
  scheduleUpdate();
}

function tokenHandlers(which) {
  const s = SENTENCES[which];
  const rewrite = () => { $(s.input).value = joinTokens(s.tokens(), s.mode()); };
  return {
    onEdit(i, text) {
      s.tokens()[i] = text;
      rewrite();
      scheduleUpdate();
    },
    onRemove(i) {
      removeToken(state.model, i, which);
      rewrite();
      update();
      const inputs = $(s.list).querySelectorAll('input');
      if (inputs.length > 0) inputs[Math.min(i, inputs.length - 1)].focus();
    },
    onTogglePad(i) {
      noteComparedChange('keyPadding');
      togglePadding(state.model, i, which);
      update();
    },
  };
}

function appendToken(which) {
  const s = SENTENCES[which];
  addToken(state.model, translate(state.lang, 'newToken', { n: s.tokens().length + 1 }), which);
  $(s.input).value = joinTokens(s.tokens(), s.mode());
  update();
  const inputs = $(s.list).querySelectorAll('input');
  inputs[inputs.length - 1].focus();
  inputs[inputs.length - 1].select();
}

function matrixHandlers(field) {
  return {
    onCell(r, c, text) {
      state.model.cells[field] ||= [];
      setCell(state.model.cells[field], r, c, text);
      delete state.applyErrors[field];
      scheduleUpdate();
    },
    // A block (several cells) pasted into a cell: from the first cell it
    // replaces the whole matrix, elsewhere it fills from that cell on. A
    // block that does not read is refused whole, with the message under the grid.
    onPaste(r, c, text) {
      const parsed = parseMatrixText(text);
      if (!parsed.ok) {
        state.applyErrors[field] = parseErrorMessage(field, parsed.error);
        render();
        return true;
      }
      if (r === 0 && c === 0) return applyText(field, parsed.rows, parsed.texts);
      pasteBlock(state.model, field, r, c, parsed.rows);
      delete state.applyErrors[field];
      update();
      return true;
    },
    onHold: hold,
    onApply(text) {
      const parsed = parseMatrixText(text);
      if (!parsed.ok) {
        state.applyErrors[field] = parseErrorMessage(field, parsed.error);
        render();
        return false;
      }
      return applyText(field, parsed.rows, parsed.texts);
    },
  };
}

const PARSE_KEYS = {
  empty: 'errMatrixEmpty', empty_row: 'errEmptyRow', empty_cell: 'errEmptyCell', ragged: 'errRagged', json: 'errJson', json_shape: 'errJson',
};

function parseErrorMessage(field, error) {
  const tokens = field === 'c' ? state.model.contextTokens : state.model.tokens;
  // a bad cell in the grid's words; an empty one in a text box is between two commas (errEmptyCell)
  if (!PARSE_KEYS[error.code]) return cellMessage(field, error, tokens);
  const params = locate(field, error.row, error.column, tokens);
  for (const name of ['text', 'count', 'expected']) if (error[name] !== undefined) params[name] = error[name];
  return { key: PARSE_KEYS[error.code], params };
}

function applyText(field, rows, texts) {
  const error = applyMatrix(state.model, field, rows, texts);
  if (error) state.applyErrors[field] = error;
  else delete state.applyErrors[field];
  update();
  return !error;
}

function onDimInput(dim) {
  const parsed = parseDim($(`dim-${dim}`).value);
  if (parsed.ok) {
    state.model.dims[dim] = parsed.value;
    delete state.dimErrors[dim];
  } else {
    state.dimErrors[dim] = parsed.message;
  }
  scheduleUpdate();
}

// The seed of "fill randomly", also used for the matrices of a new head, W_O and C.
function currentSeed() {
  const seed = Number($('seed').value);
  return Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : null;
}

// Cells a matrix does not have yet come from its own random stream, so a new
// head (or W_O, or C) starts with numbers, not zeros; typed cells stay.
function fillMissing(field, matrix) {
  const store = state.model.cells[field] ||= [];
  matrix.forEach((row, r) => row.forEach((value, c) => {
    if (!store[r] || store[r][c] === undefined) setCell(store, r, c, String(value));
  }));
}

function fillNewMatrices(seed = currentSeed() ?? 1) {
  const { model } = state;
  const kvRows = model.options.cross ? model.dims.dCtx : model.dims.dModel;
  for (let h = 1; h < model.options.heads; h++) {
    const head = randomHead(seed, h, model.dims, kvRows);
    for (const base of HEAD_EDITORS) fillMissing(headField(base, h), head[base]);
  }
  if (usesWo(model)) fillMissing('wo', randomStream(seed, STREAM_WO, ...shapeOf('wo', model)));
  if (model.options.cross) fillMissing('c', randomStream(seed, STREAM_CONTEXT, ...shapeOf('c', model)));
}

function onHeadsInput() {
  const parsed = parseHeads($('heads').value);
  if (parsed.ok) {
    state.model.options.heads = parsed.value;
    state.head = Math.min(state.head, parsed.value - 1);
    delete state.dimErrors.heads;
    fillNewMatrices();
  } else {
    state.dimErrors.heads = parsed.message;
  }
  scheduleUpdate();
}

function onCheck(id) {
  const key = CHECKS[id];
  const { model } = state;
  if (key === 'scale' || key === 'causal') noteComparedChange(key);
  model.options[key] = $(id).checked;
  if (key === 'cross' && model.options.cross && model.contextTokens.length === 0) {
    const sentence = translate(state.lang, 'defaultContext');
    $('context-sentence').value = sentence;
    setTokens(model, tokenize(sentence, defaultMode(sentence)), 'context');
    model.dims.dCtx = model.dims.dModel;
  }
  if (key === 'cross') state.compareBase = null; // the keys changed
  fillNewMatrices();
  update();
}

function onTemperatureInput() {
  noteComparedChange('temperature');
  state.model.options.temperature = $('temperature').value;
  scheduleUpdate();
}

// The slider sets the text box too (the exact T, still typeable there).
function onTemperatureSlider() {
  noteComparedChange('temperature');
  const text = String(temperatureAt(Number($('temperature-slider').value)));
  state.model.options.temperature = text;
  $('temperature').value = text;
  scheduleUpdate();
}

// A drag (of the slider, of a number) updates every step as it goes but is
// one edit: the URL, storage and undo history take its end. An update still
// waiting (large inputs) records it when it is done.
function hold(on) {
  state.holding = on;
  const waiting = updates.frame || updates.timer || updates.running;
  if (!on && state.lastGood && !waiting) scheduleHash();
}

function fillRandomly() {
  const seed = currentSeed();
  if (seed === null) {
    showError('seed-error', { key: 'errSeed', params: {} });
    return;
  }
  showError('seed-error', null);
  const { model } = state;
  if (model.tokens.length === 0) return;
  // In cross-attention W_K and W_V have d_context rows.
  const kvRows = model.options.cross ? model.dims.dCtx : model.dims.dModel;
  const numbers = randomInputs(seed, model.tokens.length, model.dims, kvRows);
  model.cells = Object.fromEntries(['x', 'wq', 'wk', 'wv'].map((field) => [field, textsFromNumbers(numbers[field])]));
  fillNewMatrices(seed);
  state.applyErrors = {};
  update();
}

// The preset on screen: its button marked, its note under the buttons.
function renderPresetNote(name) {
  for (const button of document.querySelectorAll('[data-preset]')) {
    if (button.dataset.preset === name) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  $('preset-note').textContent = name ? translate(state.lang, `presetNote_${name}`) : '';
}

function loadPreset(name) {
  const preset = PRESETS[name];
  state.mode = preset.mode;
  $('token-mode').value = preset.mode;
  $('sentence').value = preset.sentence;
  $('context-sentence').value = '';
  state.model = createModel({ tokens: tokenize(preset.sentence, preset.mode), ...preset });
  state.head = 0;
  showNewModel();
}

// ---- start ----

function loadEngine() {
  const create = globalThis.createAttentionEngine;
  if (typeof create !== 'function') return Promise.reject(new Error('attention-engine.js did not load'));
  return create();
}

function fillDecimals() {
  const select = $('decimals');
  for (let d = MIN_DECIMALS; d <= MAX_DECIMALS; d++) {
    const option = el('option', '', String(d));
    option.value = String(d);
    select.append(option);
  }
  select.value = String(state.decimals);
}

function start() {
  setUpTemperatureSlider($('temperature-slider')); // its range first: a position set outside it would be clamped
  applyStaticStrings();
  fillDecimals();
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

  $('sentence').addEventListener('input', () => retokenize('query'));
  $('context-sentence').addEventListener('input', () => retokenize('context'));
  $('token-mode').addEventListener('change', () => {
    state.mode = $('token-mode').value;
    retokenize('query');
  });
  $('add-token').addEventListener('click', () => appendToken('query'));
  $('add-context-token').addEventListener('click', () => appendToken('context'));
  for (const dim of DIM_FIELDS) $(`dim-${dim}`).addEventListener('input', () => onDimInput(dim));
  $('heads').addEventListener('input', onHeadsInput);
  $('temperature').addEventListener('input', onTemperatureInput);
  $('temperature-slider').addEventListener('input', onTemperatureSlider);
  holdWhilePressed($('temperature-slider'), hold);
  for (const id of Object.keys(CHECKS)) $(id).addEventListener('change', () => onCheck(id));
  $('decimals').addEventListener('change', () => {
    state.decimals = Number($('decimals').value);
    renderSteps();
  });
  $('fill-random').addEventListener('click', fillRandomly);
  $('edit-toggle').addEventListener('click', toggleEditor);
  // Whatever is scrolled to (a step, a focused cell) stops below the sticky toolbar;
  // a narrower toolbar (the edit panel opened beside it) keeps the lit stage in sight.
  new ResizeObserver(() => {
    document.documentElement.style.scrollPaddingTop = `${$('steps-toolbar').offsetHeight + 8}px`;
    if ($('pipeline').firstElementChild) revealCurrent($('pipeline').firstElementChild);
  }).observe($('steps-toolbar'));
  for (const button of document.querySelectorAll('[data-preset]')) {
    button.addEventListener('click', () => replaceWork(() => loadPreset(button.dataset.preset)));
  }
  $('lang-toggle').addEventListener('click', () => {
    state.lang = state.lang === 'zh' ? 'en' : 'zh';
    storeLanguage(state.lang);
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
    state.overview = !state.overview;
    renderNav();
    renderSteps();
  });
  document.addEventListener('keydown', onKeydown);
  $('undo').addEventListener('click', () => undoEdit());
  $('redo').addEventListener('click', () => redoEdit());
  document.addEventListener('keydown', (event) => {
    const action = undoKey(event);
    if (!action) return;
    event.preventDefault();
    if (action === 'undo') undoEdit();
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
