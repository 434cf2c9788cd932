// The attention options, each declared once: the state's field and the engine's input option
// (`key`, one spelling everywhere: the state, readModel()'s options, the view's ctx.options),
// the element's attribute, its type, its default, its strings (i18n.js keys), whether the
// before/after comparison is about it and the pipeline stage it acts in. Read by the state's
// schema (schema.js), the link's compaction (link.js), the editor's model and controls
// (model.js, editor.js), the engine's input (variant.js), the element's attributes and the
// embed code (element/attributes.js, embed-code.js), show-the-work and the diagram.
// The structure of a state (tokens, the heads, W_O, the second sentence) is not an option.
//
// Entry: { key, attribute, type, default, engine?, withModel?, labels: { control, change, problem? },
//          compared, stage, description } (engine: false, not the engine's: left out of its input;
// withModel: its value in a shipped model's state, engine/model-run.js (absent: the state's);
// description: English · Chinese, the attribute's table).

import { parseNumber } from '../io/parse.js';
import { excerpt } from '../ui/quote.js';
import { parseExercise } from './exercise.js';

// The value kinds. check(v, {keys}): a problem descriptor or null (keys: the number of keys);
// fill(v, {keys}): the value with its default put in; isDefault(v); attribute: the text of
// the element's attribute, read (text null: absent) and written (null: left out); edited:
// the editor model's form of a value (temperature is the text of its field).
const TYPES = {
  boolean: {
    check: (v, _, option) => (v === undefined || typeof v === 'boolean' ? null : { key: option.labels.problem || 'probBoolean', params: {} }),
    fill: (v, _, option) => v ?? option.default,
    isDefault: (v, option) => v === option.default,
    // present = on, ="false" = off; absent: the default
    read: (text, current, option) => ({ ok: true, value: text === null ? option.default : text !== 'false' }),
    write: (v, option) => (v === option.default ? null : v ? '' : 'false'),
    edited: (v) => v,
  },
  // a finite number above 0
  positive: {
    check: (v, _, option) => (v === undefined || (typeof v === 'number' && Number.isFinite(v) && v > 0) ? null : { key: option.labels.problem, params: {} }),
    fill: (v, _, option) => v ?? option.default,
    isDefault: (v, option) => v === option.default,
    // absent: the value stays as it is
    read(text, current, option) {
      if (text === null) return { ok: true, value: current };
      const parsed = parseNumber(text.trim());
      if (parsed.ok && parsed.value > 0) return { ok: true, value: parsed.value };
      const problem = { key: parsed.code === 'decimal_comma' ? 'probDecimalComma' : option.labels.problem, params: {} };
      return { ok: false, detail: { key: 'errStateField', params: { field: option.attribute, problem } } };
    },
    write: (v, option) => (v === option.default ? null : String(v)),
    edited: (v) => String(v),
  },
  // one boolean per key (the keys: the tokens, or the second sentence's in cross-attention)
  keyFlags: {
    check: (v, { keys }, option) => (v === undefined || (Array.isArray(v) && v.length === keys && v.every((b) => typeof b === 'boolean'))
      ? null : { key: option.labels.problem, params: { n: keys } }),
    fill: (v, { keys }) => [...(v ?? Array(keys).fill(false))],
    isDefault: (v) => !v.some(Boolean),
    // "true,false,1,0": anything else is an error naming its position, never read as false;
    // absent: the value stays as it is
    read(text, current) {
      if (text === null) return { ok: true, value: current };
      const value = [];
      for (const [i, v] of text.split(/[\s,]+/).filter(Boolean).entries()) {
        const word = v.toLowerCase();
        if (word !== '1' && word !== 'true' && word !== '0' && word !== 'false') {
          return { ok: false, detail: { key: 'errBooleanEntry', params: { index: i + 1, text: excerpt(v) } } };
        }
        value.push(word === '1' || word === 'true');
      }
      return { ok: true, value };
    },
    write: (v) => (v.some(Boolean) ? v.join(',') : null),
    edited: (v) => [...v],
  },
  // the values the reader fills in (exercise.js), as canonical text; '' none
  exercise: {
    check: (v, _, option) => (v === undefined || (typeof v === 'string' && parseExercise(v).ok)
      ? null : { key: option.labels.problem, params: { text: excerpt(typeof v === 'string' ? parseExercise(v).item : String(v)) } }),
    fill: (v, _, option) => (v === undefined ? option.default : parseExercise(v).text),
    isDefault: (v, option) => v === option.default,
    // absent: none
    read(text, current, option) {
      if (text === null) return { ok: true, value: option.default };
      const parsed = parseExercise(text);
      if (parsed.ok) return { ok: true, value: parsed.text };
      return { ok: false, detail: { key: 'errStateField', params: { field: option.attribute, problem: { key: option.labels.problem, params: { text: excerpt(parsed.item) } } } } };
    },
    write: (v, option) => (v === option.default ? null : v),
    edited: (v) => v,
  },
  // a shipped model's name (engine/models.js's index), '' for none: the state's matrices are then
  // that model's, derived from its tokens (engine/model-run.js); absent: the value stays as it is
  modelName: {
    check: (v, _, option) => (v === undefined || (typeof v === 'string' && (v === '' || MODEL_NAME.test(v))) ? null : { key: option.labels.problem, params: {} }),
    fill: (v, _, option) => v ?? option.default,
    isDefault: (v, option) => v === option.default,
    read(text, current, option) {
      if (text === null) return { ok: true, value: current };
      const name = text.trim();
      if (name === '' || MODEL_NAME.test(name)) return { ok: true, value: name };
      return { ok: false, detail: { key: 'errStateField', params: { field: option.attribute, problem: { key: option.labels.problem, params: {} } } } };
    },
    write: (v, option) => (v === option.default ? null : v),
    edited: (v) => v,
  },
  // a 0-based index (a model's layer), written and read from 1 as on screen (as head="…" is);
  // absent: the value stays as it is
  index: {
    check: (v) => (v === undefined || (Number.isInteger(v) && v >= 0 && v < MAX_INDEX) ? null
      : { key: 'probInteger', params: { min: 0, max: MAX_INDEX - 1 } }),
    fill: (v, _, option) => v ?? option.default,
    isDefault: (v, option) => v === option.default,
    read(text, current, option) {
      if (text === null) return { ok: true, value: current };
      const n = Number(text.trim());
      if (/^\s*\d+\s*$/.test(text) && n >= 1 && n <= MAX_INDEX) return { ok: true, value: n - 1 };
      return { ok: false, detail: { key: 'errStateField', params: { field: option.attribute, problem: { key: 'probInteger', params: { min: 1, max: MAX_INDEX } } } } };
    },
    write: (v, option) => (v === option.default ? null : String(v + 1)),
    edited: (v) => v,
  },
};

