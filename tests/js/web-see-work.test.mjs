// "Show the work", term by term: every cell of every matrix that has arithmetic
// (Q, K, V, Scores, Scaled, Weights, Output, head_h, Concat, Output through W_O,
// PE, X+PE, C+PE_C) is explained with numpy's values (tests/make_see_fixtures.py
// → tests/fixtures/see_cases.json), and each number the text prints is
// compared with the numpy value it stands for, at its position in the sum.
// The sums of the long case have 14 distinct terms, more than are written out:
// each term shown must be the one of its index (the first ones, then the last
// ones after the elision, which names how many there are).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { explainCell } from '../../web/src/views/work.js';

const CASES = JSON.parse(readFileSync(new URL('../fixtures/see_cases.json', import.meta.url), 'utf8'));
const DECIMALS = 4;
const TOLERANCE = 0.5 * 10 ** -DECIMALS + 1e-12; // a number printed at DECIMALS places
const inf = (m) => m && m.map((row) => row.map((v) => (v === null ? -Infinity : v)));

// The ctx a step gives explainCell (steps.js), from numpy's results only.
function contextOf(name, head = 0, lang = 'en') {
  const k = CASES[name];
  const heads = k.result.heads.map((h) => ({ ...h, scaled: inf(h.scaled) }));
  return {
    lang, decimals: DECIMALS, tokens: k.tokens, keyTokens: k.keyTokens, head,
    inputs: { x: k.x, c: k.c, ...k.heads[head], wo: k.wo },
    result: heads[head],
    full: { ...k.result, heads },
    options: k.options,
  };
}

// A printed number: "(−0.25)" or "(-0.25)" bracketed when negative, "−∞".
function num(text) {
  const t = text.trim().replace(/^\((.*)\)$/, '$1').replace('−', '-');
  if (t === '-∞') return -Infinity;
  assert.match(t, /^-?\d+(\.\d+)?$/, `a number: “${text}”`);
  return Number(t);
}

function close(actual, expected, label) {
  if (expected === -Infinity || actual === -Infinity) assert.equal(actual, expected, label);
  else assert.ok(Math.abs(actual - expected) <= TOLERANCE, `${label}: printed ${actual}, numpy ${expected}`);
}

// The terms of a printed sum "a + b + … (N) + y + z": [{index, text}] with their
// index in the full sum, and the count the elision names (or the count shown).
function terms(text) {
  const parts = text.split(' + ');
  const gap = parts.findIndex((p) => /^… \(\d+\)$/.test(p));
  if (gap < 0) return { count: parts.length, shown: parts.map((p, index) => ({ index, text: p })) };
  const count = Number(/\d+/.exec(parts[gap])[0]);
  const after = parts.length - gap - 1;
  assert.ok(gap >= 1 && after >= 1 && gap + after < count, `an elision keeps some first and some last terms: ${text}`);
  return {
    count,
    shown: [...parts.slice(0, gap).map((p, index) => ({ index, text: p })), ...parts.slice(gap + 1).map((p, i) => ({ index: count - after + i, text: p }))],
  };
}

// "lhs = a×b + … = value": checks each shown a×b against a(i), b(i) and the value.
function checkDot(line, { head, count, a, b, value, label }) {
  assert.ok(line.startsWith(`${head} = `), `${label}: “${line}” starts with “${head} = ”`);
  const body = line.slice(head.length + 3);
  const cut = body.lastIndexOf(' = ');
  const sum = terms(body.slice(0, cut));
  assert.equal(sum.count, count, `${label}: the number of terms`);
  if (count <= 12) assert.equal(sum.shown.length, count, `${label}: a short sum is written out whole`);
  for (const { index, text } of sum.shown) {
    const [x, y] = text.split('×');
    close(num(x), a(index), `${label} term ${index + 1}, left factor`);
    close(num(y), b(index), `${label} term ${index + 1}, right factor`);
  }
  close(num(body.slice(cut + 3)), value, `${label}: the result`);
  return sum;
}

const dim = (c) => `d${c + 1}`;
const each = (m, f) => m.forEach((row, r) => row.forEach((_, c) => f(r, c)));

