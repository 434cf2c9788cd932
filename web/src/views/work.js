// "Show the work": the arithmetic behind one cell of a result, with the real
// numbers, and the operand cells that feed it (to highlight).
// ctx = {lang, decimals, tokens, keyTokens, inputs: {x, c, wq, wk, wv, wo, bq?, bk?, bv?, bo?},
// result (the shown head's {q, k, v, scores, scaled, weights, output}), full
// (the whole normalised result: heads, concat, output, masked, pe, ...),
// options, head}. Only lang, decimals, tokens, inputs and result are needed
// for plain single-head attention.
// Returns {lines: [text], marks: [{m, r?, c?}]}: a mark with only r is a
// whole row, with only c a whole column, with both a single cell.

import { translate } from '../ui/i18n.js';
import { formatCompact } from '../ui/format.js';
import { peTerms, maskReason } from '../engine/variant.js';
import { dimLabel, headName } from '../ui/labels.js';
import { OPTION_DEFAULTS } from '../state/options.js';

const FIXED = ['Q', 'K', 'V', 'Scores', 'Bias', 'Scaled', 'Weights', 'Output', 'Concat', 'PE', 'X+PE', 'PE_C', 'C+PE_C'];
export const explainable = (name) => FIXED.includes(name) || /^head_\d+$/.test(name);


const DEFAULT_OPTIONS = { ...OPTION_DEFAULTS, cross: false, usesWo: false, heads: 1 };

// Long sums keep their first and last terms: d and n go up to 64 and 4096.
// term(i) is term i's text, made only for the terms shown (at n = 4096 writing
// every term of an output cell's sum cost the arrival at its step ~20 ms).
const MAX_TERMS = 12;
function joinTerms(count, term, separator) {
  const shown = count <= MAX_TERMS ? [...Array(count).keys()] : [0, 1, 2, 3, 4, null, count - 2, count - 1];
  return shown.map((i) => (i === null ? `… (${count})` : term(i))).join(separator);
}

function number(value, decimals) {
  const text = formatCompact(value, decimals);
  return text.startsWith('-') ? `(${text})` : text;
}

function dotProduct(a, b, decimals) {
  return joinTerms(a.length, (i) => `${number(a[i], decimals)}×${number(b[i], decimals)}`, ' + ');
}

const column = (matrix, c) => matrix.map((row) => row[c]);

// What Q and what K, V are projected from: X, X+PE, C or C+PE_C.
export function sources(ctx) {
  const options = { ...DEFAULT_OPTIONS, ...ctx.options };
  const full = ctx.full || {};
  const q = options.positionalEncoding ? { name: 'X+PE', data: full.xWithPe } : { name: 'X', data: ctx.inputs.x };
  let kv = q;
  if (options.cross) kv = options.positionalEncoding ? { name: 'C+PE_C', data: full.contextWithPe } : { name: 'C', data: ctx.inputs.c };
  return { q, kv };
}

// The shown head's output is the page's Output only for one head without W_O.
export const headOutputName = (ctx) => {
  const options = { ...DEFAULT_OPTIONS, ...ctx.options };
  return options.usesWo ? headName(ctx.head || 0) : 'Output';
};

const PROJECTIONS = {
  Q: { key: 'q', weights: 'wq', weightsName: 'W_Q', bias: 'bq', biasName: 'b_Q', source: 'q' },
  K: { key: 'k', weights: 'wk', weightsName: 'W_K', bias: 'bk', biasName: 'b_K', source: 'kv' },
  V: { key: 'v', weights: 'wv', weightsName: 'W_V', bias: 'bv', biasName: 'b_V', source: 'kv' },
};

// " + b_Q[d1]" and its line, or nothing, for the bias `bias` (absent: none) at column c.
function biasTerm(bias, biasName, c, decimals, t, f) {
  if (!bias) return { sum: '', lines: [], marks: [] };
  return {
    sum: ` + ${number(bias[c], decimals)}`,
    lines: [t('workBiasTerm', { bias: biasName, col: dimLabel(c), value: f(bias[c]) })],
    marks: [{ m: biasName, c }],
  };
}

