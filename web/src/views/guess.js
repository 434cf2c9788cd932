// "Guess first" (the `guess` option, options.js): in the walk, one step at a time, a step asks a
// question its own numbers answer before it shows them: its result waits as "?" (blanks.js,
// ctx.hidden) while its operands stay on screen. The reader picks an answer (a radio group) and
// reveals the step; the verdict says right or wrong with the real numbers. The questions:
//   project: whose query vector is longest, the largest ‖q_i‖;
//   scores:  in a row, which key gets the largest score;
//   scale:   what the scale step does to that row (the same key stays largest, its spread
//            shrinks or grows, nothing changes, or another key becomes the largest: ALiBi);
//   softmax: which key the row attends to most, the largest weight;
//   output:  whose output ends up farthest from its own value vector, the largest
//            ‖output_i − v_i‖ (how far attention moves a token from what it would keep alone;
//            not asked in cross-attention, where V's rows are the other sentence's tokens).
// A row question asks of the first query whose keys are not all masked. Matrices drawn as
// heatmaps (beyond TABLE_LIMIT) are not asked of. The guesses belong to one result (a new one,
// an edit, asks again), by step and head.

import { translate } from '../ui/i18n.js';
import { el } from '../ui/dom.js';
import { formatNumber } from '../ui/format.js';
import { TABLE_LIMIT } from '../ui/limits.js';
import { matrixCatalog } from './catalog.js';
import { headOutputName } from './work.js';

const guesses = new WeakMap(); // full result → Map(`${step}:${head}` → { choice, right })
const SCALE_CHOICES = ['shrinks', 'grows', 'same', 'other'];
const TIE = 1e-12;

function guessesOf(ctx) {
  if (!guesses.has(ctx.full)) guesses.set(ctx.full, new Map());
  return guesses.get(ctx.full);
}
const keyOf = (ctx, step) => `${step.id}:${ctx.head || 0}`;

// The first query row with a key not masked (0 without masks).
function askedRow(ctx) {
  const fully = ctx.full.fullyMasked;
  const r = fully ? Array.from(fully).findIndex((f) => !f) : 0;
  return r < 0 ? null : r;
}
const open = (ctx, r, c) => !(ctx.full.masked && ctx.full.masked[r][c]);
const argmaxSet = (values, usable = () => true) => {
  const best = Math.max(...values.filter((_, i) => usable(i)));
  return new Set(values.map((v, i) => (usable(i) && v >= best - TIE ? i : -1)).filter((i) => i >= 0));
};
const norm = (row) => Math.sqrt(row.reduce((sum, v) => sum + v * v, 0));

// One entry's question: { hides, prompt, choices: [label], right: Set of choice indices, answer, values }.
const QUESTIONS = {
  project(ctx, catalog, t, f) {
    const q = catalog.Q;
    const norms = q.data.map(norm);
    const right = argmaxSet(norms);
    const best = [...right][0];
    return {
      hides: ['Q', 'K', 'V'], prompt: t('guessProject'), choices: q.rowLabels, right,
      answer: t('guessProjectAnswer', { token: q.rowLabels[best], value: f(norms[best]) }),
      values: q.rowLabels.map((label, i) => `${label} ${f(norms[i])}`),
    };
  },
  scores(ctx, catalog, t, f) {
    const r = askedRow(ctx);
    if (r === null) return null;
    const s = catalog.Scores;
    const row = Array.from(s.data[r]);
    const right = argmaxSet(row);
    const best = [...right][0];
    return {
      hides: ['Scores'], prompt: t('guessScores', { token: s.rowLabels[r] }), choices: s.colLabels, right,
      answer: t('guessScoresAnswer', { key: s.colLabels[best], value: f(row[best]) }),
      values: s.colLabels.map((label, j) => `${label} ${f(row[j])}`),
    };
  },
  scale(ctx, catalog, t, f) {
    const r = askedRow(ctx);
    if (r === null) return null;
    const usable = (j) => open(ctx, r, j);
    const before = Array.from(catalog.Scores.data[r]);
    const after = Array.from(catalog.Scaled.data[r]);
    const spread = (row) => {
      const kept = row.filter((_, j) => usable(j));
      return Math.max(...kept) - Math.min(...kept);
    };
    const [top0, top1] = [argmaxSet(before, usable), argmaxSet(after, usable)];
    const [s0, s1] = [spread(before), spread(after)];
    let truth = 'other';
    if ([...top1].every((j) => top0.has(j)) && [...top0].every((j) => top1.has(j))) {
      if (Math.abs(s1 - s0) <= 1e-12 * Math.max(1, s0)) truth = 'same';
      else truth = s1 < s0 ? 'shrinks' : 'grows';
    }
    const keys = catalog.Scores.colLabels;
    const [b0, b1] = [[...top0][0], [...top1][0]];
    return {
      hides: ['Scaled'], prompt: t('guessScale', { token: catalog.Scores.rowLabels[r] }),
      choices: SCALE_CHOICES.map((id) => t(`guessScale_${id}`)), right: new Set([SCALE_CHOICES.indexOf(truth)]),
      answer: t('guessScaleAnswer', {
        key0: keys[b0], top0: f(before[b0]), spread0: f(s0), key1: keys[b1], top1: f(after[b1]), spread1: f(s1),
      }),
      values: [],
    };
  },
  softmax(ctx, catalog, t, f) {
    const r = askedRow(ctx);
    if (r === null) return null;
    const w = catalog.Weights;
    const row = Array.from(w.data[r]);
    const right = argmaxSet(row, (j) => open(ctx, r, j));
    const best = [...right][0];
    return {
      hides: ['Weights'], prompt: t('guessWeights', { token: w.rowLabels[r] }), choices: w.colLabels, right,
      answer: t('guessWeightsAnswer', { key: w.colLabels[best], value: f(row[best]) }),
      values: w.colLabels.map((label, j) => `${label} ${f(row[j])}`),
    };
  },
  output(ctx, catalog, t, f) {
    const name = headOutputName(ctx);
    const out = catalog[name];
    const v = catalog.V;
    // output_i − v_i: one token's own value vector, of the same width
    if (ctx.options.cross || !out || out.data.length !== v.data.length || out.data[0].length !== v.data[0].length) return null;
    const moved = out.data.map((row, i) => norm(Array.from(row, (x, c) => x - v.data[i][c])));
    const right = argmaxSet(moved);
    const best = [...right][0];
    return {
      hides: [name], prompt: t('guessOutput', { name }), choices: out.rowLabels, right,
      answer: t('guessOutputAnswer', { token: out.rowLabels[best], value: f(moved[best]), name }),
      values: out.rowLabels.map((label, i) => `${label} ${f(moved[i])}`),
    };
  },
};

