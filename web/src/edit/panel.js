// The markup of "Edit the example" (editor.js): every field, button and grid of the panel,
// its fixed strings named by data-i18n* (applyStrings puts them in a language). The editor
// finds its parts by id and fills them.

import { translate } from '../ui/i18n.js';
import { MIN_DECIMALS, MAX_DECIMALS } from '../ui/format.js';
import { MAX_DIM, MAX_HEADS } from '../state/schema.js';
import { SWITCHES } from '../state/options.js';
import { setAttr } from '../ui/dom.js';

// The presets' buttons (presets.js), in order, and the tokenizer's modes (tokenize.js).
export const PRESET_KEYS = { tutorial: 'presetTutorial', english: 'presetEnglish', animal: 'presetAnimal', previous: 'presetPrevious', same: 'presetSame' };
const MODE_KEYS = { char: 'modeChar', space: 'modeSpace', word: 'modeWord' };

// ---- the panel's markup ----

// h('p', {class, id, i18n (a string key for its text), …attributes}, …children)
function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'class') node.className = value;
    else if (name === 'i18n') node.dataset.i18n = value;
    else if (name === 'i18nTitle') node.dataset.i18nTitle = value;
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

// A sentence's box: a textarea one line high that grows with its text (field-sizing, up to a
// few lines, then it scrolls), not an <input>: a long sentence wraps where it can be read,
// and Chromium's single-line box took 25–45 ms of PrePaint a keystroke holding 4096
// different CJK characters (a wrapped box: ~2 ms). A line break is whitespace to the tokenizer.
const sentenceBox = (id, attributes = {}) => h('textarea', { id, class: 'sentence', rows: '1', autocomplete: 'off', spellcheck: 'false', ...attributes });

const errorLine = (id) => h('p', { class: 'error', id, 'aria-live': 'polite' });

function numberField(id, labelKey, { max = MAX_DIM, value } = {}) {
  const input = h('input', { id, type: 'number', min: '1', max: String(max), step: '1', inputmode: 'numeric', 'aria-describedby': `${id}-error` });
  if (value !== undefined) input.value = value;
  return h('div', { class: 'field field-small' }, h('label', { for: id, i18n: labelKey }), input, errorLine(`${id}-error`));
}

function tokensBlock(prefix, labelId) {
  return h('div', { class: 'tokens' },
    h('span', { class: 'tokens-label', id: labelId, i18n: 'tokensLabel' }),
    h('ol', { id: `${prefix}token-list`, class: 'token-list', 'aria-labelledby': labelId }),
    h('button', { type: 'button', id: `add-${prefix}token`, class: 'button-small', i18n: 'addToken' }),
    h('span', { id: `${prefix}token-count`, class: 'token-count' }));
}

function matrixSection(id, labelKey, { head = false } = {}) {
  return h('section', { class: 'matrix-editor', id: `editor-${id}`, 'aria-labelledby': `${id}-title` },
    h('h4', { id: `${id}-title` }, h('span', { i18n: labelKey }), ' ', ...(head ? [h('span', { class: 'grid-head' }), ' '] : []), h('span', { class: 'grid-shape' })),
    h('div', { class: 'grid-body' }),
    errorLine(`${id}-error`));
}

