// "Edit the example": every input, for the page and for the element (with
// `editable`) alike. It keeps a draft (model.js: the text of every cell,
// dimension and option as typed) over the store's state (store.js): an edit
// changes the draft, and the draft, when it reads, becomes the store's inputs
// (action `edit`). What does not read yet (a cell "0,5", a dimension of 0)
// stays typed, with its message under its field, while the store keeps the
// last state that read (and the steps its result). A state from elsewhere
// (a link, a preset, undo, an import, training) rebuilds the draft. Its markup: panel.js.
//
// host: {
//   store              the StateStore;
//   lang()             the language shown;
//   replace(state)     a whole new state (a preset): the page sets the work before it aside;
//   undo(), redo()     through the store, as the host records them;
//   hold(on)           a drag (slider, scrubbed number) starts or ends;
//   optionChanged(key) before a compared option (options.js's COMPARED) or 'cross' changes;
//   changed()          the draft changed without a new state (its errors): show them.
// }

import { translate, describe } from '../ui/i18n.js';
import { tokenize, joinTokens, defaultMode } from '../io/tokenize.js';
import { parseMatrixText } from '../io/parse.js';
import { randomInputPieces, randomHead, randomStream, randomStreamPieces, STREAM_WO, STREAM_CONTEXT } from '../io/random.js';
import { PRESETS, presetOf } from '../state/presets.js';
import {
  createModel, shapeOf, cellText, setCell, readModel, parseDim, parseHeads, applyMatrix, pasteBlock,
  setTokens, removeToken, addToken, togglePadding, locate, headField, fieldName, activeFields,
  textsFromNumbers, usesWo, cellMessage, parseTemperature, modelFromState, stateFromRead, readState,
} from '../state/model.js';
import { SWITCHES, COMPARED } from '../state/options.js';
import { isMadeUp } from '../state/vectors.js';
import { sameInputs } from '../state/history.js';
import { renderTokenEditor, renderMatrixEditor } from './editors.js';
import { setUpTemperatureSlider, showTemperature, temperatureAt, holdWhilePressed } from './scrub.js';
import { buildPanel, applyStrings, setInvalid } from './panel.js';
import { dimLabels } from '../ui/labels.js';
import { setDisabled, setText, setAttr, nextTask } from '../ui/dom.js';
import { fillHeadTabs } from './headtabs.js';
import { isPlain } from '../views/steps.js';

const DIM_FIELDS = ['dModel', 'dk', 'dv', 'dCtx'];
const EDITORS = ['x', 'c', 'wq', 'bq', 'wk', 'bk', 'wv', 'bv', 'wo', 'bo'];
const HEAD_EDITORS = ['wq', 'wk', 'wv', 'bq', 'bk', 'bv'];
// The check boxes by id: each on/off option's (its attribute's name), W_O's and cross-attention's.
const CHECKS = { ...Object.fromEntries(SWITCHES.map((o) => [o.attribute, o.key])), 'use-wo': 'useWo', 'use-bias': 'biases', cross: 'cross' };
const PARSE_KEYS = {
  empty: 'errMatrixEmpty', empty_row: 'errEmptyRow', empty_cell: 'errEmptyCell', ragged: 'errRagged', json: 'errJson', json_shape: 'errJson',
};

// Two states the draft reads the same (the goal of "How it learns" is not in the draft; `guess`,
// which sameInputs leaves out, is).
const sameDraft = (a, b) => sameInputs({ ...a, learn: undefined }, { ...b, learn: undefined }) && Boolean(a.guess) === Boolean(b.guess);

export class Editor {
  constructor(host) {
    this.host = host;
    this.panel = buildPanel();
    this.model = null;
    this.mode = 'char';
    this.nextMode = null; // a preset's own tokenization, for the draft built from it
    this.splitKept = false; // the reader chose to keep splitting by character (until the mode changes)
    this.errors = {}; // readModel()'s, by field
    this.dimErrors = {}; // dimension and heads fields that do not read
    this.applyErrors = {}; // a matrix pasted or applied as text that was refused
    this.drafted = null; // the state the draft was built from or became
    this.urgent = false; // while an edit that is no typing (a click, an apply) is told: computed at once
    this.lang = null;
    setUpTemperatureSlider(this.$('temperature-slider')); // its range first: a position set outside it would be clamped
    this.wire();
  }

