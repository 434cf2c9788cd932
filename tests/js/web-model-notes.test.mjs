// The models' words on the page (engine/model-run.js, state/model-choice.js): a model's title set
// inside the status's quotes nests its own quotes, in zh and en (the animal-street title "it"…
// was shown ““it”：…” in zh, “"it": …” in en); the first visit's state is the one the shipped
// model's tokenizer reads from its example sentence.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { modelNotes, nestedQuotes } from '../../web/src/engine/model-run.js';
import { firstVisitState, FIRST_VISIT, MODEL_EXAMPLES } from '../../web/src/state/model-choice.js';
import { modelTokens } from '../../web/src/io/model-tokens.js';
import { describe } from '../../web/src/ui/i18n.js';

const json = (file) => JSON.parse(readFileSync(new URL(`../../web/models/${file}`, import.meta.url), 'utf8'));
const ENTRY = json('index.json').find((e) => e.name === 'animal-street');

test('a model title with quotes of its own is quoted once in the status, zh and en', () => {
  const notes = { entry: ENTRY, unknown: [], cut: null, layer: 1, layers: 2, layerAsked: 1, ablated: null };
  const zh = describe('zh', modelNotes(notes, 'zh')[0].descriptor);
  const en = describe('en', modelNotes(notes, 'en')[0].descriptor);
  assert.ok(zh.includes('模型“‘it’：是动物还是街道？”第 2 层'), zh);
  assert.ok(en.includes('in the model “‘it’: the animal or the street?”:'), en);
  for (const text of [zh, en]) assert.doesNotMatch(text, /““|“"|""|””/);
  assert.equal(nestedQuotes('a "b" c “d”'), 'a ‘b’ c ‘d’');
  assert.equal(nestedQuotes('plain'), 'plain');
});

test('a fresh visit opens on the animal model, its tokens as its tokenizer reads the classic sentence, at the weights of layer 2 head 2', () => {
  const model = json('animal-street.json');
  for (const lang of ['zh', 'en']) {
    const state = firstVisitState(lang);
    assert.deepEqual(state.tokens, modelTokens(model, MODEL_EXAMPLES['animal-street']).tokens.map((t) => t.text));
    assert.deepEqual([state.model, state.layer, state.view.head, state.view.step, state.view.lang], [FIRST_VISIT.model, 1, 1, 'softmax', lang]);
    assert.ok(state.view.head < ENTRY.roles.filter((r) => r.layer === 1).length);
    assert.ok(ENTRY.roles.some((r) => r.layer === 1 && r.head === 1 && r.role === 'coreference'), 'a head with a named role');
  }
});
