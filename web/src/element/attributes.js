// The attributes of <attention-visualizer>, declared once. element.js observes the `data` and
// `config` ones (a data attribute changes the state, a config one what is shown; `mode` is
// read once, when first connected); scripts/make-element-data.mjs writes from this list the
// package's custom-elements.json, vscode.html-custom-data.json and the attribute interface (with
// the unions of step ids, panels, languages and themes) of types/attention-visualizer.d.ts. Each entry: name, kind, the TypeScript type of its value
// in JSX, the values an editor may offer (`values`; `boolean`: a boolean attribute) and what
// it means, in English · Chinese (the words of docs/authoring.md's table). The options' attributes
// are options.js's, declared there.
import { stepsFor } from '../views/steps.js';
import { LANGUAGES } from '../ui/i18n.js';
import { optionAttributeDeclarations } from '../state/options.js';

// every step id, in the order shown (the options that add steps all on)
export const STEP_IDS = stepsFor({ positionalEncoding: true, alibi: true, heads: 2, usesWo: true }).map((step) => step.id);
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
  { name: 'tokens', kind: 'data', type: 'string', description: 'Or the tokens as a JSON array, e.g. ["我","爱","你"] · 或直接给出词元' },
  { name: 'x', kind: 'data', type: 'string', description: 'The token vectors X: JSON ([[1,0],[0,1]]) or rows separated by ; or new lines (1 0; 0 1) · 词向量矩阵' },
  { name: 'wq', kind: 'data', type: 'string', description: 'W_Q, a matrix as for x · W_Q 矩阵' },
  { name: 'wk', kind: 'data', type: 'string', description: 'W_K, a matrix as for x · W_K 矩阵' },
  { name: 'wv', kind: 'data', type: 'string', description: 'W_V, a matrix as for x · W_V 矩阵' },
  { name: 'heads', kind: 'data', type: 'string', description: 'Several heads: JSON [{"wq":…,"wk":…,"wv":…}, …] (instead of wq/wk/wv) · 多头' },
  { name: 'wo', kind: 'data', type: 'string', description: 'W_O, a matrix as for x · W_O 矩阵' },
  { name: 'context', kind: 'data', type: 'string', description: 'The vectors of a second sentence (cross-attention), a matrix as for x · 交叉注意力第二个句子的向量' },
  { name: 'context-tokens', kind: 'data', type: 'string', description: 'The tokens of context, JSON array · 交叉注意力第二个句子的词元' },
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
  { name: 'steps', kind: 'config', type: 'string', description: `Which steps to offer, by id: ${STEP_IDS.join(', ')} (default all) · 显示哪些步骤` },
  { name: 'panels', kind: 'config', type: 'string', description: `Which parts to show: ${PANELS.join(', ')} (default all) · 显示哪些部分` },
  { name: 'editable', kind: 'config', type: BOOLEAN, values: 'boolean', description: "The full page's editor under the steps; read-only without it · 可编辑" },
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