  $(id) {
    return this.panel.querySelector(`#${id}`);
  }

  get store() {
    return this.host.store;
  }

  // The store's state changed: a state the draft did not make rebuilds it.
  sync(state) {
    if (!this.drafted || !sameDraft(state, this.drafted)) this.reset(state);
    this.render();
  }

  // The draft becomes `state`: nothing typed before it stays (its errors neither).
  reset(state) {
    const mode = this.nextMode || (state.tokens.every((t) => Array.from(t).length === 1) ? 'char' : 'space');
    this.nextMode = null;
    this.mode = mode;
    this.$('token-mode').value = mode;
    this.splitKept = false;
    this.$('sentence').value = joinTokens(state.tokens, mode);
    this.$('context-sentence').value = state.context ? state.context.tokens.join(' ') : '';
    this.model = modelFromState(state);
    this.errors = {};
    this.dimErrors = {};
    this.applyErrors = {};
    this.drafted = state;
  }

  hasErrors() {
    return Object.keys(this.errors).length > 0 || Object.keys(this.dimErrors).length > 0;
  }

  // The draft, read: the store's new inputs when it reads, else its errors
  // shown. Typing (a burst of keys) is told with the burst; an edit by a click
  // or an apply (`now`) at once, and marked urgent while it is.
  commit({ now = false } = {}) {
    const read = readModel(this.model);
    this.errors = read.errors;
    if (read.ok && Object.keys(this.dimErrors).length === 0) {
      const { model } = this;
      const next = stateFromRead(model.tokens, model.contextTokens, read.matrices, read.options, this.store.state.view);
      this.drafted = next;
      if (this.store.dispatch('edit', next)) {
        if (now) {
          this.urgent = true;
          try {
            this.store.flush();
          } finally {
            this.urgent = false;
          }
        }
        return;
      }
    }
    this.render();
    this.host.changed();
  }

  // ---- rendering ----

  render() {
    if (!this.model) return;
    const { model } = this;
    const lang = this.host.lang();
    if (this.lang !== lang) {
      this.lang = lang;
      applyStrings(this.panel, lang);
    }
    const { options } = model;
    const active = this.panel.getRootNode().activeElement;
    renderTokenEditor(this.$('token-list'), lang, model.tokens, this.tokenHandlers('query'), options.cross ? null : model.padding);
    setText(this.$('token-count'), translate(lang, 'tokenCount', { n: model.tokens.length }));
    this.showError('tokens-error', this.errors.tokens && this.errors.tokens.message);
    this.$('context-panel').hidden = !options.cross;
    if (options.cross) {
      renderTokenEditor(this.$('context-token-list'), lang, model.contextTokens, this.tokenHandlers('context'), model.contextPadding);
      setText(this.$('context-token-count'), translate(lang, 'tokenCount', { n: model.contextTokens.length }));
    }
    this.showError('contextTokens-error', this.errors.contextTokens && this.errors.contextTokens.message);
    for (const dim of DIM_FIELDS) {
      const input = this.$(`dim-${dim}`);
      if (!this.dimErrors[dim] && active !== input) input.value = String(model.dims[dim]);
      this.showError(`dim-${dim}-error`, this.dimErrors[dim]);
      setInvalid(input, this.dimErrors[dim]);
    }
    const { view } = this.store.state;
    if (active !== this.$('decimals')) this.$('decimals').value = String(view.decimals);
    this.renderOptions(active);
    this.renderHeadTabs();
    for (const base of EDITORS) this.renderEditor(base);
    this.renderPreset();
    this.renderSplitPrompt();
    const undo = this.$('undo');
    const redo = this.$('redo');
    // with input that does not read on screen, undo first goes back to the last that did
    setDisabled([[undo, !this.store.canUndo() && !this.hasErrors()], [redo, !this.store.canRedo()]]);
  }

  showError(id, message) {
    setText(this.$(id), message ? describe(this.host.lang(), message) : '');
  }

