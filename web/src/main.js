// Wires the page: keeps the inputs (model.js), asks the WebAssembly engine
// for every step on each edit and renders the step(s) in view. While some
// input is invalid the last good result stays, marked as stale.

import { detectLanguage, htmlLang, translate, describe, LANGUAGES } from './i18n.js';
import { DEFAULT_DECIMALS, MIN_DECIMALS, MAX_DECIMALS } from './format.js';
import { tokenize, joinTokens } from './tokenize.js';
import { parseMatrixText } from './parse.js';
import { randomInputs } from './random.js';
import { PRESETS, TUTORIAL } from './presets.js';
import {
  MATRIX_FIELDS, FIELD_NAMES, createModel, shapeOf, cellText, setCell, readModel, parseDim, applyMatrix,
  pasteBlock, setTokens, removeToken, addToken, sameNumbers, locate,
} from './model.js';
import { STEPS, renderStep, signedLegend } from './steps.js';
import { renderTokenEditor, renderMatrixEditor } from './editors.js';
import { dimLabel } from './work.js';
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
const DIM_FIELDS = ['dModel', 'dk', 'dv'];
const PLAY_INTERVAL_MS = 3000;
const LANG_KEY = 'attention-visualizer.lang';

const state = {
  lang: storedLanguage() || detectLanguage(navigator.language),
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
  step: 0,
  overview: false,
  playTimer: null,
  selections: {},
};

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

function compute() {
  const read = readModel(state.model);
  state.errors = read.errors;
  state.generalError = null;
  if (!read.ok || Object.keys(state.dimErrors).length > 0 || state.engineStatus !== 'ready') return;
  try {
    const result = state.engine.compute(read.matrices);
    state.lastGood = { tokens: [...state.model.tokens], inputs: read.matrices, result };
  } catch (error) {
    const field = MATRIX_FIELDS.includes(error.operand) ? error.operand : null;
    const params = { ...locate(field, error.row, error.column, state.model.tokens), name: FIELD_NAMES[field] || error.operand, message: error.message };
    state.generalError = { key: error.code === 'overflow' ? 'errOverflow' : 'errEngine', params };
  }
}

function hasErrors() {
  return Boolean(state.generalError) || Object.keys(state.errors).length > 0 || Object.keys(state.dimErrors).length > 0;
}

function update() {
  compute();
  render();
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
  // The switch button is written in the language it switches to.
  $('lang-toggle').lang = htmlLang(lang === 'zh' ? 'en' : 'zh');
  $('signed-legend').replaceChildren(signedLegend(lang));
}

function showError(id, message) {
  $(id).textContent = message ? describe(state.lang, message) : '';
}

function renderInputs() {
  const { model, lang } = state;
  const n = model.tokens.length;
  renderTokenEditor($('token-list'), lang, model.tokens, { onEdit: editToken, onRemove: deleteToken });
  $('token-count').textContent = translate(lang, 'tokenCount', { n });
  showError('tokens-error', state.errors.tokens && state.errors.tokens.message);
  for (const dim of DIM_FIELDS) {
    const input = $(`dim-${dim}`);
    if (!state.dimErrors[dim] && document.activeElement !== input) input.value = String(model.dims[dim]);
    showError(`dim-${dim}-error`, state.dimErrors[dim]);
    if (state.dimErrors[dim]) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  for (const field of MATRIX_FIELDS) {
    const [rows, cols] = shapeOf(field, n, model.dims);
    const error = state.errors[field];
    renderMatrixEditor($(`editor-${field}`), {
      field, name: FIELD_NAMES[field], lang,
      rowLabels: field === 'x' ? model.tokens : labels(rows),
      colLabels: labels(cols),
      texts: Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => cellText(model.cells[field], r, c))),
      badCell: error ? [error.row, error.column] : null,
    }, matrixHandlers(field));
    showError(`${field}-error`, state.applyErrors[field] || (error && error.message));
  }
}

const labels = (count) => Array.from({ length: count }, (_, i) => dimLabel(i));

