// The attributes of <attention-visualizer>, declared once, and their codec: read into a state
// (stateFromAttributes, stateWithAttribute) and written from one (embedAttributes, its inverse). element.js observes the `data` and
// `config` ones (a data attribute changes the state, a config one what is shown; `mode` is
// read once, when first connected); scripts/make-element-data.mjs writes from this list the
// package's custom-elements.json, vscode.html-custom-data.json, the attribute interface (with
// the unions of step ids, panels, languages and themes) of types/attention-visualizer.d.ts, the Hugo
// shortcode's list of parameters and the Python host's keywords (hosts/python/attention_visualizer/
// _attributes.py). Each entry: name, kind, the TypeScript type of its value
// in JSX, the values an editor may offer (`values`; `boolean`: a boolean attribute) and what
// it means, in English · Chinese (the words of docs/authoring.md's table), and `form`, how a host
// writes its value (the Python host's show() keywords, the embed code's Jupyter form): 'matrix'
// (rows of numbers), 'json', 'list' (comma-separated), 'boolean'; absent: text. The options'
// attributes are options.js's, declared there.
import { stepsFor, STEP_IDS } from '../views/steps.js';
import { LANGUAGES, describe, detectLanguage } from '../ui/i18n.js';
import { OPTIONS, optionAttributeDeclarations, optionByAttribute, readAttribute, optionAttributes } from '../state/options.js';
import { readState, cellMessage, hasBiases } from '../state/model.js';
import { tutorialState } from '../state/presets.js';
import { validateState, fitLearn, MAX_TOKENS } from '../state/schema.js';
import { decodeHash } from '../state/link.js';
import { parseStateJson } from '../state/json.js';
import { followTokens } from '../state/vectors.js';
import { modelText } from '../state/model-choice.js';
import { derivedFields } from '../engine/model-run.js';
import { tokenize, defaultMode } from '../io/tokenize.js';
import { parseMatrixText } from '../io/parse.js';
import { excerpt } from '../ui/quote.js';

// Whether this bundle is the visualizer's own page (index.html, whose main.js imports
// page-owns-full.js first): the one place an element takes mode="full". Elsewhere its
// light-DOM layout would bring the page's ids and style.css (its font, its background)
// into the host page: the element refuses it there and says what to use.
export const FULL_MODE = { allowed: false };

export const PANELS = ['nav', 'formula', 'explanation', 'work', 'lines', 'legend', 'notes', 'tools'];
export const THEMES = ['auto', 'light', 'dark'];
const BOOLEAN = "boolean | '' | 'true' | 'false'";

