// The share link's and the state file's slow cases (seconds each): deep nesting through every
// field, and jsonInSlices on a 5 MB state. Apart from tests/js/web-share.test.mjs so that the
// mutation run (scripts/mutate.mjs), which runs a covering test file once a mutant, can run that
// one in well under a second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tutorialState } from '../../web/src/state/presets.js';
import { validateState } from '../../web/src/state/schema.js';
import { decodeHash } from '../../web/src/state/link.js';
import { parseStateJson, jsonInSlices } from '../../web/src/state/json.js';
import { describe } from '../../web/src/ui/i18n.js';
import { nestedArrayText, nestedStates, withFieldText, fullState, namedField } from './hostile-payloads.mjs';
import { variant, largeState } from './share-states.mjs';

test('deep nesting in any field is refused without recursion, by the hash and the JSON file alike', () => {
  assert.equal(validateState(fullState()).ok, true);
  for (const { field, kind, text } of nestedStates(100_000)) {
    const label = `${field} nested as ${kind}s`;
    for (const result of [parseStateJson(text), decodeHash(`av1.${Buffer.from(text).toString('base64url')}`)]) {
      assert.equal(result.ok, false, label);
      const message = describe('en', result.message);
      // the field, or one inside it (an object in context or view names its key)
      const named = field === 'version' ? `version ${kind === 'array' ? '[…]' : '{…}'} ` : `“${namedField(field)}`;
      assert.ok(message.startsWith(`The state is not valid: ${named}`), `${label}: ${message}`);
      assert.ok(message.length < 200, `${label}: ${message.slice(0, 300)}`);
    }
  }
  // the cell's text that JSON.stringify() overflowed on is named by its kind
  const cell = parseStateJson(withFieldText(tutorialState('en'), 'x[0][0]', nestedArrayText(100_000)));
  assert.equal(describe('en', cell.message), 'The state is not valid: “x” has […] at row 1, column 1: a finite number is expected.');
});

test('jsonInSlices gives JSON.stringify\'s text (beyond U+00FF escaped), in more than one task for a large state', async () => {
  const odd = { z: 1, a: [1, [2, { b: undefined, c: 'x"\n' }], undefined, null], e: {}, f: [[]], g: undefined, 1: true };
  // JSON.stringify's text with every UTF-16 code unit beyond 0xFF as \uXXXX
  const escaped = (value) => {
    const json = JSON.stringify(value);
    let out = '';
    for (let i = 0; i < json.length; i++) {
      const unit = json.charCodeAt(i);
      out += unit > 0xff ? `\\u${unit.toString(16).padStart(4, '0')}` : json[i];
    }
    return out;
  };
  for (const value of [tutorialState(), variant(), odd, [], {}, 'text', 3.5, null]) {
    assert.equal(await jsonInSlices(value, () => false), escaped(value));
  }
  // characters beyond U+00FF as escapes (one byte a character), read back the same
  const wide = { tokens: ['注意', '😀', 'é'], x: [[0.5]] };
  const text16 = await jsonInSlices(wide, () => false);
  assert.equal(text16, '{"tokens":["\\u6ce8\\u610f","\\ud83d\\ude00","é"],"x":[[0.5]]}');
  assert.deepEqual(JSON.parse(text16), wide);
  const large = largeState();
  let tasks = 0;
  const text = await jsonInSlices(large, () => { tasks += 1; return false; });
  assert.equal(text, escaped(large));
  assert.ok(tasks >= 2, `${tasks} tasks between slices`);
  // cancelled between slices: nothing
  assert.equal(await jsonInSlices(large, () => true), null);
});
