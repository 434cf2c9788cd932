// "What to look at": what each preset was built to show (presets.js), checked
// on the weights on screen now and said with their numbers, after every change;
// and what a temperature did to the weights. Nothing here is written ahead of
// the numbers: a claim the weights on screen do not bear out is not made.
// ctx: the steps' context (steps.js): lang, decimals, tokens, preset, options,
// result.weights and result.scaled (n × n rows: arrays or typed row views, rows.js), full.masked (n × n, or null).

import { translate } from '../ui/i18n.js';
import { formatNumber, formatCompact } from '../ui/format.js';

// A weight stands out in its row when it is at least this many times the
// next one (the ratio below which a row reads as one colour: steps.js NEAR_UNIFORM_RATIO).
export const STANDS_OUT = 1.5;

const keyOf = (masked, r) => (c) => !(masked && masked[r][c]);

// Row r's keys not masked, largest weight first: [{c, w}].
function ranked(weights, masked, r) {
  const open = keyOf(masked, r);
  return Array.from(weights[r], (w, c) => ({ c, w })).filter(({ c }) => open(c)).sort((a, b) => b.w - a.w);
}

// Row r gives its clear largest weight to the keys `to` (one or more copies):
// each of them at least STANDS_OUT times any other key not masked.
function standsOut(weights, masked, r, to) {
  const open = keyOf(masked, r);
  if (!to.every(open)) return false;
  const least = Math.min(...to.map((c) => weights[r][c]));
  const others = weights[r].filter((_, c) => open(c) && !to.includes(c));
  return others.length === 0 || least >= STANDS_OUT * Math.max(...others);
}

// The tutorial's numbers: every weight close to 1/3 (within STANDS_OUT of each other, none masked).
function evenHint(ctx, name) {
  const { weights } = ctx.result;
  const masked = ctx.full.masked;
  // the weights not masked (a masked one is 0 whatever the scores)
  const all = weights.flatMap((row, r) => Array.from(row, (w, c) => ({ r, c, w })).filter(({ c }) => keyOf(masked, r)(c)));
  const lo = Math.min(...all.map(({ w }) => w));
  const top = all.reduce((a, b) => (b.w > a.w ? b : a));
  const even = !(masked && masked.some((row) => row.some(Boolean))) && top.w < STANDS_OUT * lo;
  const f = (v) => formatNumber(v, ctx.decimals);
  return [even ? `presetNote_${name}` : `presetNote_${name}Spread`, {
    lo: f(lo), hi: f(top.w), query: ctx.tokens[top.r], key: (ctx.keyTokens || ctx.tokens)[top.c],
  }];
}

function animalHint(ctx) {
  const { tokens, decimals } = ctx;
  const { weights } = ctx.result;
  const masked = ctx.full.masked;
  const r = tokens.indexOf('it');
  const animal = tokens.indexOf('animal');
  const street = tokens.indexOf('street');
  const f = (v) => formatNumber(v, decimals);
  const order = ranked(weights, masked, r);
  if (order.length === 0) return null; // every key of "it" masked: the fully-masked note says so
  const [first, second = { c: first.c, w: 0 }] = order;
  if (first.c === animal && standsOut(weights, masked, r, [animal])) {
    return ['presetNote_animal', { animal: f(weights[r][animal]), street: f(weights[r][street]) }];
  }
  if (first.w < STANDS_OUT * second.w) {
    return ['presetNote_animalClose', { first: tokens[first.c], a: f(first.w), second: tokens[second.c], b: f(second.w) }];
  }
  return ['presetNote_animalOther', { first: tokens[first.c], a: f(first.w), animal: f(weights[r][animal]) }];
}

// Each row's keys the preset meant (previous: the token before, the first
// itself; same: every copy of its word), and how many rows clearly give them their largest weight.
function patternHint(ctx, name, meant) {
  const { tokens, decimals } = ctx;
  const { weights } = ctx.result;
  const masked = ctx.full.masked;
  const f = (v) => formatNumber(v, decimals);
  let held = 0;
  let least = Infinity; // the smallest weight on a meant key, over the rows that hold
  let most = 0; // the largest weight on any other key, over those rows
  tokens.forEach((_, r) => {
    const to = meant(r);
    if (!standsOut(weights, masked, r, to)) return;
    held += 1;
    least = Math.min(least, ...to.map((c) => weights[r][c]));
    weights[r].forEach((w, c) => {
      if (!to.includes(c) && keyOf(masked, r)(c)) most = Math.max(most, w);
    });
  });
  if (held === tokens.length) return [`presetNote_${name}`, { least: f(least), most: f(most) }];
  return [`presetNote_${name}Some`, { k: held, n: tokens.length }];
}

const HINTS = {
  tutorial: (ctx) => evenHint(ctx, 'tutorial'),
  english: (ctx) => evenHint(ctx, 'english'),
  animal: animalHint,
  previous: (ctx) => patternHint(ctx, 'previous', (r) => [Math.max(0, r - 1)]),
  same: (ctx) => patternHint(ctx, 'same', (r) => ctx.tokens.flatMap((token, c) => (token === ctx.tokens[r] ? [c] : []))),
};

// The preset's "What to look at", from the weights on screen; null off a preset.
export function presetHint(ctx) {
  if (!ctx.preset) return null;
  const said = HINTS[ctx.preset](ctx);
  return said ? translate(ctx.lang, said[0], said[1]) : null;
}

// Softmax of each row of `scaled` times `factor` (masked entries are −∞ and stay 0).
function softmaxRows(scaled, factor) {
  return scaled.map((row) => {
    const top = Math.max(...row);
    if (top === -Infinity) return row.map(() => 0);
    const e = row.map((s) => Math.exp((s - top) * factor));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / sum);
  });
}

// The mean over the rows with two keys or more not masked of a row's largest weight; null when there is none.
function meanLargest(weights, masked) {
  let sum = 0;
  let rows = 0;
  weights.forEach((row, r) => {
    let top = -Infinity;
    let open = 0;
    row.forEach((w, c) => {
      if (masked && masked[r][c]) return;
      open += 1;
      top = Math.max(top, w);
    });
    if (open < 2) return;
    sum += top;
    rows += 1;
  });
  return rows ? sum / rows : null;
}

// Up to this many weights the temperature's note works out the weights at T = 1
// (a softmax of every row again: at n = 4096, 16 M exponentials on each update).
const TEMPERATURE_NUMBERS_MAX = 1 << 16;

// T ≠ 1: sharper or flatter, with the weights' largest now and as they would be at T = 1
// (the same scaled scores times T: softmax(Scaled · T)).
export function temperatureNote(ctx) {
  const { temperature } = ctx.options;
  if (temperature === 1) return null;
  const masked = ctx.full.masked;
  const { weights, scaled } = ctx.result;
  const now = weights.length * weights[0].length <= TEMPERATURE_NUMBERS_MAX ? meanLargest(weights, masked) : null;
  const key = temperature < 1 ? 'temperatureSharper' : 'temperatureFlatter';
  const n = formatCompact(temperature, 8);
  if (now === null) return translate(ctx.lang, key, { n });
  const base = meanLargest(softmaxRows(scaled, temperature), masked);
  const f = (v) => formatNumber(v, ctx.decimals);
  return translate(ctx.lang, `${key}Now`, { n, now: f(now), base: f(base) });
}