// The arithmetic of a cell, by the kind of matrix it is in (kindOf): each is given the
// cell (name, r, c) and what explainCell writes it with, and returns {lines, marks}.
const EXPLAIN = {
  projection({ name, r, c, ctx, tokens, keyTokens, inputs, result, decimals, t, f }) {
    const { key, weights, weightsName, bias, biasName, source } = PROJECTIONS[name];
    const src = sources(ctx)[source];
    const rowTokens = source === 'q' ? tokens : keyTokens;
    const value = result[key][r][c];
    const b = biasTerm(inputs[bias], biasName, c, decimals, t, f); // Q = X·W_Q + b_Q
    return {
      lines: [
        `${name}[${rowTokens[r]}, ${dimLabel(c)}] = ${dotProduct(src.data[r], column(inputs[weights], c), decimals)}${b.sum} = ${f(value)}`,
        t('workProjection', { token: rowTokens[r], col: dimLabel(c), weights: weightsName, name: src.name }),
        ...b.lines,
      ],
      marks: [{ m: src.name, r }, { m: weightsName, c }, ...b.marks],
    };
  },
  Scores({ r, c, tokens, keyTokens, result, decimals, t, f }) {
    return {
      lines: [
        `Scores[${tokens[r]}, ${keyTokens[c]}] = ${dotProduct(result.q[r], result.k[c], decimals)} = ${f(result.scores[r][c])}`,
        t('workScores', { query: tokens[r], key: keyTokens[c] }),
      ],
      marks: [{ m: 'Q', r }, { m: 'K', r: c }],
    };
  },
  // ALiBi: −m·|i − j|, m = 2^(−8h/H) for head h (from 1) of H
  Bias({ r, c, ctx, tokens, keyTokens, result, options, decimals, t, f }) {
    const m = 2 ** ((-8 * ((ctx.head || 0) + 1)) / options.heads);
    return {
      lines: [
        `Bias[${tokens[r]}, ${keyTokens[c]}] = −${number(m, decimals)} × |${r} − ${c}| = ${f(result.bias[r][c])}`,
        t('workBias', { i: r, j: c, d: Math.abs(r - c), m: f(m) }),
      ],
      marks: [],
    };
  },
  Scaled({ r, c, tokens, keyTokens, result, options, decimals, t, f, reason, maskLine }) {
    if (reason) {
      return {
        lines: [`Scaled[${tokens[r]}, ${keyTokens[c]}] = −∞`, maskLine(), t('workMinusInfinity')],
        marks: [{ m: 'Scores', r, c }],
      };
    }
    const dk = result.q[0].length;
    const s = number(result.scores[r][c], decimals);
    const temp = options.temperature === 1 ? [] : [number(options.temperature, decimals)];
    let symbolic = [s, ...(options.scaleBySqrtDk ? [`√${dk}`] : []), ...temp].join(' / ');
    let numeric = [s, ...(options.scaleBySqrtDk ? [f(Math.sqrt(dk))] : []), ...temp].join(' / ');
    if (options.alibi) { // (s / √d_k + b) / T: the bias joins before the temperature
      const b = number(result.bias[r][c], decimals);
      const sum = (root) => `${[s, ...(options.scaleBySqrtDk ? [root] : [])].join(' / ')} + ${b}`;
      [symbolic, numeric] = [`√${dk}`, f(Math.sqrt(dk))].map((root) => (temp.length ? `(${sum(root)}) / ${temp[0]}` : sum(root)));
    }
    const steps = symbolic === numeric ? symbolic : `${symbolic} = ${numeric}`;
    let explanation = t('workScaled', { dk });
    if (!options.scaleBySqrtDk) explanation = t(temp.length ? 'workUnscaledTemperature' : 'workUnscaled', { n: f(options.temperature) });
    else if (temp.length) explanation = t('workScaledTemperature', { dk, n: f(options.temperature) });
    const bias = options.alibi ? [t('workScaledBias', { query: tokens[r], key: keyTokens[c], b: f(result.bias[r][c]) })] : [];
    return {
      lines: [`Scaled[${tokens[r]}, ${keyTokens[c]}] = ${steps} = ${f(result.scaled[r][c])}`, explanation, ...bias],
      marks: [{ m: 'Scores', r, c }, ...(options.alibi ? [{ m: 'Bias', r, c }] : [])],
    };
  },
  Weights({ r, c, tokens, keyTokens, result, full, t, f, reason, maskLine }) {
    const row = result.scaled[r];
    const head = `Weights[${tokens[r]}, ${keyTokens[c]}]`;
    if (full.fullyMasked && full.fullyMasked[r]) {
      return { lines: [`${head} = 0`, maskLine(), t('workFullyMasked', { query: tokens[r] })], marks: [{ m: 'Scaled', r }] };
    }
    const max = Math.max(...row);
    const argmax = row.indexOf(max);
    const exps = Array.from(row, (s) => Math.exp(s - max));
    const total = exps.reduce((a, b) => a + b, 0);
    const m = f(max);
    const expTerm = (s) => (s === -Infinity ? 'exp(−∞)' : `exp(${f(s)} − ${m})`);
    const lines = [
      `${head} = exp(s − max) / Σ exp(s − max)`,
      t('workMax', { token: tokens[r], max: m, argmax: keyTokens[argmax] }),
      `= ${expTerm(row[c])} / (${joinTerms(row.length, (i) => expTerm(row[i]), ' + ')})`,
      `= ${f(exps[c])} / (${joinTerms(exps.length, (i) => f(exps[i]), ' + ')})`,
      `= ${f(exps[c])} / ${f(total)} = ${f(result.weights[r][c])}`,
    ];
    if (reason) lines.push(maskLine());
    lines.push(t(reason ? 'workWeightMasked' : 'workWeights', { query: tokens[r], key: keyTokens[c] }));
    return { lines, marks: [{ m: 'Scaled', r }, { m: 'Scaled', r, c: argmax, kind: 'max' }] };
  },
  headOutput({ name, r, c, tokens, result, full, decimals, t, f }) {
  const headMatch = /^head_(\d+)$/.exec(name);
    const h = headMatch ? Number(headMatch[1]) - 1 : 0;
    const own = headMatch && full.heads ? full.heads[h] : result;
    return {
      lines: [
        `${name}[${tokens[r]}, ${dimLabel(c)}] = ${dotProduct(own.weights[r], column(own.v, c), decimals)} = ${f(own.output[r][c])}`,
        t('workOutput', { token: tokens[r], col: dimLabel(c) }),
      ],
      marks: [{ m: 'Weights', r }, { m: 'V', c }],
    };
  },
  Output({ r, c, tokens, inputs, full, options, decimals, t, f }) {
    const concatName = options.heads > 1 ? 'Concat' : headName(0);
    const concatRow = options.heads > 1 ? full.concat[r] : full.heads[0].output[r];
    const b = biasTerm(inputs.bo, 'b_O', c, decimals, t, f); // Output = Concat·W_O + b_O
    return {
      lines: [
        `Output[${tokens[r]}, ${dimLabel(c)}] = ${dotProduct(concatRow, column(inputs.wo, c), decimals)}${b.sum} = ${f(full.output[r][c])}`,
        t('workWo', { token: tokens[r], col: dimLabel(c), name: concatName }),
        ...b.lines,
      ],
      marks: [{ m: concatName, r }, { m: 'W_O', c }, ...b.marks],
    };
  },
  Concat({ r, c, tokens, full, t, f }) {
    const dv = full.heads[0].output[0].length;
    const h = Math.floor(c / dv);
    const inner = c % dv;
    return {
      lines: [
        `Concat[${tokens[r]}, ${dimLabel(c)}] = ${headName(h)}[${tokens[r]}, ${dimLabel(inner)}] = ${f(full.concat[r][c])}`,
        t('workConcat', { n: h + 1, col: dimLabel(inner) }),
      ],
      marks: [{ m: headName(h), r, c: inner }],
    };
  },
  PE({ name, r, c, tokens, keyTokens, full, t, f }) {
    const data = name === 'PE' ? full.pe : full.contextPe;
    const rowTokens = name === 'PE' ? tokens : keyTokens;
    const d = data[0].length;
    const { fn, twoI, denominator, angle } = peTerms(r, c, d);
    return {
      lines: [
        `${name}[${rowTokens[r]}, ${dimLabel(c)}] = ${fn}(${r} / 10000^(${twoI}/${d})) = ${fn}(${r} / ${f(denominator)}) = ${fn}(${f(angle)}) = ${f(data[r][c])}`,
        t('workPe', { row: r, col: dimLabel(c), fn, n: twoI }),
      ],
      marks: [],
    };
  },
  addPe({ name, r, c, tokens, keyTokens, inputs, full, decimals, t, f }) {
    const [base, pe, sum, raw, rowTokens] = name === 'X+PE'
      ? ['X', 'PE', full.xWithPe, inputs.x, tokens]
      : ['C', 'PE_C', full.contextWithPe, inputs.c, keyTokens];
    const peData = name === 'X+PE' ? full.pe : full.contextPe;
    return {
      lines: [
        `${name}[${rowTokens[r]}, ${dimLabel(c)}] = ${number(raw[r][c], decimals)} + ${number(peData[r][c], decimals)} = ${f(sum[r][c])}`,
        t('workAddPe', { name: base, pe }),
      ],
      marks: [{ m: base, r, c }, { m: pe, r, c }],
    };
  },
};

