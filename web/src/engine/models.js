// The trained models (dist/models/, written by scripts/train-models.mjs and copied by the build),
// loaded on demand, never bundled into the element's script. Over http(s) each file is fetched as
// JSON; a page opened from file:// may not fetch, so there the build's script twin of each file
// (models/NAME.js) hands its model to the <script> element that loads it (an event on
// document.currentScript: no global is defined, nothing is evaluated from the data itself).
//   loadModelIndex(base) → [{ name, file, title, about, roles }]    base: the models/ folder's URL
//   loadModel(base, file) → the model object, one request per file however often it is asked
//   parseModelText(text) → a model object from an author's JSON text, bounded in size
// An author's own model (options.js MODEL_NAME: a URL, or file:NAME.json for one the reader chose):
//   ownModel(name) → 'url' | 'file' | null
//   ownModelUrl(name, page) → the URL it loads from (page: the page's address), or throws why not
//   loadOwnModel(url) → the model object (its size bounded before it is parsed)
//   readModelFile(file) → the model object of a File the reader chose (bounded likewise)
//   ownShape(model) → null, or the first reason the page cannot read it ({ path, problem })

export const MAX_MODEL_BYTES = 16 * 1024 * 1024;
export const MODEL_EVENT = 'attention-model';

const loaded = new Map(); // URL → Promise of its JSON value

function modelError(code, message, extra = {}) {
  return Object.assign(new Error(message), { code, ...extra });
}

// The script twin's text, written by the build for each JSON file of dist/models/.
export function modelScript(jsonText) {
  return `document.currentScript.dispatchEvent(new CustomEvent(${JSON.stringify(MODEL_EVENT)}, { detail: ${jsonText.trim()} }));\n`;
}

export function parseModelText(text, source = 'model') {
  if (typeof text !== 'string') throw modelError('not_text', `${source}: a model file is JSON text`);
  if (text.length > MAX_MODEL_BYTES) {
    throw modelError('limit', `${source}: ${text.length} characters, more than the ${MAX_MODEL_BYTES} a model file may have`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw modelError('json', `${source}: not JSON (${err.message})`);
  }
}

async function fetchJson(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw modelError('load', `${url} could not be loaded (${err.message})`, { url });
  }
  if (!response.ok) throw modelError('load', `${url} could not be loaded (HTTP ${response.status})`, { url });
  const size = Number(response.headers.get('content-length'));
  const tooBig = (n) => modelError('limit', `${url}: ${n} bytes, more than the ${MAX_MODEL_BYTES} a model file may have`, { url });
  if (size > MAX_MODEL_BYTES) throw tooBig(size);
  if (!response.body) return parseModelText(await response.text(), url);
  // read in chunks, given up past the bound (a server that does not say the size)
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_MODEL_BYTES) {
      reader.cancel();
      throw tooBig(`more than ${MAX_MODEL_BYTES}`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return parseModelText(new TextDecoder().decode(bytes), url);
}

function scriptJson(url) {
  const twin = url.replace(/\.json$/, '.js');
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    const done = () => script.remove();
    script.addEventListener(MODEL_EVENT, (event) => { done(); resolve(event.detail); }, { once: true });
    script.addEventListener('error', () => { done(); reject(modelError('load', `${twin} could not be loaded`, { url: twin })); }, { once: true });
    script.src = twin;
    document.head.append(script);
  });
}

function load(url) {
  if (!loaded.has(url)) {
    const fromFile = url.startsWith('file:');
    if (fromFile && typeof document === 'undefined') return Promise.reject(modelError('load', `${url}: a file:// model loads only in a page`, { url }));
    const promise = fromFile ? scriptJson(url) : fetchJson(url);
    loaded.set(url, promise);
    promise.catch(() => loaded.delete(url)); // a failed load may be tried again
  }
  return loaded.get(url);
}

export async function loadModelIndex(base) {
  const index = await load(new URL('index.json', base).href);
  if (!Array.isArray(index)) throw modelError('shape', 'models/index.json is not a list of models');
  return index;
}

export function loadModel(base, file) {
  if (typeof file !== 'string' || !/^[\w.-]+\.json$/.test(file)) return Promise.reject(modelError('choice', `a model file is named like name.json, not ${String(file).slice(0, 40)}`));
  return load(new URL(file, base).href);
}

export function ownModel(name) {
  if (/^file:/.test(name)) return 'file';
  return /^(https?:\/\/|\.{0,2}\/)/.test(name) ? 'url' : null;
}

// Over http(s) and from the page's own origin only: a page opened from file:// may not fetch
// (the browser refuses it: choose the file instead), another origin is not asked (the built
// page's Content-Security-Policy allows its own origin alone).
export function ownModelUrl(name, page) {
  const from = new URL(page);
  if (!/^https?:$/.test(from.protocol)) throw modelError('file_page', `${name}: this page was opened from ${from.protocol}//, where the browser loads no file by its address`, { url: name });
  const url = new URL(name, from);
  if (url.origin !== from.origin) throw modelError('origin', `${name}: not from this page's origin (${from.origin})`, { url: name });
  return url.href;
}

export function loadOwnModel(url) {
  return load(url);
}

export async function readModelFile(file) {
  if (file.size > MAX_MODEL_BYTES) throw modelError('limit', `${file.name}: ${file.size} bytes, more than the ${MAX_MODEL_BYTES} a model file may have`);
  return parseModelText(await file.text(), file.name);
}

// What the page itself reads of a model before the engine checks the rest (its numbers and
// shapes, and its limits: runModel's errors): an object with a vocab of strings, layers of
// heads, and a tokenizer (io/model-tokens.js).
export function ownShape(model) {
  const object = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!object(model)) return { path: 'model', problem: 'object' };
  if (!Array.isArray(model.vocab) || model.vocab.length === 0) return { path: 'vocab', problem: 'strings' };
  const bad = model.vocab.findIndex((t) => typeof t !== 'string');
  if (bad >= 0) return { path: `vocab[${bad}]`, problem: 'string' };
  if (!Array.isArray(model.layers)) return { path: 'layers', problem: 'array' };
  const layer = model.layers.findIndex((l) => !object(l) || !Array.isArray(l.heads) || !l.heads.every(object));
  if (layer >= 0) return { path: `layers[${layer}].heads`, problem: 'heads' };
  if (!object(model.tokenizer)) return { path: 'tokenizer', problem: 'object' };
  return null;
}
