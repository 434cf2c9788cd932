// Every matrix of the head in view, declared once: the steps show them, the
// export panel lists them (in this order) and the import targets are its inputs.
// ctx: the steps' context (steps.js): lang, tokens, keyTokens, inputs, result,
// full, options, head. An entry: {data, label, rowLabels, colLabels, corner?,
// kind ('signed' | 'weights'), masked? (hatched on screen), keyMask? (a query ×
// key square's masked cells, greyed in its export from the scores on), rowSums?}.

import { translate } from '../ui/i18n.js';
import { dimLabels, headName } from '../ui/labels.js';
import { whenRead } from '../engine/rows.js';
import { blanksOf } from './blanks.js';

// The inputs a file can replace (tools.js importTargets), by the state's field:
// perHead: one in each head.
export const INPUT_MATRICES = [
  { name: 'X', id: 'x' },
  { name: 'W_Q', id: 'wq', perHead: true },
  { name: 'W_K', id: 'wk', perHead: true },
  { name: 'W_V', id: 'wv', perHead: true },
  { name: 'W_O', id: 'wo' },
  { name: 'C', id: 'c' },
];

export function matrixCatalog(ctx) {
  const { tokens, inputs, result, full, lang, options } = ctx;
  const keyTokens = ctx.keyTokens || tokens;
  const t = (key, params) => translate(lang, key, params);
  const headLabel = options.heads > 1 ? t('headN', { n: ctx.head + 1 }) : '';
  const withHead = (label) => [label, headLabel].filter(Boolean).join(' · ');
  // (data[0].length: a typed row's map would make numbers of the labels)
  const rows = (labels) => (data, label) => ({ data, label, rowLabels: labels, colLabels: dimLabels(data[0].length), kind: 'signed' });
  const byToken = rows(tokens);
  const byKey = rows(keyTokens);
  const byDim = (data, label = '') => ({ data, label, rowLabels: dimLabels(data.length), colLabels: dimLabels(data[0].length), kind: 'signed' });
  const square = (data, kind = 'signed', masked = null) => ({
    data, label: headLabel, rowLabels: tokens, colLabels: keyTokens, corner: t('queryKeyCorner'), kind, masked, keyMask: full.masked,
  });
  // each entry made when first read: a step or an export reads a few (at n = 4096
  // making the row views of every matrix of a head cost a head switch ~10 ms; rows.js)
  const catalog = {};
  // an exercise's cells still to fill in: blanks (blanks.js), drawn "?" by the views
  const entry = (name, make) => whenRead(catalog, name, () => {
    const made = make();
    const blanks = blanksOf(ctx, name);
    return blanks ? { ...made, blanks } : made;
  });
  entry('X', () => byToken(inputs.x, t('labelX')));
  if (options.cross) entry('C', () => byKey(inputs.c, t('labelC')));
  if (options.alibi) entry('Bias', () => square(result.bias));
  if (options.positionalEncoding) {
    entry('PE', () => byToken(full.pe, t('labelPe')));
    entry('X+PE', () => byToken(full.xWithPe, t('labelXPe')));
    if (options.cross) {
      entry('PE_C', () => byKey(full.contextPe, t('labelPe')));
      entry('C+PE_C', () => byKey(full.contextWithPe, t('labelXPe')));
    }
  }
  entry('W_Q', () => byDim(inputs.wq, headLabel));
  entry('W_K', () => byDim(inputs.wk, headLabel));
  entry('W_V', () => byDim(inputs.wv, headLabel));
  // a head's biases (and b_O) where given: one row, added to every row of Q, K, V (the output)
  const bias = (values, label) => ({ data: [values], label, rowLabels: ['b'], colLabels: dimLabels(values.length), kind: 'signed' });
  for (const [name, id] of [['b_Q', 'bq'], ['b_K', 'bk'], ['b_V', 'bv']]) if (inputs[id]) entry(name, () => bias(inputs[id], headLabel));
  entry('Q', () => byToken(result.q, withHead(t('labelQ'))));
  entry('K', () => byKey(result.k, withHead(t('labelK'))));
  entry('V', () => byKey(result.v, withHead(t('labelV'))));
  entry('Scores', () => square(result.scores));
  entry('Scaled', () => square(result.scaled, 'signed', full.masked));
  entry('Weights', () => ({ ...square(result.weights, 'weights', full.masked), rowSums: true }));
  if (options.usesWo || options.heads > 1) {
    full.heads.forEach((head, h) => entry(headName(h), () => byToken(head.output, t('headN', { n: h + 1 }))));
  }
  if (options.heads > 1) entry('Concat', () => byToken(full.concat, t('labelConcat')));
  if (options.usesWo) entry('W_O', () => byDim(inputs.wo));
  if (options.usesWo && inputs.bo) entry('b_O', () => bias(inputs.bo, ''));
  entry('Output', () => byToken(full.output, options.usesWo ? t('labelOutputWo') : ''));
  return catalog;
}