test('Q, K, V cells: each term of X·W (C·W for K and V across) in its place, long sums elided with the right terms', () => {
  for (const name of ['long', 'masked', 'cross']) {
    const ctx = contextOf(name);
    const k = CASES[name];
    const kv = k.c || k.x;
    for (const [m, key, src, w, rowTokens] of [['Q', 'q', k.x, 'wq', k.tokens], ['K', 'k', kv, 'wk', k.keyTokens], ['V', 'v', kv, 'wv', k.keyTokens]]) {
      each(ctx.result[key], (r, c) => {
        const { lines } = explainCell(m, r, c, ctx);
        const sum = checkDot(lines[0], {
          head: `${m}[${rowTokens[r]}, ${dim(c)}]`, count: src[0].length, label: `${name} ${m}[${r}][${c}]`,
          a: (i) => src[r][i], b: (i) => k.heads[0][w][i][c], value: ctx.result[key][r][c],
        });
        if (name === 'long') assert.ok(sum.shown.length < sum.count, 'the long sums are elided');
      });
    }
  }
});

test('a score cell: Q row · K row, term by term', () => {
  for (const name of ['long', 'masked', 'cross']) {
    const ctx = contextOf(name);
    const { q, k, scores } = ctx.result;
    each(scores, (r, c) => checkDot(explainCell('Scores', r, c, ctx).lines[0], {
      head: `Scores[${ctx.tokens[r]}, ${ctx.keyTokens[c]}]`, count: q[0].length, label: `${name} Scores[${r}][${c}]`,
      a: (i) => q[r][i], b: (i) => k[c][i], value: scores[r][c],
    }));
  }
});

test('a scaled cell: the score, √d_k and T it is divided by (each when it applies), and the quotient; a masked one is −∞', () => {
  for (const name of ['long', 'masked', 'cross', 'unscaled', 'unscaled1']) {
    const ctx = contextOf(name);
    const { scores, scaled, q } = ctx.result;
    const { temperature, scaleBySqrtDk: scale } = ctx.options;
    const dk = q[0].length;
    each(scaled, (r, c) => {
      const { lines } = explainCell('Scaled', r, c, ctx);
      const line = lines[0];
      const head = `Scaled[${ctx.tokens[r]}, ${ctx.keyTokens[c]}] = `;
      assert.ok(line.startsWith(head), line);
      if (ctx.full.masked[r][c]) {
        assert.equal(line, `${head}−∞`);
        return;
      }
      // "s / √dk [/ T] = s / 1.4142 [/ T] = value": the numeric form is the one before the result
      const forms = line.slice(head.length).split(' = ');
      const numeric = forms[forms.length - 2].split(' / ').map(num);
      const expected = [scores[r][c], ...(scale ? [Math.sqrt(dk)] : []), ...(temperature === 1 ? [] : [temperature])];
      assert.equal(numeric.length, expected.length, line);
      numeric.forEach((v, i) => close(v, expected[i], `${name} Scaled[${r}][${c}] divisor ${i}`));
      if (scale) assert.match(forms[0], new RegExp(`/ √${dk}( / |$)`), line);
      else assert.doesNotMatch(line, /√/, `${name}: no √d_k when not scaled`);
      if (temperature !== 1) assert.match(forms[0], new RegExp(` / ${temperature}$`), line);
      close(num(forms[forms.length - 1]), scaled[r][c], `${name} Scaled[${r}][${c}]`);
      // the words name what it is divided by
      if (scale) assert.ok(lines[1].includes(String(dk)), `${name}: “${lines[1]}” names d_k = ${dk}`);
      if (temperature !== 1) assert.ok(lines[1].includes(`T = ${temperature}`), `${name}: “${lines[1]}” names T = ${temperature}`);
    });
  }
});