export const ATTRIBUTES = [
  { name: 'state', kind: 'data', type: 'string', description: 'A whole state: a share hash (av1.…) or state JSON; the other attributes apply on top · 完整状态' },
  { name: 'sentence', kind: 'data', type: 'string', description: 'The sentence, split as `tokenize` says · 句子' },
  {
    name: 'tokenize', kind: 'data', type: "'char' | 'space' | 'word'", values: ['char', 'space', 'word'],
    description: 'How the sentence is split: char (default without spaces), space or word · 句子的切分方式',
  },
  { name: 'tokens', kind: 'data', type: 'string', form: 'json', description: 'Or the tokens as a JSON array, e.g. ["我","爱","你"] · 或直接给出词元' },
  { name: 'x', kind: 'data', type: 'string', form: 'matrix', description: 'The token vectors X: JSON ([[1,0],[0,1]]) or rows separated by ; or new lines (1 0; 0 1) · 词向量矩阵' },
  { name: 'wq', kind: 'data', type: 'string', form: 'matrix', description: 'W_Q, a matrix as for x · W_Q 矩阵' },
  { name: 'wk', kind: 'data', type: 'string', form: 'matrix', description: 'W_K, a matrix as for x · W_K 矩阵' },
  { name: 'wv', kind: 'data', type: 'string', form: 'matrix', description: 'W_V, a matrix as for x · W_V 矩阵' },
  { name: 'heads', kind: 'data', type: 'string', form: 'json', description: 'Several heads, or heads with biases: JSON [{"wq":…,"wk":…,"wv":…,"bq"?:[…],"bk"?:[…],"bv"?:[…]}, …] (instead of wq/wk/wv) · 多头，或带偏置的头' },
  { name: 'wo', kind: 'data', type: 'string', form: 'matrix', description: 'W_O, a matrix as for x · W_O 矩阵' },
  { name: 'bo', kind: 'data', type: 'string', form: 'json', description: 'b_O, the output\'s bias (with wo): a JSON array of d_model numbers · 输出偏置 b_O（与 wo 一起）' },
  { name: 'context', kind: 'data', type: 'string', form: 'matrix', description: 'The vectors of a second sentence (cross-attention), a matrix as for x · 交叉注意力第二个句子的向量' },
  { name: 'context-tokens', kind: 'data', type: 'string', form: 'json', description: 'The tokens of context, JSON array · 交叉注意力第二个句子的词元' },
  ...optionAttributeDeclarations(),
  {
    name: 'lang', kind: 'data', type: 'Language | string', values: LANGUAGES,
    description: "zh or en (default: the nearest lang of the page, else the browser's) · 界面语言",
  },
  {
    name: 'step', kind: 'data', type: "StepId | 'all' | number | string", values: [...STEP_IDS, 'all'],
    description: 'The step shown first: an id (any case), a number from 1, or all (every step at once) · 起始步骤',
  },
  { name: 'head', kind: 'data', type: 'number | string', description: 'The head shown first, from 1 · 起始的头' },
  { name: 'decimals', kind: 'data', type: 'number | string', description: 'Decimal places shown, 1–8 (default 4) · 小数位数' },
  { name: 'steps', kind: 'config', type: 'string', form: 'list', description: `Which steps to offer, by id: ${STEP_IDS.join(', ')} (default all) · 显示哪些步骤` },
  { name: 'panels', kind: 'config', type: 'string', form: 'list', description: `Which parts to show: ${PANELS.join(', ')} (default all) · 显示哪些部分` },
  { name: 'editable', kind: 'config', type: BOOLEAN, values: 'boolean', form: 'boolean', description: "The full page's editor under the steps; read-only without it · 可编辑" },
  {
    name: 'heading-level', kind: 'config', type: "1 | 2 | 3 | 4 | 5 | 6 | '1' | '2' | '3' | '4' | '5' | '6'", values: ['1', '2', '3', '4', '5', '6'],
    description: "The level of the steps' headings on the host page, 1–6 (what they hold one below; default: h3 steps, h2 editor) · 步骤标题在宿主页中的级别",
  },
  {
    name: 'theme', kind: 'config', type: 'Theme', values: THEMES,
    description: 'auto (default: follows the page), light or dark · 主题',
  },
  {
    name: 'mode', kind: 'mount', type: "'full'", values: ['full'],
    description: 'full: the whole visualizer page, for index.html only (elsewhere refused with a message: use the element, editable, or an iframe); read once, when first connected · 完整页面模式（仅用于 index.html）',
  },
];

// heading-level="N": {level: N}; absent {level: null}; another value {level: null, error} (a
// descriptor of i18n.js for the element's status).
export function headingLevel(text) {
  if (text === null) return { level: null, error: null };
  if (/^\s*[1-6]\s*$/.test(text)) return { level: Number(text), error: null };
  const problem = { key: 'probOneOf', params: { list: '1, 2, 3, 4, 5, 6' } };
  const detail = { key: 'errStateField', params: { field: 'heading-level', problem } };
  return { level: null, error: { key: 'errAttribute', params: { name: 'heading-level', detail } } };
}

const named = (kind) => ATTRIBUTES.filter((a) => a.kind === kind).map((a) => a.name);
export const DATA_ATTRIBUTES = named('data');
export const CONFIG_ATTRIBUTES = named('config');

// The values mode and tokenize take (the table above declares the others').
const MODES = ['full'];
const TOKENIZE_MODES = ['char', 'space', 'word'];

// ---- attributes → state ----

