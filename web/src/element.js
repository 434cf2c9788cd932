// <attention-visualizer>: the steps of the page as a custom element for
// tutorial authors. One classic script (dist/attention-visualizer.js, the
// engine included); every element on a page shares the one engine that
// createAttentionEngine() caches. Shadow DOM with adopted stylesheets, so
// the host page's CSS neither breaks it nor is touched by it.
//
// Attributes (README, "For tutorial authors"): state, sentence, tokenize,
// tokens, x, wq, wk, wv, heads, wo, context, context-tokens, causal,
// key-padding, scale-by-sqrt-dk, temperature, positional-encoding, lang,
// steps, step, head, panels, editable, decimals, theme.
// Property `state` (read: a copy; write: a whole or partial state, merged and
// validated; a state refused, by the checks or by the engine, throws a
// TypeError with .descriptor and changes nothing); property `result` (the engine's result, read only); event
// `change` with detail {state} after every edit and step change (a drag of the
// temperature slider or of a number: once, when let go), `ready` once the
// first result is on screen.

import PAGE_CSS from '../style.css';
import ELEMENT_CSS from '../element.css';
import { translate, detectLanguage, htmlLang, LANGUAGES } from './i18n.js';
import { say, sayMessage } from './i18n-embed.js';
import { stepsFor, renderStep } from './steps.js';
import { engineInput, normalizeResult } from './variant.js';
import { sameNumbers } from './model.js';
import { TUTORIAL } from './presets.js';
import { tokenize, defaultMode } from './tokenize.js';
import { parseMatrixText, parseNumber } from './parse.js';
import { renderMatrixEditor } from './editors.js';
import { dimLabel } from './work.js';
import { el, button } from './dom.js';
import { tutorialState, validateState, decodeHash, parseStateJson, readState } from './share.js';
import { Tools, importTargets, withMatrix, embedCode } from './tools.js';
import { setUpTemperatureSlider, showTemperature, temperatureAt, holdWhilePressed } from './scrub.js';

// Where this script was loaded from: embed.html and index.html sit next to it.
const SCRIPT_URL = document.currentScript ? document.currentScript.src : '';

export const PANELS = ['nav', 'formula', 'explanation', 'work', 'lines', 'legend', 'notes', 'tools'];
const DATA_ATTRIBUTES = ['state', 'sentence', 'tokenize', 'tokens', 'x', 'wq', 'wk', 'wv', 'heads', 'wo', 'context',
  'context-tokens', 'causal', 'key-padding', 'scale-by-sqrt-dk', 'temperature', 'positional-encoding', 'lang', 'step', 'head', 'decimals'];
const CONFIG_ATTRIBUTES = ['steps', 'panels', 'editable', 'theme'];

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
  throw attributeError(name, { key: 'errStateField', params: { field: name, problem: parseProblem(parsed.error) } });
}

// A parse.js error as a state problem (share.js) naming the row and column.
function parseProblem({ code, row, column, text, count, expected }) {
  if (code === 'not_number' || code === 'not_finite' || code === 'empty_cell') {
    return { key: 'probMatrixCell', params: { row: row + 1, col: column + 1, text: code === 'empty_cell' ? '""' : String(text).slice(0, 40) } };
  }
  if (code === 'ragged') return { key: 'probMatrixRagged', params: { row: row + 1, count, expected } };
  if (code === 'empty_row') return { key: 'probMatrixRow', params: { row: row + 1 } };
  return { key: 'probMatrix', params: {} };
}

function jsonAttribute(name, text) {
  try {
    return JSON.parse(text);
  } catch {
    throw attributeError(name, { key: 'errStateJson', params: {} });
  }
}

function attributeError(name, detail) {
  const error = new Error(name);
  error.descriptor = { key: 'errAttribute', params: { name, detail } };
  return error;
}

// "true,false,1,0": anything else is an error naming its position, never read as false.
function booleanList(name, text) {
  return text.split(/[\s,]+/).filter(Boolean).map((v, i) => {
    const word = v.toLowerCase();
    if (word === '1' || word === 'true') return true;
    if (word === '0' || word === 'false') return false;
    throw attributeError(name, { key: 'errBooleanEntry', params: { index: i + 1, text: v.slice(0, 40) } });
  });
}

