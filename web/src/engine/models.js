// The trained models (dist/models/, written by scripts/train-models.mjs and copied by the build),
// loaded on demand, never bundled into the element's script. Over http(s) each file is fetched as
// JSON; a page opened from file:// may not fetch, so there the build's script twin of each file
// (models/NAME.js) hands its model to the <script> element that loads it (an event on
// document.currentScript: no global is defined, nothing is evaluated from the data itself).
//   loadModelIndex(base) → [{ name, file, title, about, roles }]    base: the models/ folder's URL
//   loadModel(base, file) → the model object, one request per file however often it is asked
//   parseModelText(text) → a model object from an author's JSON text, bounded in size

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
  if (size > MAX_MODEL_BYTES) throw modelError('limit', `${url}: ${size} bytes, more than the ${MAX_MODEL_BYTES} a model file may have`, { url });
  return parseModelText(await response.text(), url);
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