export const isOn = (value) => value !== null && value !== 'false';

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
  ['tokens', 'sentence', 'tokenize'], ['x'], ['heads', 'wq', 'wk', 'wv'], ['wo', 'bo'], ['context', 'context-tokens'],
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
// choice: the element's ModelChoice (engine/model-run.js: the models it has loaded), or null.
function applyGroup(element, s, before, group, lang, choice) {
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
      if (has('bo')) s.bo = jsonAttribute('bo', get('bo'));
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
      // the model's matrices now when it is here, else when it arrives (models.js arrived)
      Object.assign(s, derivedFields(choice, s, get('sentence'), (descriptor) => attributeError('model', descriptor)));
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
export function configProblems(element) {
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
function stateFromAttributes(element, lang, base, errors, restored, choice) {
  errors.clear();
  const s = { ...base, view: { ...base.view } };
  // The language of a restored state stays unless lang="…" says otherwise.
  const given = (group) => group.some((name) => element.hasAttribute(name)) || (group[0] === 'lang' && !restored);
  for (const group of GROUPS.filter(given)) {
    try {
      applyGroup(element, s, base, group, lang, choice);
    } catch (error) {
      if (!error.descriptor) throw error;
      errors.set(group[0], error.descriptor);
    }
  }
  return validated(element, s);
}

// The state with the group of the attribute `name` applied, all else as it was (choice: as applyGroup's).
export function stateWithAttribute(element, state, name, lang, errors, choice = null) {
  const group = groupOf(name);
  const s = { ...state, view: { ...state.view } };
  try {
    applyGroup(element, s, state, group, lang, choice);
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
export function stateOfText(text) {
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
export function refusal(descriptor) {
  const error = new TypeError(describe('en', descriptor));
  error.descriptor = descriptor;
  return error;
}

// The language an element shows: its lang="…", else its state's, else the page's nearest
// lang or the browser's.
export function elementLang(element, state) {
  const own = element.getAttribute('lang');
  if (LANGUAGES.includes(own)) return own;
  if (state) return state.view.lang;
  const inherited = element.closest('[lang]');
  return detectLanguage(inherited ? inherited.getAttribute('lang') : navigator.languages);
}

// The whole state the attributes name, on `propertyBase` (a state set by property before
// the first connection) if there is one; null when none reads (its error in errors, 'state').
// choice: the element's ModelChoice (a model the attributes name, read now when it has loaded), or null.
export function readAttributes(element, lang, propertyBase, errors, choice = null) {
  try {
    const base = propertyBase || baseState(element, lang);
    const restored = Boolean(propertyBase) || element.hasAttribute('state');
    return stateFromAttributes(element, lang, base, errors, restored, choice);
  } catch (error) {
    if (!error.descriptor) throw error;
    errors.set('state', error.descriptor);
    return null;
  }
}

// The `state` property's value (a whole state or some of its fields) merged into `current`;
// key padding not given is kept only while the number of keys stays. view: the view on screen.
export function mergedState(current, value, view) {
  const merged = { ...current, ...value };
  if (value && !Object.hasOwn(value, 'x')) followVectors(merged, current);
  if (value && value.view) merged.view = { ...view, ...value.view };
  if (!(value && Object.hasOwn(value, 'keyPadding'))) fitPadding(merged);
  return value && Object.hasOwn(value, 'learn') ? merged : fitLearn(merged);
}

// The display attributes as the compact view reads them: the steps offered (null: all), the
// panels shown, the theme.
export function displayConfig(element) {
  const stepsAttr = element.getAttribute('steps');
  const panelsAttr = element.getAttribute('panels');
  return {
    steps: stepsAttr && stepsAttr.trim() !== 'all' ? stepsAttr.split(/[\s,]+/).filter(Boolean) : null,
    panels: new Set(panelsAttr ? panelsAttr.split(/[\s,]+/).filter(Boolean) : PANELS),
    theme: element.getAttribute('theme') || 'auto',
  };
}

// ---- state → attributes: the embed code (embed-code.js), the inverse of the reading above ----

// The attributes that show exactly `state`, as [name, value, json] (value '': a boolean
// attribute that is on; json: the value is JSON text).
export function embedAttributes(state, config) {
  const json = (name, value) => [name, JSON.stringify(value), true];
  // a model's state: the model (an option) and the sentence its tokenizer reads, not its weights
  const model = Boolean(state.model);
  const attrs = model ? [['sentence', modelText(state.tokens)]] : [json('tokens', state.tokens), json('x', state.x)];
  if (!model) {
    // a head with biases goes in `heads` (wq, wk, wv have no bias beside them)
    if (state.heads.length === 1 && !hasBiases({ heads: state.heads })) for (const w of ['wq', 'wk', 'wv']) attrs.push(json(w, state.heads[0][w]));
    else attrs.push(json('heads', state.heads));
    if (state.wo) attrs.push(json('wo', state.wo));
    if (state.bo) attrs.push(json('bo', state.bo));
  }
  if (state.context) attrs.push(json('context', state.context.x), json('context-tokens', state.context.tokens));
  // (a model's mask is its own)
  attrs.push(...optionAttributes(state).filter(([name]) => !model || name !== 'causal'));
  attrs.push(['lang', state.view.lang], ['step', state.view.step]);
  if (state.heads.length > 1) attrs.push(['head', String(state.view.head + 1)]);
  attrs.push(['decimals', String(state.view.decimals)], ...config);
  return attrs;
}

// The display attributes present, as [name, value] (an iframe's query takes editable only when on).
export function displayAttributes(element, editable) {
  return CONFIG_ATTRIBUTES.filter((name) => element.hasAttribute(name) && (name !== 'editable' || editable))
    .map((name) => [name, element.getAttribute(name)]);
}