// The question `step` asks on ctx, or null: none for this step, not in the walk, or a heatmap.
export function questionOf(ctx, step) {
  const make = QUESTIONS[step.id];
  if (!ctx.guessWalk || !make || !ctx.full) return null;
  const catalog = matrixCatalog(ctx);
  const t = (key, params) => translate(ctx.lang, key, params);
  const f = (v) => formatNumber(v, ctx.decimals);
  const asked = make(ctx, catalog, t, f);
  if (!asked || asked.hides.some((name) => !catalog[name] || catalog[name].data.length > TABLE_LIMIT || catalog[name].data[0].length > TABLE_LIMIT)) return null;
  return asked;
}

// ctx for `step` while its guess is still to make: its result hidden (blanks.js ctx.hidden).
export function guessContext(ctx, step) {
  if (!ctx.guessWalk || !QUESTIONS[step.id] || guessesOf(ctx).has(keyOf(ctx, step))) return ctx;
  const asked = questionOf(ctx, step);
  return asked ? { ...ctx, hidden: asked.hides } : ctx;
}

let panels = 0;

// The question under a step's matrices, kept across renders; after the guess, its verdict.
export function createGuessPanel() {
  const id = ++panels;
  const section = el('section', 'guess');
  section.hidden = true;
  const title = el('h4', 'guess-title');
  title.id = `guess-title-${id}`;
  section.setAttribute('aria-labelledby', title.id);
  const form = el('form', 'guess-form');
  const fieldset = el('fieldset', 'guess-choices');
  const legend = el('legend', 'guess-prompt');
  const options = el('div', 'guess-options');
  fieldset.append(legend, options);
  const reveal = el('button', 'guess-reveal');
  reveal.type = 'submit';
  const result = el('div', 'guess-result');
  result.setAttribute('role', 'status');
  result.tabIndex = -1;
  form.append(fieldset, reveal);
  section.append(title, form, result);
  let current = null; // { ctx, step, asked }
  let shownKey = '';

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const { ctx, step, asked } = current;
    const chosen = options.querySelector('input:checked');
    if (!chosen) {
      result.replaceChildren(el('p', 'guess-verdict guess-refused', translate(ctx.lang, 'guessChooseFirst')));
      return;
    }
    const choice = Number(chosen.value);
    guessesOf(ctx).set(keyOf(ctx, step), { choice, right: asked.right.has(choice) });
    ctx.onExercise?.(); // drawn again: the step's numbers shown (the element's render)
    result.focus();
  });

  return {
    element: section,
    update(ctx, step) {
      const asked = questionOf(ctx, step);
      section.hidden = !asked;
      if (!asked) return;
      current = { ctx, step, asked };
      const t = (key, params) => translate(ctx.lang, key, params);
      const made = guessesOf(ctx).get(keyOf(ctx, step));
      title.textContent = t('guessTitle');
      legend.textContent = asked.prompt;
      reveal.textContent = t('guessReveal');
      reveal.hidden = Boolean(made);
      const key = JSON.stringify([ctx.lang, asked.prompt, asked.choices]);
      if (key !== shownKey) {
        shownKey = key;
        options.replaceChildren(...asked.choices.map((label, i) => {
          const item = el('label', 'guess-option');
          const input = el('input');
          Object.assign(input, { type: 'radio', name: `guess-${id}`, value: String(i) });
          item.append(input, el('span', '', label));
          return item;
        }));
      }
      options.querySelectorAll('input').forEach((input, i) => {
        input.disabled = Boolean(made);
        if (made) input.checked = i === made.choice;
        const label = input.parentNode;
        label.classList.toggle('guess-answer', Boolean(made) && asked.right.has(i));
        label.classList.toggle('guess-missed', Boolean(made) && i === made.choice && !made.right);
      });
      if (!made) {
        if (result.querySelector('.guess-refused') === null) result.replaceChildren();
        return;
      }
      const choice = asked.choices[made.choice];
      const verdict = el('p', `guess-verdict ${made.right ? 'guess-right' : 'guess-wrong'}`,
        `${t(made.right ? 'guessRight' : 'guessWrong', { choice })}${ctx.lang === 'zh' ? '' : ' '}${asked.answer}`);
      result.replaceChildren(verdict, ...(asked.values.length ? [el('p', 'guess-values', asked.values.join(' · '))] : []));
    },
  };
}