test('ALiBi: a bias cell is −m × |i − j| with numpy\'s m = 2^(−8h/H) and value; a scaled cell adds it before T', () => {
  const k = CASES.alibi;
  for (let head = 0; head < k.options.heads; head++) {
    const ctx = contextOf('alibi', head);
    const { scores, scaled, bias, q } = ctx.result;
    const m = 2 ** ((-8 * (head + 1)) / k.options.heads); // the paper's slope of head h (from 1) of H
    each(bias, (r, c) => {
      const [line, words] = explainCell('Bias', r, c, ctx).lines;
      const label = `alibi head ${head} Bias[${r}][${c}]`;
      const match = new RegExp(`^Bias\\[${ctx.tokens[r]}, ${ctx.keyTokens[c]}\\] = −(.+) × \\|${r} − ${c}\\| = (.+)$`).exec(line);
      assert.ok(match, `${label}: “${line}”`);
      close(num(match[1]), m, `${label} m`);
      close(num(match[2]), bias[r][c], `${label} value`);
      assert.ok(words.includes(`${Math.abs(r - c)} apart`), `${label}: “${words}” says how far`);
      const sum = explainCell('Scaled', r, c, ctx).lines;
      if (ctx.full.masked[r][c]) return assert.match(sum[0], /= −∞$/);
      // "(s / √dk + b) / T = (s / 1.4142 + b) / 0.5 = value"
      const forms = sum[0].split(' = ');
      const numeric = /^\((.+) \/ (.+) \+ (.+)\) \/ (.+)$/.exec(forms[forms.length - 2]);
      assert.ok(numeric, `${label}: “${sum[0]}”`);
      [scores[r][c], Math.sqrt(q[0].length), bias[r][c], k.options.temperature].forEach((v, i) => close(num(numeric[i + 1]), v, `${label} term ${i}`));
      close(num(forms[forms.length - 1]), scaled[r][c], `${label} scaled`);
      assert.ok(sum.some((l) => l.includes('ALiBi')), `${label}: the bias is named`);
    });
  }
});