  renderOptions(active) {
    const { model } = this;
    const { options } = model;
    for (const [id, key] of Object.entries(CHECKS)) this.$(id).checked = options[key];
    // With several heads W_O is part of multi-head attention.
    this.$('use-wo').checked = usesWo(model);
    this.$('use-wo').disabled = options.heads > 1;
    this.$('wo-forced').hidden = options.heads === 1;
    const heads = this.$('heads');
    if (!this.dimErrors.heads && active !== heads) heads.value = String(options.heads);
    this.showError('heads-error', this.dimErrors.heads);
    setInvalid(heads, this.dimErrors.heads);
    const temperature = this.$('temperature');
    if (active !== temperature) temperature.value = options.temperature;
    showTemperature(this.$('temperature-slider'), parseTemperature(options.temperature).value, this.host.lang());
    const temperatureError = this.errors.temperature && this.errors.temperature.message;
    this.showError('temperature-error', temperatureError);
    setInvalid(temperature, temperatureError);
  }

  // The head buttons above the matrices: they choose the head in view (the
  // store's view.head) whose W_Q, W_K, W_V are edited. A head with a bad cell is marked.
  renderHeadTabs() {
    fillHeadTabs(this.$('edit-heads'), {
      lang: this.host.lang(), count: this.model.options.heads, current: this.head(), errors: this.errors, focusIds: false,
      onChoose: (h, tab) => {
        this.store.dispatch('view', { head: h });
        this.render();
        tab.focus();
      },
    });
  }

  // The head edited: the one in view, within the heads the draft has.
  head() {
    return Math.min(this.store.state.view.head, this.model.options.heads - 1);
  }

  editorField(base) {
    return HEAD_EDITORS.includes(base) ? headField(base, this.head()) : base;
  }

  renderEditor(base) {
    const { model } = this;
    const lang = this.host.lang();
    const container = this.$(`editor-${base}`);
    const field = this.editorField(base);
    const active = activeFields(model).includes(field);
    container.hidden = !active;
    if (!active) return;
    const [rows, cols] = shapeOf(field, model);
    const rowTokens = { x: model.tokens, c: model.contextTokens }[base];
    const error = this.errors[field];
    renderMatrixEditor(container, {
      field, id: base, name: fieldName(field), lang,
      rowLabels: rowTokens || (base.startsWith('b') ? ['b'] : dimLabels(rows)), // a bias: its one row
      colLabels: dimLabels(cols),
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
    }, this.matrixHandlers(field));
    const headNote = container.querySelector('.grid-head');
    if (headNote) setText(headNote, model.options.heads > 1 ? `· ${translate(lang, 'headN', { n: this.head() + 1 })}` : '');
    setText(this.$(`${base}-error`), this.editorErrorText(base, field));
  }

  // This editor's own error, else the first bad cell of another head's matrix.
  editorErrorText(base, field) {
    const lang = this.host.lang();
    const own = this.applyErrors[field] || (this.errors[field] && this.errors[field].message);
    if (own) return describe(lang, own);
    if (!HEAD_EDITORS.includes(base)) return '';
    for (let h = 0; h < this.model.options.heads; h++) {
      const other = this.errors[headField(base, h)];
      if (other) return translate(lang, 'headHasError', { n: h + 1 }) + describe(lang, other.message);
    }
    return '';
  }