function renderStatus() {
  const { lang } = state;
  const messages = [];
  if (state.engineStatus === 'loading') messages.push(['loading', translate(lang, 'loading')]);
  else if (state.engineStatus === 'failed') messages.push(['error', translate(lang, 'loadFailed', { detail: state.loadError })]);
  if (state.generalError) messages.push(['error', describe(lang, state.generalError)]);
  const stale = hasErrors() && state.lastGood;
  if (stale) messages.push(['stale', translate(lang, 'staleNote')]);
  $('status').replaceChildren(...messages.map(([kind, text]) => el('p', `status-${kind}`, text)));
  $('steps').classList.toggle('stale', Boolean(stale));
}

function renderNav() {
  const { lang } = state;
  const nav = $('step-nav');
  if (nav.childElementCount !== STEPS.length || nav.dataset.lang !== lang) {
    nav.dataset.lang = lang;
    nav.replaceChildren(...STEPS.map((step, i) => {
      const li = el('li');
      const button = el('button', 'step-link');
      button.type = 'button';
      button.append(el('span', 'step-link-num', String(i + 1)), el('span', 'step-link-title', translate(lang, `${step.key}Short`)));
      button.addEventListener('click', () => {
        stopPlay();
        goTo(i);
      });
      li.append(button);
      return li;
    }));
  }
  nav.querySelectorAll('button').forEach((button, i) => {
    if (!state.overview && i === state.step) button.setAttribute('aria-current', 'step');
    else button.removeAttribute('aria-current');
  });
  $('prev').disabled = state.overview || state.step === 0;
  $('next').disabled = state.overview || state.step === STEPS.length - 1;
  $('play').disabled = state.overview;
  $('play').textContent = translate(lang, state.playTimer ? 'pause' : 'play');
  $('play').setAttribute('aria-pressed', state.playTimer ? 'true' : 'false');
  $('overview').setAttribute('aria-pressed', state.overview ? 'true' : 'false');
  $('overview').textContent = translate(lang, state.overview ? 'guided' : 'overview');
  $('step-position').textContent = state.overview ? translate(lang, 'allSteps')
    : translate(lang, 'stepOf', { n: state.step + 1, total: STEPS.length });
}

function renderSteps() {
  const container = $('steps');
  if (!state.lastGood) {
    container.replaceChildren();
    return;
  }
  const { tokens, inputs, result } = state.lastGood;
  const ctx = {
    lang: state.lang, decimals: state.decimals, tokens, inputs, result,
    tutorial: tokens.length === 3 && ['x', 'wq', 'wk', 'wv'].every((f) => sameNumbers(inputs[f], TUTORIAL[f])),
  };
  const indices = state.overview ? STEPS.map((_, i) => i) : [state.step];
  container.replaceChildren(...indices.map((i) => renderStep(STEPS[i], i, ctx, {
    selection: state.selections[STEPS[i].id] || null,
    onSelection: (selection) => { state.selections[STEPS[i].id] = selection; },
  })));
}

function render() {
  renderInputs();
  renderStatus();
  renderNav();
  renderSteps();
}

// ---- navigation ----