export function buildPanel() {
  const presets = h('div', { class: 'presets', role: 'group', 'aria-labelledby': 'presets-label' },
    h('span', { id: 'presets-label', class: 'presets-label', i18n: 'presetsLabel' }),
    ...Object.entries(PRESET_KEYS).map(([name, key]) => h('button', { type: 'button', 'data-preset': name, i18n: key })));
  const undoRedo = h('div', { class: 'undo-redo', role: 'group' },
    h('button', { type: 'button', id: 'undo', i18n: 'undo', i18nTitle: 'undoTitle', 'aria-keyshortcuts': 'Control+Z Meta+Z', disabled: true }),
    h('button', { type: 'button', id: 'redo', i18n: 'redo', i18nTitle: 'redoTitle', 'aria-keyshortcuts': 'Control+Shift+Z Meta+Shift+Z Control+Y', disabled: true }));
  const modes = h('select', { id: 'token-mode' }, ...Object.entries(MODE_KEYS).map(([mode, key]) => h('option', { value: mode, i18n: key })));
  const decimals = h('select', { id: 'decimals' });
  for (let d = MIN_DECIMALS; d <= MAX_DECIMALS; d++) decimals.append(h('option', { value: String(d) }, String(d)));
  const check = (id, labelKey, extra = []) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', id, ...(id === 'use-wo' ? { 'aria-describedby': 'wo-forced' } : {}) }), ' ', h('span', { i18n: labelKey }), ...extra);
  const heads = numberField('heads', 'headsLabel', { max: MAX_HEADS, value: '1' });
  return h('div', { class: 'editor' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'inputs-title', i18n: 'inputsTitle' }), presets, undoRedo),
    h('p', { class: 'preset-note', id: 'preset-note', 'aria-live': 'polite' }),
    h('div', { class: 'sentence-row' },
      h('div', { class: 'field field-sentence' }, h('label', { for: 'sentence', i18n: 'sentenceLabel' }),
        sentenceBox('sentence')),
      h('div', { class: 'field' }, h('label', { for: 'token-mode', i18n: 'tokenModeLabel' }), modes),
      h('div', { class: 'model-slot', id: 'model-slot' })), // the model picker (edit/model-picker.js), placed by the element
    // Latin text with spaces split by character: splitting by spaces is proposed; the reader decides.
    h('div', { class: 'split-prompt', id: 'split-prompt', role: 'status', hidden: true },
      h('span', { id: 'split-prompt-text' }), ' ',
      h('button', { type: 'button', id: 'split-spaces', class: 'button-small', i18n: 'splitBySpaces' }), ' ',
      h('button', { type: 'button', id: 'split-keep', class: 'button-small', i18n: 'splitKeep' })),
    tokensBlock('', 'tokens-label'),
    errorLine('tokens-error'),
    h('p', { class: 'hint pad-hint', id: 'pad-hint', i18n: 'padHint' }),
    h('h3', { class: 'subhead', i18n: 'dimsTitle' }),
    h('div', { class: 'controls' },
      numberField('dim-dModel', 'dModelLabel'), numberField('dim-dk', 'dkLabel'), numberField('dim-dv', 'dvLabel'),
      h('div', { class: 'field field-small' }, h('label', { for: 'decimals', i18n: 'decimalsLabel' }), decimals),
      h('div', { class: 'field field-seed' }, h('label', { for: 'seed', i18n: 'seedLabel' }),
        h('div', { class: 'seed-row' },
          h('input', { id: 'seed', type: 'number', min: '0', step: '1', value: '1', inputmode: 'numeric', 'aria-describedby': 'seed-hint seed-error' }),
          h('button', { type: 'button', id: 'fill-random', i18n: 'fillRandom' })),
        h('p', { class: 'hint', id: 'seed-hint', i18n: 'fillHint' }),
        errorLine('seed-error'))),
    h('h3', { class: 'subhead', i18n: 'variantTitle' }),
    h('p', { class: 'hint', i18n: 'variantHint' }),
    h('div', { class: 'controls variant-controls' },
      heads,
      h('div', { class: 'field field-small' }, h('label', { for: 'temperature', i18n: 'temperatureLabel' }),
        h('div', { class: 'temperature-row' },
          h('label', { for: 'temperature-slider', class: 'visually-hidden', i18n: 'temperatureSliderLabel' }),
          h('input', { id: 'temperature-slider', type: 'range', class: 'temperature-slider', 'aria-describedby': 'temperature-hint' }),
          h('input', { id: 'temperature', type: 'text', value: '1', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'temperature-hint temperature-error' })),
        h('p', { class: 'hint', id: 'temperature-hint', i18n: 'temperatureHint' }),
        errorLine('temperature-error')),
      h('div', { class: 'checks' },
        ...SWITCHES.map((o) => check(o.attribute, o.labels.control)),
        check('use-wo', 'useWoLabel', [' ', h('span', { class: 'hint', id: 'wo-forced', i18n: 'woForced', hidden: true })]),
        check('use-bias', 'biasesLabel'),
        check('cross', 'crossLabel'))),
    h('div', { id: 'context-panel', class: 'context-panel', hidden: true },
      h('h3', { class: 'subhead', i18n: 'contextTitle' }),
      h('div', { class: 'sentence-row' },
        h('div', { class: 'field field-sentence' }, h('label', { for: 'context-sentence', i18n: 'contextSentenceLabel' }),
          sentenceBox('context-sentence', { 'aria-describedby': 'context-hint' })),
        numberField('dim-dCtx', 'dCtxLabel')),
      h('p', { class: 'hint', id: 'context-hint', i18n: 'contextHint' }),
      tokensBlock('context-', 'context-tokens-label'),
      errorLine('contextTokens-error')),
    h('h3', { class: 'subhead', i18n: 'matricesTitle' }),
    h('p', { class: 'hint', i18n: 'matricesHint' }),
    h('p', { class: 'hint', i18n: 'scrubHint' }),
    h('div', { id: 'edit-heads', class: 'head-tabs', role: 'group', 'aria-labelledby': 'edit-heads-label', hidden: true },
      h('span', { id: 'edit-heads-label', class: 'head-tabs-label', i18n: 'editHeadLabel' })),
    h('div', { class: 'matrix-editors' },
      matrixSection('x', 'xLabel'), matrixSection('c', 'cLabel'),
      matrixSection('wq', 'wqLabel', { head: true }), matrixSection('bq', 'bqLabel', { head: true }),
      matrixSection('wk', 'wkLabel', { head: true }), matrixSection('bk', 'bkLabel', { head: true }),
      matrixSection('wv', 'wvLabel', { head: true }), matrixSection('bv', 'bvLabel', { head: true }),
      matrixSection('wo', 'woLabel'), matrixSection('bo', 'boLabel')));
}

// The panel's fixed strings (data-i18n*) in `lang`.
export function applyStrings(root, lang) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = translate(lang, node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-aria-label]')) node.setAttribute('aria-label', translate(lang, node.dataset.i18nAriaLabel));
  for (const node of root.querySelectorAll('[data-i18n-title]')) node.title = translate(lang, node.dataset.i18nTitle);
}

// A field marked as not reading (aria-invalid), or not.
export function setInvalid(input, invalid) {
  if (invalid) setAttr(input, 'aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}