// The state the attributes describe: the `state` attribute (a share hash or
// state JSON) or the tutorial, with every other given attribute on top.
function stateFromAttributes(element, lang) {
  const get = (name) => element.getAttribute(name);
  let base = tutorialState(lang);
  if (get('state')) {
    const text = get('state').trim();
    const parsed = text.startsWith('{') ? parseStateJson(text) : decodeHash(text);
    if (!parsed.ok) throw attributeError('state', parsed.message || { key: 'errStateHash', params: {} });
    base = parsed.state;
  }
  // The language of a restored state stays unless lang="…" says otherwise.
  const s = { ...base, view: { ...base.view, ...(get('lang') !== null || !get('state') ? { lang } : {}) } };
  if (get('tokens') !== null) s.tokens = jsonAttribute('tokens', get('tokens'));
  else if (get('sentence') !== null) s.tokens = tokenize(get('sentence'), get('tokenize') || defaultMode(get('sentence')));
  if (get('x') !== null) s.x = matrixAttribute('x', get('x'));
  if (get('heads') !== null) s.heads = jsonAttribute('heads', get('heads'));
  else if (['wq', 'wk', 'wv'].some((w) => get(w) !== null)) {
    s.heads = [{ ...s.heads[0] }];
    for (const w of ['wq', 'wk', 'wv']) if (get(w) !== null) s.heads[0][w] = matrixAttribute(w, get(w));
  }
  if (get('wo') !== null) s.wo = matrixAttribute('wo', get('wo'));
  if (get('context') !== null) {
    const x = matrixAttribute('context', get('context'));
    const tokens = get('context-tokens') !== null ? jsonAttribute('context-tokens', get('context-tokens')) : x.map((_, i) => `k${i + 1}`);
    s.context = { tokens, x };
  }
  if (get('causal') !== null) s.causal = isOn(get('causal'));
  if (get('positional-encoding') !== null) s.positionalEncoding = isOn(get('positional-encoding'));
  if (get('scale-by-sqrt-dk') !== null) s.scaleBySqrtDk = isOn(get('scale-by-sqrt-dk'));
  if (get('temperature') !== null) s.temperature = Number(get('temperature'));
  const keyCount = s.context ? s.context.tokens.length : (Array.isArray(s.tokens) ? s.tokens.length : 0);
  if (get('key-padding') !== null) s.keyPadding = booleanList('key-padding', get('key-padding'));
  else if (!Array.isArray(s.keyPadding) || s.keyPadding.length !== keyCount) s.keyPadding = Array(keyCount).fill(false);
  if (get('decimals') !== null) s.view.decimals = Number(get('decimals'));
  if (get('head') !== null) s.view.head = Number(get('head')) - 1; // 1-based, as on screen
  const validated = validateState(s);
  if (!validated.ok) throw attributeError(firstAttribute(element), validated.message);
  if (get('step') !== null) validated.state.view.step = stepId(validated.state, get('step').trim());
  return validated.state;
}

const firstAttribute = (element) => DATA_ATTRIBUTES.find((name) => element.hasAttribute(name) && name !== 'lang') || 'state';

// step="softmax", step="5" (1-based) or step="all".
function stepId(state, text) {
  if (!/^\d+$/.test(text)) return text;
  const steps = stepsFor(readState(state).options);
  return steps[Math.min(steps.length, Math.max(1, Number(text))) - 1].id;
}

// A refused state as an error: the English text, and the descriptor for either language.
function refusal(descriptor) {
  const error = new TypeError(sayMessage('en', descriptor));
  error.descriptor = descriptor;
  return error;
}

// ---- the element ----

