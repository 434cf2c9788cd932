// The strings say something in each language (i18n.js): every Chinese string is
// Chinese, not a copy of its English twin; every English string is English
// (its Chinese is only the tokens it quotes); a placeholder of one language is
// used by the other, plural functions included. Symbols and names that are the
// same in both languages are on ALLOWED, each with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STRINGS, LANGUAGES } from '../../web/src/ui/i18n.js';

// CJK ideographs, kana, CJK punctuation and full-width forms.
const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]/u;
const CJK_RUNS = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+/gu;

// Keys whose Chinese need not contain Chinese (the same text in both languages).
const ALLOWED = {
  langButton: 'names the other language: English in the Chinese page, 中文 in the English one',
  stage_softmax: 'the name of the function, softmax',
  stepScoresFormula: 'a formula of the matrices’ names',
  stepScaleFormula: 'a formula of the matrices’ names',
  stepOutputFormula: 'a formula of the matrices’ names',
  flowOne: 'an operand and its target, joined by an arrow',
  defaultContext: 'the English second sentence of cross-attention, in both languages',
  formatCsv: 'the name of a file format',
  formatJson: 'the name of a file format',
  formatLatex: 'the name of a file format',
  errStateField: 'a field’s name and the problem (itself translated), quoted',
  learnGoal_animal: 'two tokens of the preset, it → animal',
  embedForm_iframe: 'the name of an HTML element, iframe (a key on main, not yet on this branch)',
};

// Values for every placeholder, each one distinct, so that a text can be searched for each.
const SENTINELS = new Proxy({}, { get: (_, name) => (typeof name === 'string' ? `⟦${name}⟧` : undefined), has: () => true });
const numeric = (n) => new Proxy({}, { get: (_, name) => (typeof name === 'string' ? n : undefined), has: () => true });
const render = (value, params) => (typeof value === 'function' ? value(params) : value);
const placeholders = (value) => (typeof value === 'function'
  ? new Set([...String(value(SENTINELS)).matchAll(/⟦(\w+)⟧/g)].map((m) => m[1]))
  : new Set([...value.matchAll(/\{(\w+)\}/g)].map((m) => m[1])));

test('every Chinese string is Chinese, and not its English twin (unless it is a symbol or a name on the allow list)', () => {
  const wrong = [];
  for (const [key, entry] of Object.entries(STRINGS)) {
    if (ALLOWED[key]) continue;
    for (const params of [numeric(1), numeric(3)]) {
      const zh = render(entry.zh, params);
      const en = render(entry.en, params);
      if (!CJK.test(zh) || zh === en) wrong.push(`${key}: “${zh}”`);
    }
  }
  assert.deepEqual([...new Set(wrong)], []);
});

test('the allow list holds only keys that exist and need it', () => {
  for (const key of Object.keys(ALLOWED)) {
    if (key === 'embedForm_iframe' && !STRINGS[key]) continue; // merged from main later
    assert.ok(STRINGS[key], `${key} exists`);
    assert.ok(!CJK.test(render(STRINGS[key].zh, numeric(2))) || STRINGS[key].zh === STRINGS[key].en, `${key} is Chinese now: take it off ALLOWED`);
  }
});

test('every English string is English: the Chinese in it is quoted from its Chinese twin (a token, a language\'s name)', () => {
  const wrong = [];
  for (const [key, entry] of Object.entries(STRINGS)) {
    if (key === 'langButton') continue; // 中文, the name of the other language
    const en = render(entry.en, numeric(2));
    const zh = render(entry.zh, numeric(2));
    for (const run of en.match(CJK_RUNS) || []) if (!zh.includes(run)) wrong.push(`${key}: “${run}” in “${en}”`);
  }
  assert.deepEqual(wrong, []);
});

test('every placeholder is used in both languages, plural functions included', () => {
  for (const [key, entry] of Object.entries(STRINGS)) {
    const [zh, en] = LANGUAGES.map((lang) => placeholders(entry[lang]));
    assert.deepEqual([...zh].sort(), [...en].sort(), `${key}: the same parameters in zh and en`);
    // and each is printed where it is used: a function prints what it is given
    for (const lang of LANGUAGES) {
      const text = String(render(entry[lang], SENTINELS));
      for (const name of lang === 'zh' ? zh : en) assert.ok(text.includes(`⟦${name}⟧`) || typeof entry[lang] === 'string', `${key}.${lang} prints {${name}}`);
    }
  }
});