function goTo(i) {
  state.step = Math.min(STEPS.length - 1, Math.max(0, i));
  renderNav();
  renderSteps();
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
  if (state.step === STEPS.length - 1) state.step = 0;
  state.playTimer = setInterval(() => {
    state.step += 1;
    if (state.step >= STEPS.length - 1) stopPlay();
    renderNav();
    renderSteps();
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
  goTo(state.step + (event.key === 'ArrowRight' ? 1 : -1));
}

// ---- editing ----

function retokenize() {
  setTokens(state.model, tokenize($('sentence').value, state.mode));
  update();
}

function editToken(i, text) {
  state.model.tokens[i] = text;
  $('sentence').value = joinTokens(state.model.tokens, state.mode);
  update();
}

function deleteToken(i) {
  removeToken(state.model, i);
  $('sentence').value = joinTokens(state.model.tokens, state.mode);
  update();
  const inputs = $('token-list').querySelectorAll('input');
  if (inputs.length > 0) inputs[Math.min(i, inputs.length - 1)].focus();
}

function appendToken() {
  addToken(state.model, translate(state.lang, 'newToken', { n: state.model.tokens.length + 1 }));
  $('sentence').value = joinTokens(state.model.tokens, state.mode);
  update();
  const inputs = $('token-list').querySelectorAll('input');
  inputs[inputs.length - 1].focus();
  inputs[inputs.length - 1].select();
}

function matrixHandlers(field) {
  return {
    onCell(r, c, text) {
      setCell(state.model.cells[field], r, c, text);
      delete state.applyErrors[field];
      update();
    },
    // A block (several cells) pasted into a cell: from the first cell it
    // replaces the whole matrix, elsewhere it fills from that cell on.
    onPaste(r, c, text) {
      if (!/[\t\n,，[]/.test(text.trim())) return false;
      const parsed = parseMatrixText(text);
      if (!parsed.ok) return false;
      if (r === 0 && c === 0) return applyText(field, parsed.rows);
      pasteBlock(state.model, field, r, c, parsed.rows);
      delete state.applyErrors[field];
      update();
      return true;
    },
    onApply(text) {
      const parsed = parseMatrixText(text);
      if (!parsed.ok) {
        state.applyErrors[field] = parseErrorMessage(field, parsed.error);
        render();
        return false;
      }
      return applyText(field, parsed.rows);
    },
  };
}

const PARSE_KEYS = {
  empty: 'errMatrixEmpty', empty_row: 'errEmptyRow', empty_cell: 'errEmptyCell', not_number: 'errNotNumber',
  not_finite: 'errNotFinite', ragged: 'errRagged', json: 'errJson', json_shape: 'errJson',
};

function parseErrorMessage(field, error) {
  const params = locate(field, error.row, error.column, state.model.tokens);
  for (const name of ['text', 'count', 'expected']) if (error[name] !== undefined) params[name] = error[name];
  return { key: PARSE_KEYS[error.code], params };
}

function applyText(field, rows) {
  const error = applyMatrix(state.model, field, rows);
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
  update();
}

function fillRandomly() {
  const seed = Number($('seed').value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    showError('seed-error', { key: 'errSeed', params: {} });
    return;
  }
  showError('seed-error', null);
  if (state.model.tokens.length === 0) return;
  const numbers = randomInputs(seed, state.model.tokens.length, state.model.dims);
  state.model = createModel({ tokens: state.model.tokens, ...numbers });
  state.applyErrors = {};
  update();
}

function loadPreset(name) {
  const preset = PRESETS[name];
  state.mode = preset.mode;
  $('token-mode').value = preset.mode;
  $('sentence').value = preset.sentence;
  if (preset.seed !== undefined) $('seed').value = String(preset.seed);
  state.model = createModel({ tokens: tokenize(preset.sentence, preset.mode), ...preset });
  state.dimErrors = {};
  state.applyErrors = {};
  state.selections = {};
  update();
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
  applyStaticStrings();
  fillDecimals();
  loadPreset('tutorial');

  $('sentence').addEventListener('input', retokenize);
  $('token-mode').addEventListener('change', () => {
    state.mode = $('token-mode').value;
    retokenize();
  });
  $('add-token').addEventListener('click', appendToken);
  for (const dim of DIM_FIELDS) $(`dim-${dim}`).addEventListener('input', () => onDimInput(dim));
  $('decimals').addEventListener('change', () => {
    state.decimals = Number($('decimals').value);
    renderSteps();
  });
  $('fill-random').addEventListener('click', fillRandomly);
  for (const button of document.querySelectorAll('[data-preset]')) {
    button.addEventListener('click', () => loadPreset(button.dataset.preset));
  }
  $('lang-toggle').addEventListener('click', () => {
    state.lang = state.lang === 'zh' ? 'en' : 'zh';
    storeLanguage(state.lang);
    applyStaticStrings();
    render();
  });
  $('prev').addEventListener('click', () => { stopPlay(); goTo(state.step - 1); });
  $('next').addEventListener('click', () => { stopPlay(); goTo(state.step + 1); });
  $('play').addEventListener('click', togglePlay);
  $('overview').addEventListener('click', () => {
    stopPlay();
    state.overview = !state.overview;
    renderNav();
    renderSteps();
  });
  document.addEventListener('keydown', onKeydown);

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