// The kind of matrix a name is: a head's output (the page's Output only for one head
// without W_O), else its own, the projections and the two PEs alike.
const KINDS = { Q: 'projection', K: 'projection', V: 'projection', PE_C: 'PE', 'X+PE': 'addPe', 'C+PE_C': 'addPe' };
function kindOf(name, options) {
  if (/^head_\d+$/.test(name) || (name === 'Output' && !options.usesWo)) return 'headOutput';
  return KINDS[name] || name;
}

export function explainCell(name, r, c, ctx) {
  const { lang, decimals, tokens, inputs, result } = ctx;
  const keyTokens = ctx.keyTokens || tokens;
  const options = { ...DEFAULT_OPTIONS, ...ctx.options };
  const full = ctx.full || {};
  const masked = full.masked || null;
  const t = (key, params) => translate(lang, key, params);
  const f = (v) => formatCompact(v, decimals);
  const kind = kindOf(name, options);
  if (!Object.hasOwn(EXPLAIN, kind)) throw new Error(`No arithmetic for ${name}`);
  // why a query × key cell is masked (r, c of another matrix may lie outside the mask)
  const square = kind === 'Scaled' || kind === 'Weights';
  const reason = square && masked && masked[r][c] ? maskReason(r, c, options) : null;
  const maskLine = () => t(`workMask_${reason}`, { query: tokens[r], key: keyTokens[c] });
  return EXPLAIN[kind]({ name, r, c, ctx, tokens, keyTokens, inputs, result, full, options, decimals, t, f, reason, maskLine });
}