  // The preset on screen (its tokens and numbers, plain options at any temperature): its button
  // marked, its note (what the weights on screen show of it: hints.js) shown.
  renderPreset() {
    const state = this.store.state;
    const { matrices, options } = readState(state);
    const name = isPlain(options) ? presetOf(state.tokens, matrices) : null;
    for (const button of this.panel.querySelectorAll('[data-preset]')) {
      if (button.dataset.preset === name) setAttr(button, 'aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
    setText(this.$('preset-note'), (name && this.host.presetHint && this.host.presetHint()) || '');
  }

  // Split by character while the sentence has Latin letters and spaces (English typed after
  // 我爱你: one token per letter): the prompt proposes splitting by spaces, with both counts.
  renderSplitPrompt() {
    const text = this.$('sentence').value.trim();
    const show = this.mode === 'char' && !this.splitKept && /\p{Script=Latin}/u.test(text) && /\s/u.test(text);
    const prompt = this.$('split-prompt');
    if (show) {
      const params = { chars: tokenize(text, 'char').length, words: tokenize(text, 'space').length };
      setText(this.$('split-prompt-text'), translate(this.host.lang(), 'splitPrompt', params));
    }
    if (prompt.hidden === show) prompt.hidden = !show;
  }

  // ---- editing ----

  wire() {
    const on = (id, type, handler) => this.$(id).addEventListener(type, handler);
    on('sentence', 'input', () => this.retokenize('query'));
    on('context-sentence', 'input', () => this.retokenize('context'));
    on('token-mode', 'change', () => {
      this.mode = this.$('token-mode').value;
      this.splitKept = false;
      this.retokenize('query');
    });
    on('split-spaces', 'click', () => {
      this.$('token-mode').value = 'space';
      this.mode = 'space';
      this.$('sentence').focus(); // the button goes with the prompt
      this.retokenize('query');
    });
    on('split-keep', 'click', () => {
      this.splitKept = true;
      this.$('sentence').focus();
      this.renderSplitPrompt();
    });
    on('add-token', 'click', () => this.appendToken('query'));
    on('add-context-token', 'click', () => this.appendToken('context'));
    for (const dim of DIM_FIELDS) on(`dim-${dim}`, 'input', () => this.onDimInput(dim));
    on('heads', 'input', () => this.onHeadsInput());
    on('temperature', 'input', () => {
      this.host.optionChanged('temperature');
      this.model.options.temperature = this.$('temperature').value;
      this.commit();
    });
    // The slider sets the text box too (the exact T, still typeable there).
    on('temperature-slider', 'input', () => {
      this.host.optionChanged('temperature');
      const text = String(temperatureAt(Number(this.$('temperature-slider').value)));
      this.model.options.temperature = text;
      this.$('temperature').value = text;
      this.commit();
    });
    holdWhilePressed(this.$('temperature-slider'), (held) => this.host.hold(held));
    for (const id of Object.keys(CHECKS)) on(id, 'change', () => this.onCheck(id));
    on('decimals', 'change', () => this.store.dispatch('view', { decimals: Number(this.$('decimals').value) }));
    on('fill-random', 'click', () => this.fillRandomly());
    for (const button of this.panel.querySelectorAll('[data-preset]')) {
      button.addEventListener('click', () => this.loadPreset(button.dataset.preset));
    }
    on('undo', 'click', () => this.undo());
    on('redo', 'click', () => this.host.redo());
  }

  // Undo: with input that does not read on screen, back to the last that did first.
  undo() {
    if (!this.hasErrors()) {
      this.host.undo();
      return;
    }
    this.reset(this.store.state);
    this.render();
    this.host.changed();
  }

  sentences(which) {
    return which === 'query'
      ? { input: 'sentence', list: 'token-list', mode: () => this.mode, tokens: () => this.model.tokens }
      : { input: 'context-sentence', list: 'context-token-list', mode: () => defaultMode(this.$('context-sentence').value), tokens: () => this.model.contextTokens };
  }

  retokenize(which) {
    const s = this.sentences(which);
    setTokens(this.model, tokenize(this.$(s.input).value, s.mode()), which);
    this.commit();
  }

  tokenHandlers(which) {
    const s = this.sentences(which);
    const rewrite = () => { this.$(s.input).value = joinTokens(s.tokens(), s.mode()); };
    return {
      // A token renamed in the list keeps the row typed for it (the list names the rows);
      // a made-up row is its old text's, so the new text gets its own (vectors.js).
      onEdit: (i, text) => {
        const row = this.model.cells[which === 'query' ? 'x' : 'c']?.[i];
        if (row && isMadeUp(s.tokens()[i], row)) setTokens(this.model, s.tokens().map((token, j) => (j === i ? text : token)), which);
        else s.tokens()[i] = text;
        rewrite();
        this.commit();
      },
      onRemove: (i) => {
        removeToken(this.model, i, which);
        rewrite();
        this.commit({ now: true });
        this.render();
        const inputs = this.$(s.list).querySelectorAll('input');
        if (inputs.length > 0) inputs[Math.min(i, inputs.length - 1)].focus();
      },
      onTogglePad: (i) => {
        this.host.optionChanged('keyPadding');
        togglePadding(this.model, i, which);
        this.commit({ now: true });
      },
    };
  }

  appendToken(which) {
    const s = this.sentences(which);
    addToken(this.model, translate(this.host.lang(), 'newToken', { n: s.tokens().length + 1 }), which);
    this.$(s.input).value = joinTokens(s.tokens(), s.mode());
    this.commit({ now: true });
    this.render();
    const inputs = this.$(s.list).querySelectorAll('input');
    inputs[inputs.length - 1].focus();
    inputs[inputs.length - 1].select();
  }

  // (A grid keeps the handlers it was built with: they read this.model when called, the draft of then.)
  matrixHandlers(field) {
    return {
      onCell: (r, c, text) => {
        const { cells } = this.model;
        cells[field] ||= [];
        setCell(cells[field], r, c, text);
        delete this.applyErrors[field];
        this.commit();
      },
      // A block (several cells) pasted into a cell: from the first cell it
      // replaces the whole matrix, elsewhere it fills from that cell on. A
      // block that does not read is refused whole, with the message under the grid.
      onPaste: (r, c, text) => {
        const parsed = parseMatrixText(text);
        if (!parsed.ok) {
          this.refuse(field, parsed.error);
          return true;
        }
        if (r === 0 && c === 0) return this.applyText(field, parsed.rows, parsed.texts);
        pasteBlock(this.model, field, r, c, parsed.rows);
        delete this.applyErrors[field];
        this.commit({ now: true });
        return true;
      },
      onHold: (held) => this.host.hold(held),
      onApply: (text) => {
        const parsed = parseMatrixText(text);
        if (!parsed.ok) {
          this.refuse(field, parsed.error);
          return false;
        }
        return this.applyText(field, parsed.rows, parsed.texts);
      },
    };
  }

  // A matrix as text that does not read: refused whole, the message under its grid.
  refuse(field, error) {
    const tokens = field === 'c' ? this.model.contextTokens : this.model.tokens;
    let message;
    // a bad cell in the grid's words; an empty one in a text box is between two commas (errEmptyCell)
    if (!PARSE_KEYS[error.code]) {
      message = cellMessage(field, error, tokens);
    } else {
      const params = locate(field, error.row, error.column, tokens);
      for (const name of ['text', 'count', 'expected']) if (error[name] !== undefined) params[name] = error[name];
      message = { key: PARSE_KEYS[error.code], params };
    }
    this.applyErrors[field] = message;
    this.render();
    this.host.changed();
  }

  applyText(field, rows, texts) {
    const error = applyMatrix(this.model, field, rows, texts);
    if (error) this.applyErrors[field] = error;
    else delete this.applyErrors[field];
    this.commit({ now: true });
    return !error;
  }

  onDimInput(dim) {
    const parsed = parseDim(this.$(`dim-${dim}`).value);
    if (parsed.ok) {
      this.model.dims[dim] = parsed.value;
      delete this.dimErrors[dim];
    } else {
      this.dimErrors[dim] = parsed.message;
    }
    this.commit();
  }

  // The seed of "fill randomly", also used for the matrices of a new head, W_O and C.
  seed() {
    const seed = Number(this.$('seed').value);
    return Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : null;
  }

  // Cells a matrix does not have yet come from its own random stream, so a new
  // head (or W_O, or C) starts with numbers, not zeros; typed cells stay.
  // make() gives the matrix at its current shape, called only when a cell is
  // missing (an option toggled at n = 4096 would otherwise draw C's 262 144
  // numbers again).
  fillMissing(field, make) {
    const [rows, cols] = shapeOf(field, this.model);
    const store = this.model.cells[field];
    if (store && store.length >= rows && store.slice(0, rows).every((row) => row.length >= cols)) return;
    if (!store || store.length === 0) {
      this.model.cells[field] = textsFromNumbers(make()); // their parse kept (model.js)
      return;
    }
    make().forEach((row, r) => row.forEach((value, c) => {
      if (!store[r] || store[r][c] === undefined) setCell(store, r, c, String(value));
    }));
  }

  fillNewMatrices(seed = this.seed() ?? 1) {
    const { model } = this;
    const kvRows = model.options.cross ? model.dims.dCtx : model.dims.dModel;
    for (let h = 1; h < model.options.heads; h++) {
      let head = null; // W_Q, W_K, W_V of head h come from one stream
      for (const base of ['wq', 'wk', 'wv']) this.fillMissing(headField(base, h), () => (head ||= randomHead(seed, h, model.dims, kvRows))[base]);
    }
    if (usesWo(model)) this.fillMissing('wo', () => randomStream(seed, STREAM_WO, ...shapeOf('wo', model)));
    if (model.options.cross) this.fillMissing('c', () => randomStream(seed, STREAM_CONTEXT, ...shapeOf('c', model)));
  }

  onHeadsInput() {
    const parsed = parseHeads(this.$('heads').value);
    if (parsed.ok) {
      this.model.options.heads = parsed.value;
      delete this.dimErrors.heads;
      this.fillNewMatrices();
    } else {
      this.dimErrors.heads = parsed.message;
    }
    this.commit();
  }

  onCheck(id) {
    const key = CHECKS[id];
    const { model } = this;
    if (COMPARED.includes(key) || key === 'cross') this.host.optionChanged(key);
    model.options[key] = this.$(id).checked;
    if (key === 'cross' && model.options.cross && model.contextTokens.length === 0) {
      const sentence = translate(this.host.lang(), 'defaultContext');
      this.$('context-sentence').value = sentence;
      setTokens(model, tokenize(sentence, defaultMode(sentence)), 'context');
      model.dims.dCtx = model.dims.dModel;
    }
    this.fillNewMatrices();
    this.commit({ now: true });
  }

  // X, W_Q, W_K, W_V (and C in cross-attention) drawn from the seed, FILL_ROWS
  // rows a piece, with a task between pieces once a slice has taken FILL_SLICE_MS
  // (X and C at n = 4096 are 262 144 numbers each: one task held the page
  // ~100 ms). Nothing changes until all are drawn; a newer fill, or tokens or
  // dimensions changed meanwhile, drops this one.
  async fillRandomly() {
    const seed = this.seed();
    if (seed === null) {
      this.showError('seed-error', { key: 'errSeed', params: {} });
      return;
    }
    this.showError('seed-error', null);
    const { model } = this;
    if (model.tokens.length === 0) return;
    const turn = (this.fillTurn = (this.fillTurn || 0) + 1);
    const shape = () => JSON.stringify([model.tokens.length, model.contextTokens.length, model.dims, model.options.cross]);
    const drawnFor = shape();
    // In cross-attention W_K and W_V have d_context rows.
    const kvRows = model.options.cross ? model.dims.dCtx : model.dims.dModel;
    const { cross } = model.options;
    const cells = cross ? { x: [], wq: [], wk: [], wv: [], c: [] } : { x: [], wq: [], wk: [], wv: [] };
    const contextShape = shapeOf('c', model);
    function* pieces() { // drawn as the loop asks
      yield* randomInputPieces(seed, model.tokens.length, model.dims, kvRows, FILL_ROWS);
      if (!cross) return;
      for (const piece of randomStreamPieces(seed, STREAM_CONTEXT, ...contextShape, FILL_ROWS)) yield ['c', piece];
    }
    let start = performance.now();
    let sliced = false;
    const yieldToPage = async () => {
      await nextTask();
      sliced = true;
      start = performance.now();
      return turn === this.fillTurn && drawnFor === shape();
    };
    for (const [field, piece] of pieces()) {
      for (const row of textsFromNumbers(piece)) cells[field].push(row); // their parse kept (model.js)
      if (performance.now() - start >= FILL_SLICE_MS && !(await yieldToPage())) return;
    }
    // a fill done in one go commits at once (the click shows its numbers); one cut
    // in slices commits in a task of its own (reading, comparing and recording X, and C, of 4096 rows)
    if (sliced && !(await yieldToPage())) return;
    model.cells = cells;
    this.fillNewMatrices(seed);
    this.applyErrors = {};
    this.commit({ now: true });
  }

  // A preset replaces the whole work (the host keeps what it replaces).
  loadPreset(name) {
    const preset = PRESETS[name];
    const model = createModel({ tokens: tokenize(preset.sentence, preset.mode), ...preset });
    const read = readModel(model);
    const { view } = this.store.state;
    this.nextMode = preset.mode;
    this.host.replace(stateFromRead(model.tokens, [], read.matrices, read.options, { ...view, head: 0 }));
  }
}

const FILL_ROWS = 256;
const FILL_SLICE_MS = 12;
