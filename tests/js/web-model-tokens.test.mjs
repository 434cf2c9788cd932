// io/model-tokens.js: a sentence typed as a learner types it is read into exactly the tokens the
// shipped models were trained on (scripts/train-models.mjs makes its sequences as token lists,
// not from text, so this is the tokenizer checked against the training data itself), and what a
// model does not know is marked, never given an id.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { animalVocab, learnerPairs } from '../../scripts/train-models.mjs';
import { modelTokens } from '../../web/src/io/model-tokens.js';

const model = (name) => JSON.parse(readFileSync(new URL(`../../web/models/${name}.json`, import.meta.url), 'utf8'));
const LEARNER = model('learner-words');
const ANIMAL = model('animal-street');
const INDUCTION = model('induction');
const texts = (read) => read.tokens.map((t) => t.text);

test('every sentence pair of the learner model, typed as a learner writes it, is read into its training tokens', () => {
  const pairs = learnerPairs();
  assert.ok(pairs.length > 200);
  for (const { en, zh } of pairs) {
    const words = en.map(({ t }) => t);
    // "I love you." and 我爱你。 as typed: capitals, the full stop against the last word, no spaces in Chinese
    const typedEn = `${words.slice(0, -1).join(' ')}.`.replace(/^./, (c) => c.toUpperCase());
    const typedZh = zh.map(({ t }) => t).join('');
    const read = modelTokens(LEARNER, `${typedEn} ${typedZh}`);
    assert.deepEqual(texts(read), ['<s>', ...words, ...zh.map(({ t }) => t)], typedEn);
    assert.deepEqual(read.unknown, []);
    assert.deepEqual(read.tokens.map((t) => t.id), texts(read).map((t) => LEARNER.vocab.indexOf(t)));
  }
});

test('the classic sentence reads into the animal model’s words, its curly apostrophe and full stop as trained', () => {
  assert.deepEqual(ANIMAL.vocab.slice().sort(), animalVocab().slice().sort());
  const read = modelTokens(ANIMAL, 'The animal didn’t cross the street because it was too tired.');
  assert.deepEqual(texts(read), ['the', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']);
  assert.deepEqual(read.unknown, []);
  assert.equal(read.started, false);
});

test('words a model does not know are marked by position and get no id', () => {
  const read = modelTokens(LEARNER, 'I love pizza. 我爱你，朋友');
  assert.deepEqual(texts(read), ['<s>', 'i', 'love', 'pizza', '.', '我', '爱', '你', '，', '朋', '友']);
  assert.deepEqual(read.unknown, [3, 8, 9, 10]);
  for (const i of read.unknown) assert.equal(read.tokens[i].id, -1);
  const mixed = modelTokens(LEARNER, 'abc我');
  assert.deepEqual(texts(mixed), ['<s>', 'abc', '我'], 'letters then a Han character: two tokens');
});

test('the induction model reads one token per character; an unknown tokenizer kind is refused with its path', () => {
  const read = modelTokens(INDUCTION, 'A B\tCA');
  assert.deepEqual(texts(read), ['A', 'B', 'C', 'A']);
  assert.deepEqual(read.tokens.map((t) => t.id), ['A', 'B', 'C', 'A'].map((t) => INDUCTION.vocab.indexOf(t)));
  assert.throws(() => modelTokens({ vocab: ['a'], tokenizer: { kind: 'bpe' } }, 'a'), (e) => e.code === 'choice' && e.path === 'tokenizer.kind');
  assert.throws(() => modelTokens({ vocab: ['a'] }, 'a'), (e) => e.code === 'choice');
});