// A model's name: lower-case letters, digits and dashes (web/models/index.json's names); or an
// author's own model file: an http(s) URL or a path from the page (./my.json, ../m/my.json,
// /m/my.json) ending in .json, or file:NAME.json, one chosen from the reader's files (engine/models.js).
export const MODEL_NAME = /^(?:[a-z0-9][a-z0-9-]{0,39}|(?:https?:\/\/|\.{0,2}\/)[^\s"'<>\\]{1,300}\.json|file:[^/\\]{1,120}\.json)$/;
const MAX_INDEX = 16;

const BOOLEAN_JSX = "boolean | '' | 'true' | 'false'";

export const OPTIONS = [
  {
    key: 'scaleBySqrtDk', attribute: 'scale-by-sqrt-dk', type: 'boolean', default: true,
    labels: { control: 'scaleLabel', change: 'change_scale' }, compared: true, stage: 'scale',
    description: '"false" to leave out the division by √d_k · 设为 false 则不除以 √d_k',
  },
  {
    key: 'causal', attribute: 'causal', type: 'boolean', default: false,
    labels: { control: 'causalLabel', change: 'change_causal' }, compared: true, stage: 'mask',
    description: 'A causal mask (present = on; ="false" = off) · 因果掩码',
  },
  {
    key: 'keyPadding', attribute: 'key-padding', type: 'keyFlags', default: [],
    labels: { change: 'changePadding', problem: 'probBooleans' }, compared: true, stage: 'mask',
    description: 'One flag per key: "0,0,1" or "false,false,true" · 每个键一个填充标记',
  },
  {
    key: 'temperature', attribute: 'temperature', type: 'positive', default: 1,
    labels: { control: 'temperatureLabel', change: 'changeTemperature', problem: 'probTemperature' }, compared: true, stage: 'scale',
    description: 'A number above 0, with a decimal point · 大于 0 的数（用小数点）',
  },
  {
    key: 'positionalEncoding', attribute: 'positional-encoding', type: 'boolean', default: false, withModel: false,
    labels: { control: 'peLabel' }, compared: false, stage: 'pe',
    description: 'Sinusoidal positional encoding (present = on; ="false" = off) · 位置编码',
  },
  {
    // Press et al. 2022: head h of H adds −m_h·|i − j| to its scaled scores, m_h = 2^(−8(h+1)/H)
    key: 'alibi', attribute: 'alibi', type: 'boolean', default: false, withModel: false,
    labels: { control: 'alibiLabel', change: 'change_alibi' }, compared: true, stage: 'bias',
    description: 'ALiBi: a linear bias −m_h·|i − j| by distance added to the scores (present = on; ="false" = off) · ALiBi 线性位置偏置',
  },
  {
    // not the engine's: what the reader is asked to compute (the views hide it until filled in)
    key: 'exercise', attribute: 'exercise', type: 'exercise', default: '', engine: false,
    labels: { problem: 'probExercise' }, compared: false, stage: null,
    description: 'Values the reader fills in: a step\'s matrix (weights), a row (weights[1]) or cells (weights[0][0],output[2][1]), 0-based · 留给读者填写的数',
  },
  {
    // not the engine's: the guided walk asks a question before each step's result is shown
    // (views/guess.js); no control of the editor's (the walk's own button turns it on)
    key: 'guess', attribute: 'guess', type: 'boolean', default: false, engine: false,
    labels: {}, compared: false, stage: null,
    description: 'Guess first: one step at a time, a question before the step\'s result is shown (present = on) · 先猜再看：每一步先回答一个问题再看结果',
  },
  {
    // not the engine's compute() options (engine: false): the model the matrices come from
    // (engine/model-run.js), and which of its layers the step by step shows
    key: 'model', attribute: 'model', type: 'modelName', default: '', engine: false,
    labels: { control: 'modelLabel', problem: 'probModelName' }, compared: false, stage: 'model',
    description: 'A shipped model by name (learner-words, animal-street, induction), or your own model file by URL (https://…/my.json, ./my.json; same origin, docs/api.md): the sentence read by its tokenizer, its learned vectors and weights; no matrices needed · 使用本项目训练的模型或你自己的模型文件',
  },
  {
    key: 'layer', attribute: 'layer', type: 'index', default: 0, engine: false,
    labels: { control: 'layerLabel' }, compared: false, stage: 'model',
    description: "With model: the model's layer shown step by step, from 1 · 与 model 一起：逐步显示的层（从 1 起）",
  },
];

export const OPTION_KEYS = OPTIONS.map((o) => o.key);
// The options the engine is given (the others are the page's: exercise, guess, model, layer).
export const ENGINE_OPTIONS = OPTIONS.filter((o) => o.engine !== false);
const BY_KEY = new Map(OPTIONS.map((o) => [o.key, o]));
const BY_ATTRIBUTE = new Map(OPTIONS.map((o) => [o.attribute, o]));
export const optionByKey = (key) => BY_KEY.get(key);
export const optionByAttribute = (name) => BY_ATTRIBUTE.get(name);
const kind = (option) => TYPES[option.type];

// The options a shipped model's state sets (its positions are in X already: none added).
export const MODEL_OPTIONS = Object.fromEntries(OPTIONS.filter((o) => o.withModel !== undefined).map((o) => [o.key, o.withModel]));

// The on/off options (written as flags: the embed code, the Jupyter helper's True/False).
export const FLAG_OPTIONS = OPTIONS.filter((o) => o.type === 'boolean');
// Those the editor has a check box for.
export const SWITCHES = FLAG_OPTIONS.filter((o) => o.labels.control);

// The stages in the pipeline's order: the comparison names its changes in this order.
const STAGES = ['pe', 'bias', 'scale', 'mask'];
export const COMPARED = OPTIONS.filter((o) => o.compared)
  .sort((a, b) => STAGES.indexOf(a.stage) - STAGES.indexOf(b.stage)).map((o) => o.key);

// Every option at its default (keyFlags: no key padded).
export const OPTION_DEFAULTS = Object.fromEntries(OPTIONS.map((o) => [o.key, o.default]));

// The first problem of a state's options as [key, problem descriptor], or null. keys: the
// number of keys.
export function optionsProblem(input, keys) {
  for (const option of OPTIONS) {
    const problem = kind(option).check(input[option.key], { keys }, option);
    if (problem) return [option.key, problem];
  }
  return null;
}

// The options of a checked state, each value copied with its default put in.
export const filledOptions = (input, keys) => Object.fromEntries(OPTIONS.map((o) => [o.key, kind(o).fill(input[o.key], { keys }, o)]));

// Whether every engine option but those `except` is at its default.
export const atDefaults = (options, except = []) => ENGINE_OPTIONS.every((o) => except.includes(o.key) || isDefault(o.key, options[o.key]));

// Whether an option's value is its default (a link leaves it out; the engine is not told).
// (undefined, an option not given, is its default too)
export const isDefault = (key, value) => value === undefined || kind(BY_KEY.get(key)).isDefault(value, BY_KEY.get(key));

// An option's value in the editor's model (temperature: the text of its field).
export const editedValue = (key, value) => kind(BY_KEY.get(key)).edited(value);

// The element's attribute `name`, read: {ok, value} (text null: absent; current: the value
// now) or {ok: false, detail} (an i18n descriptor of what does not read).
export function readAttribute(name, text, current) {
  const option = BY_ATTRIBUTE.get(name);
  return kind(option).read(text, current, option);
}

// The attributes that show a state's options, as [name, value] (value '': a boolean
// attribute that is on); options at their default are left out.
export function optionAttributes(state) {
  const attrs = [];
  for (const option of OPTIONS) {
    const text = kind(option).write(state[option.key], option);
    if (text !== null) attrs.push([option.attribute, text]);
  }
  return attrs;
}

// The option attributes' declarations, for attributes.js's table: an on-by-default switch
// is written "false" to turn it off, an off-by-default one is a boolean attribute.
export const optionAttributeDeclarations = () => OPTIONS.map((o) => {
  if (o.type !== 'boolean') {
    const type = ['positive', 'index'].includes(o.type) ? 'number | string' : 'string';
    return { name: o.attribute, kind: 'data', type, ...(o.type === 'keyFlags' ? { form: 'list' } : {}), description: o.description };
  }
  return o.default
    ? { name: o.attribute, kind: 'data', type: "boolean | 'true' | 'false'", values: ['true', 'false'], form: 'boolean', description: o.description }
    : { name: o.attribute, kind: 'data', type: BOOLEAN_JSX, values: 'boolean', form: 'boolean', description: o.description };
});
