// Wires the page: reads the inputs, validates them, asks the WebAssembly
// engine for every step and renders it. Any edit recomputes at once; while
// some input is invalid the last valid result stays, marked as stale.

import { detectLanguage, htmlLang, translate, describe } from './i18n.js';
import { EXAMPLE } from './example.js';
import { validateInputs, engineErrorMessage, MATRIX_FIELDS } from './validate.js';
import { renderSteps, renderTokens, renderGutter, el } from './render.js';

const FIELDS = ['sentence', ...MATRIX_FIELDS];

const $ = (id) => document.getElementById(id);

const state = {
  lang: detectLanguage(navigator.language),
  engine: null,
  engineStatus: 'loading', // 'loading' | 'ready' | 'failed'
  loadError: '',
  validation: null,
  fieldErrors: {},
  generalError: null,
  lastGood: null,
};

const inputs = Object.fromEntries(FIELDS.map((field) => [field, $(field)]));

function applyStaticStrings() {
  const { lang } = state;
  document.documentElement.lang = htmlLang(lang);
  document.title = translate(lang, 'docTitle');
  for (const node of document.querySelectorAll('[data-i18n]')) {
    node.textContent = translate(lang, node.dataset.i18n);
  }
  for (const node of document.querySelectorAll('[data-i18n-aria-label]')) {
    node.setAttribute('aria-label', translate(lang, node.dataset.i18nAriaLabel));
  }
  // The switch button is written in the language it switches to.
  $('lang-toggle').lang = htmlLang(lang === 'zh' ? 'en' : 'zh');
}

function readTexts() {
  return Object.fromEntries(FIELDS.map((field) => [field, inputs[field].value]));
}

function lineCount(text) {
  return Math.max(1, text.replace(/(\r\n|\r|\n)+$/, '').split(/\r\n|\r|\n/).length);
}

// Grows each text area to its content so the X gutter stays aligned line by line.
function sizeTextareas(tokens) {
  for (const field of MATRIX_FIELDS) {
    const lines = inputs[field].value.split(/\r\n|\r|\n/).length;
    inputs[field].rows = Math.max(2, lines, field === 'x' ? tokens.length : 0);
  }
}

function compute() {
  const validation = validateInputs(readTexts());
  state.validation = validation;
  state.fieldErrors = { ...validation.errors };
  state.generalError = null;
  if (!validation.ok || state.engineStatus !== 'ready') return;
  try {
    const result = state.engine.compute(validation.matrices);
    state.lastGood = { tokens: validation.tokens, inputs: validation.matrices, result };
  } catch (error) {
    const { field, message } = engineErrorMessage(error, validation.tokens);
    if (field) state.fieldErrors[field] = message;
    else state.generalError = message;
  }
}

function renderFieldErrors() {
  for (const field of FIELDS) {
    const message = state.fieldErrors[field];
    const errorNode = $(`${field}-error`);
    errorNode.textContent = message ? describe(state.lang, message) : '';
    if (message) inputs[field].setAttribute('aria-invalid', 'true');
    else inputs[field].removeAttribute('aria-invalid');
  }
}

function renderInputsDerived() {
  const { tokens } = state.validation;
  renderTokens($('token-list'), tokens);
  $('token-count').textContent = translate(state.lang, 'tokenCount', { n: tokens.length });
  sizeTextareas(tokens);
  renderGutter($('x-gutter'), tokens, lineCount(inputs.x.value));
}

function renderStatus() {
  const { lang } = state;
  const status = $('status');
  const messages = [];
  if (state.engineStatus === 'loading') {
    messages.push(['loading', translate(lang, 'loading')]);
  } else if (state.engineStatus === 'failed') {
    messages.push(['error', translate(lang, 'loadFailed', { detail: state.loadError })]);
  }
  if (state.generalError) messages.push(['error', describe(lang, state.generalError)]);
  const hasErrors = state.generalError || Object.keys(state.fieldErrors).length > 0;
  if (hasErrors && state.lastGood) messages.push(['stale', translate(lang, 'staleNote')]);
  status.replaceChildren(...messages.map(([kind, text]) => el('p', `status-${kind}`, text)));
  $('steps').classList.toggle('stale', Boolean(hasErrors && state.lastGood));
}

function render() {
  renderFieldErrors();
  renderInputsDerived();
  renderStatus();
  if (state.lastGood) renderSteps($('steps'), state.lang, state.lastGood);
}

function update() {
  compute();
  render();
}

function setInputs(values) {
  for (const field of FIELDS) inputs[field].value = values[field];
}

function syncGutterScroll() {
  $('x-gutter').scrollTop = inputs.x.scrollTop;
}

function loadEngine() {
  const create = globalThis.createAttentionEngine;
  if (typeof create !== 'function') {
    return Promise.reject(new Error('attention-engine.js did not load'));
  }
  return create();
}

function start() {
  applyStaticStrings();
  setInputs(EXAMPLE);
  for (const field of FIELDS) inputs[field].addEventListener('input', update);
  inputs.x.addEventListener('scroll', syncGutterScroll);
  $('restore').addEventListener('click', () => {
    setInputs(EXAMPLE);
    update();
  });
  $('lang-toggle').addEventListener('click', () => {
    state.lang = state.lang === 'zh' ? 'en' : 'zh';
    applyStaticStrings();
    render();
  });
  update();

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
