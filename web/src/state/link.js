// The state in a link: `av1.` + base64url(UTF-8 JSON), its options at their default left out.

import { STATE_VERSION, validateState, refused } from './schema.js';
import { OPTION_KEYS, isDefault } from './options.js';
import { DEFAULT_DECIMALS } from '../ui/format.js';
import { withModelInputs, withoutModelInputs } from './model-choice.js';

const HASH_PREFIX = `av${STATE_VERSION}.`;
const fail = refused;
const VIEW_DEFAULTS = { step: 'input', head: 0, decimals: DEFAULT_DECIMALS };

function base64url(bytes) {
  let binary = '';
  // a chunk at a time: a char at a time took ~150 ms for a 1 MB state
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  // a loop: Uint8Array.from(binary, callback) took 0.8 s for a 1 MB link
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}


// Fields at their default are left out (validateState() puts them back); a model's matrices
// too: the link names the model (model-choice.js).
function withoutDefaults(state) {
  const compact = { ...withoutModelInputs(state), view: { ...state.view } };
  for (const key of OPTION_KEYS) if (isDefault(key, compact[key])) delete compact[key];
  for (const key of ['step', 'head', 'decimals']) if (compact.view[key] === VIEW_DEFAULTS[key]) delete compact.view[key];
  return compact;
}

export function encodeHash(state) {
  return HASH_PREFIX + base64url(new TextEncoder().encode(JSON.stringify(withoutDefaults(state))));
}

// Accepts the hash with or without '#'. {ok, state} or {ok: false, message};
// an empty hash is {ok: false, message: null} (nothing to restore).
export function decodeHash(hash) {
  const text = hash.replace(/^#/, '');
  if (text === '') return { ok: false, message: null };
  const version = /^av(\d+)\./.exec(text);
  if (!version) return fail({ key: 'errStateHash', params: {} });
  if (Number(version[1]) !== STATE_VERSION) return fail({ key: 'errStateVersion', params: { version: version[1], supported: STATE_VERSION } });
  let parsed;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64url(text.slice(version[0].length))));
  } catch {
    return fail({ key: 'errStateHash', params: {} });
  }
  return validateState(withModelInputs(parsed));
}