export class AttentionVisualizer extends HTMLElement {
  static get observedAttributes() {
    return [...DATA_ATTRIBUTES, ...CONFIG_ATTRIBUTES];
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    this.shadowRoot.adoptedStyleSheets = styleSheets();
    this._root = el('div', 'av');
    this._root.setAttribute('role', 'group');
    this.shadowRoot.append(this._root);
    this._state = null;
    this._result = null;
    this._engine = null;
    this._engineError = null;
    this._attributeError = null;
    this._engineErrorMessage = null;
    this._selections = {};
    this._pending = {}; // field → {`${r},${c}`: text} for cells that do not read as numbers
    this._editor = null;
    this._holding = false; // a drag under way (scrub.js): its change event waits for its end
    this._heldChange = false;
    this._tools = new Tools({
      state: () => this._state,
      ctx: (lang) => this._ctx(lang),
      editable: () => this._editable(),
      apply: (state) => this._apply(state),
      rerender: () => this._render(),
      config: () => this._displayAttributes(),
      baseUrl: () => SCRIPT_URL || location.href,
    });
    this._fromAttributes = true;
    this._dark = window.matchMedia('(prefers-color-scheme: dark)');
    this._onScheme = () => this._render();
    this._root.addEventListener('keydown', (event) => this._onKeydown(event));
    for (const type of ['dragenter', 'dragover']) {
      this._root.addEventListener(type, (event) => {
        if (!this._editable() || !event.dataTransfer || !event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        this._root.classList.add('dragging');
      });
    }
    this._root.addEventListener('dragleave', (event) => {
      if (!this._root.contains(event.relatedTarget)) this._root.classList.remove('dragging');
    });
    this._root.addEventListener('drop', (event) => {
      this._root.classList.remove('dragging');
      if (!this._editable() || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      this._tools.importFiles([...event.dataTransfer.files]);
    });
  }

  connectedCallback() {
    this._dark.addEventListener('change', this._onScheme);
    this._readAttributes();
    if (!this._engine && !this._engineError) {
      const create = globalThis.createAttentionEngine;
      const loading = typeof create === 'function' ? create() : Promise.reject(new Error('createAttentionEngine is missing'));
      loading.then(
        (engine) => {
          this._engine = engine;
          this._compute();
          this._render();
          this.dispatchEvent(new CustomEvent('ready', { detail: { state: this.state } }));
        },
        (error) => { this._engineError = error && error.message ? error.message : String(error); this._render(); },
      );
    }
    this._render();
  }

  disconnectedCallback() {
    this._dark.removeEventListener('change', this._onScheme);
  }

  attributeChangedCallback(name, before, after) {
    if (before === after || !this.isConnected) return;
    if (DATA_ATTRIBUTES.includes(name)) this._readAttributes();
    this._render();
  }

  get state() {
    return this._state ? structuredClone(this._state) : null;
  }

  // A whole state or some of its fields (merged into the current one).
  set state(value) {
    const merged = { ...(this._state || tutorialState(this._lang())), ...value };
    if (value && value.view) merged.view = { ...(this._state ? this._state.view : {}), ...value.view };
    const result = validateState(merged);
    if (!result.ok) throw refusal(result.message);
    this._apply(result.state, { strict: true });
  }

  get result() {
    return this._result ? structuredClone(this._result) : null;
  }

  // ---- state ----

  _lang() {
    const own = this.getAttribute('lang');
    if (LANGUAGES.includes(own)) return own;
    if (this._state) return this._state.view.lang;
    const inherited = this.closest('[lang]');
    return detectLanguage(inherited ? inherited.getAttribute('lang') : navigator.language);
  }

  _readAttributes() {
    try {
      this._state = stateFromAttributes(this, LANGUAGES.includes(this.getAttribute('lang')) ? this.getAttribute('lang') : this._lang());
      this._attributeError = null;
    } catch (error) {
      if (!error.descriptor) throw error;
      this._attributeError = error.descriptor;
      if (!this._state) this._state = tutorialState(this._lang());
    }
    this._pending = {};
    this._compute();
  }

  // strict: a state the engine refuses (an overflow, say) throws and the
  // element stays as it was (the `state` property); otherwise it is shown with
  // its error over the last result, as while editing.
  _apply(state, { notify = true, strict = false } = {}) {
    const before = strict && [this._state, this._pending, this._result, this._engineErrorMessage];
    this._state = state;
    this._pending = {};
    this._compute();
    if (strict && this._engineErrorMessage) {
      const message = this._engineErrorMessage;
      [this._state, this._pending, this._result, this._engineErrorMessage] = before;
      throw refusal(message);
    }
    this._render();
    if (!notify) return;
    if (this._holding) this._heldChange = true;
    else this._notifyChange();
  }

  _notifyChange() {
    this.dispatchEvent(new CustomEvent('change', { detail: { state: this.state }, bubbles: true, composed: true }));
  }

  // A drag updates the steps as it goes, and is one change when let go.
  _hold(on) {
    this._holding = on;
    if (on || !this._heldChange) return;
    this._heldChange = false;
    this._notifyChange();
  }

  _compute() {
    if (!this._engine || !this._state) return;
    const { matrices, options } = readState(this._state);
    try {
      this._result = normalizeResult(this._engine.compute(engineInput(matrices, options)));
      this._engineErrorMessage = null;
    } catch (error) {
      this._engineErrorMessage = { key: error.code === 'overflow' ? 'errOverflow' : 'errEngine', params: { name: error.operand, message: error.message } };
    }
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

  _editable() {
    return isOn(this.getAttribute('editable'));
  }

  _visibleSteps() {
    const all = stepsFor(readState(this._state).options);
    const { steps } = this._config();
    const visible = steps ? all.filter((step) => steps.includes(step.id)) : all;
    return visible.length > 0 ? visible : all;
  }

  _setView(view) {
    this._apply({ ...this._state, view: { ...this._state.view, ...view } });
  }

  // ---- rendering ----

  _render() {
    if (!this._state) return;
    const lang = this._lang();
    const config = this._config();
    const root = this._root;
    root.lang = htmlLang(lang);
    root.setAttribute('aria-label', say(lang, 'elementLabel'));
    root.className = ['av', ...PANELS.filter((p) => !config.panels.has(p)).map((p) => `no-${p}`),
      (config.theme === 'dark' || (config.theme !== 'light' && this._dark.matches)) ? 'dark' : ''].filter(Boolean).join(' ');
    const focusedId = this.shadowRoot.activeElement && this.shadowRoot.activeElement.dataset.focusId;
    // The editor stays in place (typing must keep its focus); the rest is drawn anew.
    if (this._editable()) this._renderEditor(lang);
    const parts = [];
    if (config.panels.has('nav')) parts.push(this._renderNav(lang));
    if (this._state.heads.length > 1) parts.push(this._renderHeads(lang));
    if (this._editable()) parts.push(this._editor.box);
    parts.push(this._renderStatus(lang), this._renderSteps(lang));
    if (config.panels.has('tools') && this._result) parts.push(this._tools.render(lang));
    const keep = parts.filter((node) => node.isConnected);
    for (const node of [...root.children]) if (!keep.includes(node)) node.remove();
    parts.forEach((node, i) => {
      if (root.children[i] !== node) root.insertBefore(node, root.children[i] || null);
    });
    if (focusedId) root.querySelector(`[data-focus-id="${focusedId}"]`)?.focus();
    // On a narrow screen the step list scrolls sideways: keep the current step in sight
    // (scrollIntoView would scroll the host page too).
    const nav = root.querySelector('.step-nav');
    const current = nav && nav.querySelector('[aria-current="step"]');
    if (current) {
      const offset = current.getBoundingClientRect().right - nav.getBoundingClientRect().right;
      if (offset > 0) nav.scrollLeft += offset + 8;
    }
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
    const nav = el('ol', 'step-nav');
    nav.setAttribute('aria-label', say(lang, 'stepsLabel'));
    steps.forEach((step, i) => {
      const li = el('li');
      const link = button('', () => go(i), 'step-link');
      link.dataset.focusId = `step-${step.id}`;
      link.append(el('span', 'step-link-num', String(i + 1)), el('span', 'step-link-title', t(`${step.key}Short`)));
      if (!overview && i === index) link.setAttribute('aria-current', 'step');
      li.append(link);
      nav.append(li);
    });
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
    this._state.heads.forEach((_, h) => {
      const tab = button(String(h + 1), () => this._setView({ head: h }), 'head-tab');
      tab.setAttribute('aria-label', translate(lang, 'headN', { n: h + 1 }));
      tab.setAttribute('aria-pressed', h === this._state.view.head ? 'true' : 'false');
      tab.dataset.focusId = `head-${h}`;
      box.append(tab);
    });
    return box;
  }

  _renderStatus(lang) {
    const box = el('div', 'status');
    const add = (kind, text) => box.append(el('p', `status-${kind}`, text));
    if (this._attributeError) add('error', sayMessage(lang, this._attributeError));
    if (this._engineError) add('error', translate(lang, 'loadFailed', { detail: this._engineError }));
    else if (!this._engine) add('loading', translate(lang, 'loading'));
    if (this._engineErrorMessage) add('error', sayMessage(lang, this._engineErrorMessage));
    return box;
  }

  _ctx(lang) {
    const { matrices, options } = readState(this._state);
    const head = Math.min(this._state.view.head, options.heads - 1);
    const tokens = this._state.tokens;
    const keyTokens = this._state.context ? this._state.context.tokens : tokens;
    const plain = options.heads === 1 && !options.usesWo && !options.causal && !options.keyPadding.some(Boolean)
      && options.scale && options.temperature === 1 && !options.pe && !options.cross;
    return {
      lang, decimals: this._state.view.decimals, tokens, keyTokens, options, head,
      inputs: { x: matrices.x, c: matrices.c, wo: matrices.wo, ...this._state.heads[head] },
      result: this._result.heads[head], full: this._result,
      tutorial: plain && tokens.length === 3 && ['x', 'wq', 'wk', 'wv'].every((f) => sameNumbers(matrices[f], TUTORIAL[f])),
      compare: null,
      onCloseCompare: () => {},
      onOpenHead: (h) => this._setView({ head: h, step: 'softmax' }),
    };
  }

  _renderSteps(lang) {
    const list = el('ol', 'steps');
    if (!this._result) return list;
    if (this._engineErrorMessage || Object.keys(this._pending).length > 0) list.classList.add('stale');
    const ctx = this._ctx(lang);
    const steps = this._visibleSteps();
    const all = stepsFor(ctx.options);
    const indices = this._state.view.step === 'all' ? steps.map((_, i) => i) : [this._currentIndex(steps)];
    // Numbered within the whole sequence: "step 3 of 6" even when only step 3 is shown.
    list.append(...indices.map((i) => renderStep(steps[i], all.indexOf(steps[i]), all.length, ctx, {
      selection: this._selections[steps[i].id] || null,
      onSelection: (selection) => { this._selections[steps[i].id] = selection; },
    })));
    return list;
  }

  // ---- editing (editable) ----

  // Built once per language; later renders only update values and grids.
  _renderEditor(lang) {
    const state = this._state;
    if (!this._editor || this._editor.lang !== lang) this._editor = this._buildEditor(lang);
    const { sentence, checks, temperature, slider, grids, sections } = this._editor;
    if (this.shadowRoot.activeElement !== sentence) {
      sentence.value = state.tokens.join(state.tokens.every((t) => Array.from(t).length === 1) ? '' : ' ');
    }
    for (const [key, input] of Object.entries(checks)) input.checked = state[key];
    if (this.shadowRoot.activeElement !== temperature) {
      temperature.value = String(state.temperature);
      temperature.removeAttribute('aria-invalid');
    }
    showTemperature(slider, state.temperature, lang);
    const head = state.view.head;
    const targets = importTargets(state).filter((target) => target.head === undefined || target.head === head);
    for (const [id, section] of sections) {
      if (!targets.some((t) => t.id === id)) {
        section.remove();
        sections.delete(id);
      }
    }
    targets.forEach((target, i) => {
      if (!sections.has(target.id)) {
        const section = el('section', 'matrix-editor');
        const title = el('h4', '', `${target.label} `);
        title.append(el('span', 'grid-shape'));
        section.append(title, el('div', 'grid-body'));
        sections.set(target.id, section);
      }
      const section = sections.get(target.id);
      // in the targets' order, moved only when out of it (a moved grid would lose a drag's pointer)
      if (grids.children[i] !== section) grids.insertBefore(section, grids.children[i] || null);
      const rows = this._matrixOf(target);
      const rowLabels = target.id === 'x' ? state.tokens : target.id === 'c' ? state.context.tokens : rows.map((_, r) => dimLabel(r));
      const pending = this._pending[target.id] || {};
      const bad = Object.keys(pending)[0];
      renderMatrixEditor(section, {
        field: target.id, id: `av-${target.id}`, name: target.label, lang, rowLabels, colLabels: rows[0].map((_, c) => dimLabel(c)),
        texts: rows.map((row, r) => row.map((v, c) => pending[`${r},${c}`] ?? String(v))),
        badCell: bad ? bad.split(',').map(Number) : null,
      }, this._matrixHandlers(target));
    });
  }

  _buildEditor(lang) {
    const t = (key) => translate(lang, key);
    const box = el('div', 'av-editor');
    const sentenceLabel = el('label', 'av-field');
    const sentence = el('input', 'av-sentence');
    sentence.type = 'text';
    sentence.addEventListener('change', () => this._setTokens(tokenize(sentence.value, defaultMode(sentence.value))));
    sentenceLabel.append(el('span', '', t('sentenceLabel')), sentence);
    const options = el('div', 'options');
    const checks = {};
    for (const [key, labelKey] of [['causal', 'causalLabel'], ['scaleBySqrtDk', 'scaleLabel'], ['positionalEncoding', 'peLabel']]) {
      const label = el('label', 'check');
      const input = el('input');
      input.type = 'checkbox';
      input.addEventListener('change', () => this._apply({ ...this._state, [key]: input.checked }));
      checks[key] = input;
      label.append(input, el('span', '', t(labelKey)));
      options.append(label);
    }
    const temperatureLabel = el('div', 'av-field-inline');
    const temperature = el('input');
    temperature.type = 'text';
    temperature.inputMode = 'decimal';
    temperature.setAttribute('aria-label', t('temperatureLabel'));
    temperature.addEventListener('change', () => {
      const parsed = parseNumber(temperature.value.trim());
      if (parsed.ok && parsed.value > 0) this._apply({ ...this._state, temperature: parsed.value });
      else temperature.setAttribute('aria-invalid', 'true');
    });
    // the slider (log scale) beside the exact value
    const slider = el('input', 'temperature-slider');
    setUpTemperatureSlider(slider);
    slider.setAttribute('aria-label', t('temperatureSliderLabel'));
    slider.addEventListener('input', () => this._apply({ ...this._state, temperature: temperatureAt(Number(slider.value)) }));
    holdWhilePressed(slider, (on) => this._hold(on));
    temperatureLabel.append(el('span', '', t('temperatureLabel')), slider, temperature);
    options.append(temperatureLabel);
    const grids = el('div', 'grids');
    box.append(sentenceLabel, options, el('p', 'hint', t('scrubHint')), grids);
    return { lang, box, sentence, checks, temperature, slider, grids, sections: new Map() };
  }

  _matrixOf(target) {
    if (target.id === 'x') return this._state.x;
    if (target.id === 'wo') return this._state.wo;
    if (target.id === 'c') return this._state.context.x;
    return this._state.heads[target.head][target.w];
  }

  _matrixHandlers(target) {
    const setRows = (rows) => {
      const next = validateState(withMatrix(this._state, target, rows));
      if (next.ok) this._apply(next.state);
      else this._tools.showMessage(next.message, true);
      return next.ok;
    };
    return {
      onCell: (r, c, text) => {
        const parsed = parseNumber(text.trim());
        const pending = { ...(this._pending[target.id] || {}) };
        if (parsed.ok) {
          delete pending[`${r},${c}`];
          const rows = this._matrixOf(target).map((row) => [...row]);
          rows[r][c] = parsed.value;
          const others = this._pending;
          this._apply(withMatrix(this._state, target, rows));
          this._pending = { ...others, [target.id]: pending };
          if (Object.keys(pending).length === 0) delete this._pending[target.id];
        } else {
          pending[`${r},${c}`] = text;
          this._pending = { ...this._pending, [target.id]: pending };
        }
        this._render();
      },
      onHold: (on) => this._hold(on),
      onPaste: (r, c, text) => {
        const parsed = parseMatrixText(text);
        if (!parsed.ok || r !== 0 || c !== 0) return false;
        return setRows(parsed.rows);
      },
      onApply: (text) => {
        const parsed = parseMatrixText(text);
        if (!parsed.ok) {
          this._tools.showMessage({ key: 'errCsvShape', params: {} }, true);
          return false;
        }
        return setRows(parsed.rows);
      },
    };
  }

  // New tokens keep the rows of X (and its key padding) they still have; new rows are 0.
  _setTokens(tokens) {
    if (tokens.length === 0) return;
    const state = this._state;
    const width = state.x[0].length;
    const x = tokens.map((_, i) => (state.x[i] ? [...state.x[i]] : Array(width).fill(0)));
    const keyPadding = state.context ? state.keyPadding : tokens.map((_, i) => state.keyPadding[i] === true);
    this._apply({ ...state, tokens, x, keyPadding });
  }

  _onKeydown(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || this._state.view.step === 'all') return;
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const target = event.composedPath()[0];
    if (target instanceof Element && target.closest('input, textarea, select, .matrix-view, .lines-view, table')) return;
    const steps = this._visibleSteps();
    const i = this._currentIndex(steps) + (event.key === 'ArrowRight' ? 1 : -1);
    if (i < 0 || i >= steps.length) return;
    event.preventDefault();
    this._setView({ step: steps[i].id });
  }

  // The display attributes present (an iframe's query takes editable only when on).
  _displayAttributes() {
    return CONFIG_ATTRIBUTES.filter((name) => this.hasAttribute(name) && (name !== 'editable' || this._editable()))
      .map((name) => [name, this.getAttribute(name)]);
  }

  // The markup that shows exactly this: 'element' or 'iframe'.
  embedCode(form) {
    return embedCode(form, this._state, this._displayAttributes(), SCRIPT_URL || location.href);
  }
}

if (!customElements.get('attention-visualizer')) customElements.define('attention-visualizer', AttentionVisualizer);