test('a weight cell: the row max, each exp term and the sum, masked terms exp(−∞), a fully masked row 0', () => {
  for (const name of ['long', 'masked', 'cross', 'unscaled']) {
    const ctx = contextOf(name);
    const { scaled, weights } = ctx.result;
    each(weights, (r, c) => {
      const { lines } = explainCell('Weights', r, c, ctx);
      const label = `${name} Weights[${r}][${c}]`;
      const head = `Weights[${ctx.tokens[r]}, ${ctx.keyTokens[c]}]`;
      if (ctx.full.fullyMasked[r]) {
        assert.equal(lines[0], `${head} = 0`, label);
        return;
      }
      const row = scaled[r];
      const max = Math.max(...row);
      const exps = row.map((s) => Math.exp(s - max));
      const total = exps.reduce((a, b) => a + b, 0);
      // the line of exp terms: "= exp(s_c − m) / (exp(s_0 − m) + …)"
      const expLine = lines.find((l) => l.startsWith('= exp('));
      const expTerm = (text, i, what) => {
        if (row[i] === -Infinity) return assert.equal(text, 'exp(−∞)', `${label} ${what}`);
        const m = /^exp\((.+) − (.+)\)$/.exec(text);
        assert.ok(m, `${label} ${what}: “${text}”`);
        close(num(m[1]), row[i], `${label} ${what}: the score`);
        close(num(m[2]), max, `${label} ${what}: the row max`);
      };
      const [own, rest] = [expLine.slice(2, expLine.indexOf(' / (')), expLine.slice(expLine.indexOf(' / (') + 4, -1)];
      expTerm(own, c, 'numerator');
      const sum = terms(rest);
      assert.equal(sum.count, row.length, `${label}: one term per key`);
      for (const { index, text } of sum.shown) expTerm(text, index, `term ${index + 1}`);
      // "= e_c / (e_0 + …)" and "= e_c / total = w"
      const valueLine = lines.find((l) => l.startsWith('= ') && !l.startsWith('= exp(') && l.includes(' / ('));
      const [numerator, denominator] = [valueLine.slice(2, valueLine.indexOf(' / (')), valueLine.slice(valueLine.indexOf(' / (') + 4, -1)];
      close(num(numerator), exps[c], `${label}: exp of its own score`);
      for (const { index, text } of terms(denominator).shown) close(num(text), exps[index], `${label}: exp term ${index + 1}`);
      const last = lines.find((l) => /^= [^(]+ \/ [^(]+ = /.test(l));
      const [, e, t, w] = /^= (.+) \/ (.+) = (.+)$/.exec(last);
      close(num(e), exps[c], `${label}: numerator`);
      close(num(t), total, `${label}: the sum of the exp terms`);
      close(num(w), weights[r][c], `${label}: the weight`);
      if (name === 'long') assert.ok(sum.shown.length < sum.count, 'the long rows are elided');
    });
  }
});

test('an output cell: weights row · V column; a head\'s output, W_O\'s output and the concat', () => {
  for (const name of ['long', 'masked', 'cross']) {
    const ctx = contextOf(name);
    const { weights, v, output } = ctx.result;
    each(output, (r, c) => checkDot(explainCell('Output', r, c, ctx).lines[0], {
      head: `Output[${ctx.tokens[r]}, ${dim(c)}]`, count: weights[0].length, label: `${name} Output[${r}][${c}]`,
      a: (i) => weights[r][i], b: (i) => v[i][c], value: output[r][c],
    }));
  }
  const k = CASES.multi;
  for (const h of [0, 1]) {
    const ctx = contextOf('multi', h);
    const own = ctx.full.heads[h];
    each(own.output, (r, c) => checkDot(explainCell(`head_${h + 1}`, r, c, ctx).lines[0], {
      head: `head_${h + 1}[${k.tokens[r]}, ${dim(c)}]`, count: k.tokens.length, label: `head ${h + 1} [${r}][${c}]`,
      a: (i) => own.weights[r][i], b: (i) => own.v[i][c], value: own.output[r][c],
    }));
  }
  const ctx = contextOf('multi', 1);
  each(k.result.output, (r, c) => checkDot(explainCell('Output', r, c, ctx).lines[0], {
    head: `Output[${k.tokens[r]}, ${dim(c)}]`, count: k.result.concat[0].length, label: `W_O output [${r}][${c}]`,
    a: (i) => k.result.concat[r][i], b: (i) => k.wo[i][c], value: k.result.output[r][c],
  }));
  const dv = k.result.heads[0].output[0].length;
  each(k.result.concat, (r, c) => {
    const line = explainCell('Concat', r, c, ctx).lines[0];
    const h = Math.floor(c / dv);
    assert.ok(line.startsWith(`Concat[${k.tokens[r]}, ${dim(c)}] = head_${h + 1}[${k.tokens[r]}, ${dim(c % dv)}] = `), line);
    close(num(line.slice(line.lastIndexOf(' = ') + 3)), k.result.heads[h].output[r][c % dv], line);
  });
});

test('positional encoding cells: sin or cos of pos / 10000^(2i/d), and X + PE', () => {
  const k = CASES.multi;
  const ctx = contextOf('multi');
  const d = k.x[0].length;
  each(k.result.pe, (r, c) => {
    const line = explainCell('PE', r, c, ctx).lines[0];
    const twoI = c - (c % 2);
    const fn = c % 2 === 0 ? 'sin' : 'cos';
    const m = new RegExp(`^PE\\[${k.tokens[r]}, ${dim(c)}\\] = ${fn}\\(${r} / 10000\\^\\(${twoI}/${d}\\)\\) = ${fn}\\(${r} / (.+)\\) = ${fn}\\((.+)\\) = (.+)$`).exec(line);
    assert.ok(m, line);
    close(num(m[1]), 10000 ** (twoI / d), `${line}: the denominator`);
    close(num(m[2]), r / 10000 ** (twoI / d), `${line}: the angle`);
    close(num(m[3]), k.result.pe[r][c], `${line}: the value`);
    const sum = explainCell('X+PE', r, c, ctx).lines[0];
    const [, a, b, s] = new RegExp(`^X\\+PE\\[${k.tokens[r]}, ${dim(c)}\\] = (.+) \\+ (.+) = (.+)$`).exec(sum) || [];
    assert.ok(a, sum);
    close(num(a), k.x[r][c], `${sum}: X`);
    close(num(b), k.result.pe[r][c], `${sum}: PE`);
    close(num(s), k.result.xWithPe[r][c], `${sum}: X+PE`);
  });
});

test('a masked cell says why (causal, padding or both), in both languages, and names its key', () => {
  const k = CASES.masked;
  for (const lang of ['en', 'zh']) {
    const ctx = contextOf('masked', 0, lang);
    each(k.result.masked, (r, c) => {
      for (const m of ['Scaled', 'Weights']) {
        const { lines } = explainCell(m, r, c, ctx);
        const words = lines.slice(1).join(' ');
        const masked = k.result.masked[r][c];
        if (!masked) continue;
        assert.ok(words.includes(k.keyTokens[c]), `${m}[${r}][${c}] ${lang} names its key: ${words}`);
        const late = k.options.causal && c > r;
        const padded = k.options.keyPadding[c];
        const causalWord = lang === 'en' ? /causal|later|after|future/i : /因果|后面|之后|未来/;
        const padWord = lang === 'en' ? /padding/i : /填充/;
        if (late) assert.match(words, causalWord, `${m}[${r}][${c}] ${lang}: causal`);
        if (padded) assert.match(words, padWord, `${m}[${r}][${c}] ${lang}: padding`);
      }
    });
  }
});
