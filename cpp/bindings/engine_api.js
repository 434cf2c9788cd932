/* The public JS API of the attention engine. The build (scripts/build.mjs) puts it after the
 * Emscripten module and the wasm bytes (ATTENTION_WASM_BASE64) inside one self-contained
 * function, attentionEngineScript(asWorker), which returns createAttentionEngine: the classic
 * script makes that a global (or module.exports under node), the ES module exports it.
 *
 *   const engine = await createAttentionEngine();
 *   const r = engine.compute({ x, wq, wk, wv });  // arrays of rows of numbers
 *   r.q, r.k, r.v, r.scores, r.scaled, r.weights, r.output  // arrays of rows
 *   const m = engine.compute({ x, heads: [{ wq, wk, wv }, ...], wo, context, causal,
 *                              keyPadding, scaleBySqrtDk, temperature, positionalEncoding, alibi });
 *   m.heads[h].weights, m.concat, m.output, m.masked, m.fullyMasked, m.pe, m.xWithPe, m.heads[h].bias
 *   engine.compute(input, { typed: true })  // matrices as { rows, cols, data: Float64Array }
 *   engine.compute(input, { typed: true, reuse: true })  // the same, views of the engine's
 *                                           // buffers, valid until the engine's next call
 *   const g = engine.backward(input, { output: G })  // G = dL/doutput of a scalar loss L
 *   g.input.x, g.input.wq, …, g.input.temperature; g.result.scores, g.result.weights, …
 *   engine.backward(input, { weights: S })  // S = dL/dweights (one per head in the heads form)
 *   engine.backward(input, { loss, target })  // train()'s loss: its gradients, and g.loss
 *   const t = engine.train(input, { loss, target, train, optimizer, learningRate, steps, … })
 *   t.input (trained), t.losses, t.state (pass it back to go on)
 *   const run = engine.runModel(model, ids, { typed, reuse, headsOff })  // a transformer's
 *   run.residual, run.layers[l].input / .attention.heads[h].weights / .mlp.hidden, run.logits, …
 *   engine.modelGradients(model, ids, targets)  // { loss, gradients } in the model's structure
 *   engine.trainModel(model, { batches: [{ ids, targets }], optimizer, learningRate })  // { model, losses }
 *   engine.memoryBytes()  // size of the module's wasm memory
 *   const worker = createAttentionEngine.startWorker();  // a second engine in a Web Worker
 *   await worker.compute(input)  // the typed form, computed off the page's thread
 *   worker.recycle(result)  // a result no longer read: its buffers go back to be written again
 *   await worker.backward(input, { output: G }), await worker.train(input, options)
 *   await worker.runModel(model, ids), worker.modelGradients(…), worker.trainModel(…)
 *
 * Bad input throws an Error with an actionable message and code, operand, row, column, head
 * (0-based; undefined where they do not apply). The engine keeps working after it.
 * docs/api.md documents every option, result and convention.
 */
/* global createAttentionModule, attentionEngineScript, asWorker, ATTENTION_WASM_BASE64 */

const OPERANDS = ['x', 'wq', 'wk', 'wv'];
const HEAD_OPERANDS = ['wq', 'wk', 'wv'];
const RESULTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];
const BOOLEAN_OPTIONS = ['causal', 'scaleBySqrtDk', 'positionalEncoding', 'alibi'];
const KNOWN_KEYS = [
  'x', 'wq', 'wk', 'wv', 'heads', 'wo', 'context',
  'causal', 'keyPadding', 'scaleBySqrtDk', 'temperature', 'positionalEncoding', 'alibi',
];
// train()'s options, and the matrices it can train (in the order of its moments)
const TRAIN_KEYS = ['loss', 'target', 'train', 'optimizer', 'learningRate', 'steps', 'seed', 'rowsPerStep', 'state'];
const TRAINABLE = ['x', 'context', 'wq', 'wk', 'wv', 'wo'];
const LOSSES = ['output', 'weights'];
const OPTIMIZERS = ['sgd', 'adam'];

function inputError({ code, operand, row, column, head, layer, path, message }) {
  const err = new Error(message);
  err.code = code;
  err.operand = operand;
  err.row = row >= 0 ? row : undefined;
  err.column = column >= 0 ? column : undefined;
  err.head = head >= 0 ? head : undefined;
  // a model's errors (runModel, modelGradients, trainModel): its layer, and the array's path
  if (layer >= 0) err.layer = layer;
  if (path !== undefined) err.path = path;
  return err;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 20))}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

// Arrays of rows → { values: Float64Array, rowLengths: Int32Array }, copied into wasm in one
// block each. Checks here only what a Float64Array cannot carry (structure, number type);
// the engine checks emptiness, ragged rows and NaN/±Infinity. `head` (0-based) names a
// head's matrix: messages say heads[1].wq, the error has operand 'wq' and head 1 (`name`
// overrides what messages call it: target[1]).
function packRows(operand, rows, head, name = head === undefined ? operand : `heads[${head}].${operand}`) {
  const fail = (fields) => inputError({ code: 'not_matrix', operand, head, ...fields });
  if (!Array.isArray(rows)) {
    throw fail({
      message: `${name} must be an array of rows (arrays of numbers), got ${describe(rows)}`,
    });
  }
  // plain loops, not forEach: `offset` written inside a closure lives in a context slot, and
  // packing a model's ~100 000 numbers took ~2.5 ms of runModel() that way
  let total = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!Array.isArray(row) && !(row instanceof Float64Array)) {
      throw fail({
        row: i,
        message: `${name}[${i}] must be an array of numbers, got ${describe(row)}`,
      });
    }
    total += row.length;
  }
  const values = new Float64Array(total);
  const rowLengths = new Int32Array(rows.length);
  let offset = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    for (let j = 0; j < row.length; j++) {
      const v = row[j];
      if (typeof v !== 'number') {
        throw inputError({
          code: 'not_number',
          operand,
          head,
          row: i,
          column: j,
          message: `${name}[${i}][${j}] is ${describe(v)}: every value must be a number`,
        });
      }
      values[offset++] = v;
    }
    rowLengths[i] = row.length;
  }
  return { values, rowLengths };
}

// { rows, cols, data: Float64Array } → array of rows of numbers.
function unpackRows({ rows, cols, data }) {
  // plain indexed copies: Array.from(subarray) goes through the iterator protocol and was
  // 15× slower here at n = 512
  const out = new Array(rows);
  for (let i = 0, offset = 0; i < rows; i++) {
    const row = new Array(cols);
    for (let j = 0; j < cols; j++) row[j] = data[offset++];
    out[i] = row;
  }
  return out;
}

// The options of compute() other than matrices, checked for type here (the engine checks
// values: keyPadding's length, temperature > 0) and filled with their defaults.
function packOptions(input) {
  const options = {
    causal: false,
    keyPadding: undefined,
    scaleBySqrtDk: true,
    temperature: 1,
    positionalEncoding: false,
    alibi: false,
  };
  for (const name of BOOLEAN_OPTIONS) {
    if (input[name] === undefined) continue;
    if (typeof input[name] !== 'boolean') {
      throw inputError({
        code: 'not_boolean',
        operand: name,
        message: `${name} must be true or false, got ${describe(input[name])}`,
      });
    }
    options[name] = input[name];
  }
  if (input.temperature !== undefined) {
    if (typeof input.temperature !== 'number') {
      throw inputError({
        code: 'not_number',
        operand: 'temperature',
        message: `temperature must be a number > 0, got ${describe(input.temperature)}`,
      });
    }
    options.temperature = input.temperature;
  }
  const padding = input.keyPadding;
  if (padding !== undefined) {
    if (!Array.isArray(padding)) {
      throw inputError({
        code: 'not_array',
        operand: 'keyPadding',
        message: `keyPadding must be an array of true/false, one per key, got ${describe(padding)}`,
      });
    }
    if (padding.length === 0) {
      throw inputError({
        code: 'empty',
        operand: 'keyPadding',
        message: 'keyPadding is empty: it needs one true/false per key (leave it out for no padding)',
      });
    }
    options.keyPadding = new Uint8Array(padding.length);
    padding.forEach((p, j) => {
      if (typeof p !== 'boolean') {
        throw inputError({
          code: 'not_boolean',
          operand: 'keyPadding',
          column: j,
          message: `keyPadding[${j}] is ${describe(p)}: every entry must be true (a padding key) or false`,
        });
      }
      options.keyPadding[j] = p ? 1 : 0;
    });
  }
  return options;
}

// The input's matrices, packed: x, context, heads (the single-head form is one head), wo.
// `call` names the API call in messages.
function packOperands(input, call) {
  const multiHead = input.heads !== undefined;
  const needs = multiHead ? 'x and heads' : 'x, wq, wk and wv';
  const required = multiHead ? ['x'] : OPERANDS;
  for (const name of required) {
    if (input[name] === undefined) {
      throw inputError({
        code: 'not_matrix',
        operand: name,
        message: `${call}() needs ${needs}; ${name} is missing`,
      });
    }
  }
  const stray = HEAD_OPERANDS.find((name) => multiHead && input[name] !== undefined);
  if (stray) {
    throw inputError({
      code: 'conflict',
      operand: stray,
      message: `${call}() takes either wq, wk, wv (one head) or heads, not both; ${stray} is given with heads`,
    });
  }
  if (!multiHead && input.wo !== undefined) {
    throw inputError({
      code: 'conflict',
      operand: 'wo',
      message: 'wo needs heads: pass heads: [{ wq, wk, wv }, ...] with wo (one head without W_O is the default)',
    });
  }
  const packed = { x: packRows('x', input.x) };
  if (input.context !== undefined) packed.context = packRows('context', input.context);
  if (!multiHead) {
    packed.heads = [{ wq: packRows('wq', input.wq), wk: packRows('wk', input.wk), wv: packRows('wv', input.wv) }];
  } else {
    if (!Array.isArray(input.heads)) {
      throw inputError({
        code: 'not_matrix',
        operand: 'heads',
        message: `heads must be an array of { wq, wk, wv }, got ${describe(input.heads)}`,
      });
    }
    packed.heads = input.heads.map((head, h) => {
      if (head === null || typeof head !== 'object' || Array.isArray(head)) {
        throw inputError({
          code: 'not_matrix',
          operand: 'heads',
          head: h,
          message: `heads[${h}] must be an object { wq, wk, wv }, got ${describe(head)}`,
        });
      }
      const weights = {};
      for (const name of HEAD_OPERANDS) {
        if (head[name] === undefined) {
          throw inputError({
            code: 'not_matrix',
            operand: name,
            head: h,
            message: `heads[${h}] needs wq, wk and wv; ${name} is missing`,
          });
        }
        weights[name] = packRows(name, head[name], h);
      }
      return weights;
    });
    if (input.wo !== undefined) packed.wo = packRows('wo', input.wo);
  }
  packed.singleHeadNames = !multiHead;
  return packed;
}

// Flags (Uint8Array) → array of booleans.
function unpackFlags(data) {
  const out = new Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] !== 0;
  return out;
}

function unpackHead(head, unpack, names = RESULTS) {
  const out = {};
  for (const name of names) out[name] = unpack(head[name]);
  return out;
}

// compute()'s second argument: { typed: true } returns every matrix as
// { rows, cols, data: Float64Array } (row-major; masks as Uint8Array), without building
// arrays of rows: the fast form for large inputs. { typed: true, reuse: true } (compute()
// only) returns that form without copying: every array is a view of the engine's own buffers,
// valid until the next compute(), backward() or train() of this engine, which overwrites it
// (see docs/api.md). Returns { typed, reuse }.
function readFormat(format, where = "compute()'s second argument", keys = ['typed', 'reuse']) {
  if (format === undefined) return { typed: false, reuse: false };
  const expected = `{ ${keys.map((k) => `${k}: true | false`).join(', ')} }`;
  const fields = format !== null && typeof format === 'object' ? Object.keys(format) : null;
  if (fields === null || fields.some((k) => !keys.includes(k)) || fields.some((k) => !['boolean', 'undefined'].includes(typeof format[k]))) {
    throw inputError({
      code: 'unknown_option',
      operand: 'format',
      message: `${where} must be ${expected}, got ${describe(format)}`,
    });
  }
  const typed = format.typed === true;
  const reuse = format.reuse === true;
  if (reuse && !typed) {
    throw inputError({
      code: 'conflict',
      operand: 'format',
      message: `${where}: reuse: true needs typed: true (only the typed form's arrays can be reused)`,
    });
  }
  return { typed, reuse };
}

// The input object of compute(), backward() and train(), checked and packed for the binding.
function packInput(input, call) {
  if (input === null || typeof input !== 'object') {
    throw inputError({
      code: 'not_matrix',
      message: `${call}() takes an object { x, wq, wk, wv }, got ${describe(input)}`,
    });
  }
  const unknown = Object.keys(input).find((key) => !KNOWN_KEYS.includes(key));
  if (unknown !== undefined) {
    throw inputError({
      code: 'unknown_option',
      operand: unknown,
      message: `${call}() got an unknown option ${JSON.stringify(unknown)}; it takes ${KNOWN_KEYS.join(', ')}`,
    });
  }
  return { ...packOperands(input, call), ...packOptions(input) };
}

// An object argument of backward() or train() that may hold only `keys`.
function checkFields(value, what, keys, expected) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw inputError({ code: 'not_object', message: `${what} must be an object ${expected}, got ${describe(value)}` });
  }
  const unknown = Object.keys(value).find((key) => !keys.includes(key));
  if (unknown !== undefined) {
    throw inputError({
      code: 'unknown_option',
      operand: unknown,
      message: `${what} got an unknown field ${JSON.stringify(unknown)}; it takes ${keys.join(', ')}`,
    });
  }
}

// A field that must be one of `choices` (a string).
function readChoice(options, name, choices, fallback) {
  const value = options[name] === undefined ? fallback : options[name];
  if (!choices.includes(value)) {
    throw inputError({
      code: 'choice',
      operand: name,
      message: `${name} must be one of ${choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`,
    });
  }
  return value;
}

// A field that must be an integer number (range checks are the engine's, except where noted).
function readInteger(options, name, fallback) {
  const value = options[name] === undefined ? fallback : options[name];
  if (typeof value !== 'number') {
    throw inputError({ code: 'not_number', operand: name, message: `${name} must be a number, got ${describe(value)}` });
  }
  if (!Number.isSafeInteger(value)) {
    throw inputError({ code: 'range', operand: name, message: `${name} is ${value}: it must be a whole number` });
  }
  return value;
}

// A matrix per head (null for a head left out) in the heads form, one matrix in the one-head
// form: [packed | null] for the binding. `what` says what each matrix is, for messages.
function packPerHead(operand, value, multiHead, what) {
  if (!multiHead) return [packRows(operand, value)];
  if (!Array.isArray(value)) {
    throw inputError({ code: 'not_matrix', operand, message: `${operand} must be an array with one ${what} per head (or null), got ${describe(value)}` });
  }
  return value.map((m, h) => (m === null ? null : packRows(operand, m, h, `${operand}[${h}]`)));
}

// The loss of train() and backward(): { loss, target } for the binding.
function packLoss(options, multiHead, call) {
  const loss = readChoice(options, 'loss', LOSSES);
  const { target } = options;
  if (target === undefined) {
    throw inputError({ code: 'not_matrix', operand: 'target', message: `${call}() needs a target (${loss === 'output' ? 'the output wanted' : 'the weights wanted'}); target is missing` });
  }
  const packed = loss === 'output' ? packRows('target', target) : packPerHead('target', target, multiHead, 'weight matrix');
  return { loss, target: packed };
}

// train()'s options for the binding: { loss, target, train: { x, …: booleans }, optimizer,
// learningRate, steps, seed, rowsPerStep, step, moments? }, and the names trained in order.
function packTrainOptions(options, multiHead) {
  checkFields(options, "train()'s second argument", TRAIN_KEYS, '{ loss, target, train, learningRate, … }');
  const { loss, target: packedTarget } = packLoss(options, multiHead, 'train');
  const names = options.train;
  if (!Array.isArray(names)) {
    throw inputError({ code: 'not_array', operand: 'train', message: `train must be an array of the matrices to train (${TRAINABLE.join(', ')}), got ${describe(names)}` });
  }
  names.forEach((name, j) => {
    if (!TRAINABLE.includes(name)) {
      throw inputError({ code: 'choice', operand: 'train', column: j, message: `train[${j}] is ${describe(name)}: it must be one of ${TRAINABLE.join(', ')}` });
    }
  });
  const trained = TRAINABLE.filter((name) => names.includes(name)); // the moments' order
  const optimizer = readChoice(options, 'optimizer', OPTIMIZERS, 'sgd');
  if (typeof options.learningRate !== 'number') {
    throw inputError({ code: 'not_number', operand: 'learningRate', message: `learningRate must be a number > 0, got ${describe(options.learningRate)}` });
  }
  const seed = readInteger(options, 'seed', 0);
  if (seed < 0 || seed > 0xffffffff) {
    throw inputError({ code: 'range', operand: 'seed', message: `seed is ${seed}: it must be from 0 to 4294967295` });
  }
  const packed = {
    loss,
    target: packedTarget,
    train: Object.fromEntries(TRAINABLE.map((name) => [name, trained.includes(name)])),
    optimizer,
    learningRate: options.learningRate,
    steps: readInteger(options, 'steps', 1),
    seed,
    rowsPerStep: readInteger(options, 'rowsPerStep', 0),
    step: 0,
  };
  const { state } = options;
  if (state !== undefined) {
    checkFields(state, 'state', ['optimizer', 'train', 'step', 'moments'], 'from a previous train() call');
    const same = state.optimizer === optimizer && Array.isArray(state.train) && state.train.join() === trained.join();
    if (!same) {
      throw inputError({
        code: 'conflict',
        operand: 'state',
        message: `state comes from training ${describe(state.train)} with ${describe(state.optimizer)}, not ${trained.join(', ')} with "${optimizer}": pass the state of a call with the same train and optimizer`,
      });
    }
    packed.step = readInteger(state, 'step', undefined);
    if (packed.step < 0) {
      throw inputError({ code: 'range', operand: 'state', message: `state.step is ${packed.step}: it must be >= 0` });
    }
    if (!(state.moments instanceof Float64Array)) {
      throw inputError({ code: 'not_array', operand: 'state', message: `state.moments must be a Float64Array, got ${describe(state.moments)}` });
    }
    packed.moments = state.moments;
  }
  return { packed, trained };
}

// ---- models: runModel, modelGradients, trainModel (docs/api.md, "Models") ----

const MODEL_KEYS = ['vocab', 'dModel', 'maxTokens', 'causal', 'embed', 'positions', 'layers', 'finalNorm', 'unembed', 'unembedBias'];
// a model's metadata: kept as given, never read by the engine
const MODEL_METADATA = ['name', 'title', 'description', 'tokenizer', 'training', 'source', 'license'];
const LAYER_KEYS = ['norm1', 'heads', 'wo', 'bo', 'norm2', 'mlp'];
const MODEL_HEAD_KEYS = ['wq', 'wk', 'wv', 'bq', 'bk', 'bv'];
const NORM_KEYS = ['gain', 'bias'];
const MLP_KEYS = ['w1', 'b1', 'w2', 'b2', 'activation'];
const ACTIVATIONS = ['gelu', 'relu'];
const MODEL_TRAIN_KEYS = ['batches', 'optimizer', 'learningRate'];
const MODEL_OPTIMIZERS = ['adam', 'sgd'];

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
// "wq" of "layers[1].heads[0].wq"
const leafOf = (path) => path.slice(path.lastIndexOf('.') + 1);

function modelError(code, path, message, { layer, head, row, column } = {}) {
  return inputError({ code, operand: leafOf(path), path, layer, head, row, column, message });
}

// An object of the format at `path` holding only `keys` (and `extra`, kept as given).
function checkModelObject(value, path, keys, expected, where = {}, extra = []) {
  if (!isPlainObject(value)) {
    throw modelError('not_object', path, `${path} must be an object ${expected}, got ${describe(value)}`, where);
  }
  const unknown = Object.keys(value).find((key) => !keys.includes(key) && !extra.includes(key));
  if (unknown !== undefined) {
    throw modelError('unknown_option', `${path}.${unknown}`.replace(/^model\./, ''), `${path} has an unknown field ${JSON.stringify(unknown)}; it takes ${keys.join(', ')}`, where);
  }
}

// A matrix of the model: packRows with the array's path, layer and head.
function packModelRows(rows, path, where = {}) {
  try {
    return packRows(leafOf(path), rows, undefined, path);
  } catch (error) {
    error.path = path;
    if (where.layer !== undefined) error.layer = where.layer;
    if (where.head !== undefined) error.head = where.head;
    throw error;
  }
}

// An optional vector of numbers (absent: undefined) as a Float64Array.
function packModelVector(value, path, where = {}) {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) && !(value instanceof Float64Array)) {
    throw modelError('not_array', path, `${path} must be an array of numbers, got ${describe(value)}`, where);
  }
  const out = new Float64Array(value.length);
  for (let j = 0; j < value.length; j++) {
    if (typeof value[j] !== 'number') {
      throw modelError('not_number', path, `${path}[${j}] is ${describe(value[j])}: every value must be a number`, { ...where, column: j });
    }
    out[j] = value[j];
  }
  return out;
}

function packNorm(value, path, where) {
  if (value === undefined) return undefined;
  checkModelObject(value, path, NORM_KEYS, '{ gain, bias }', where);
  for (const name of NORM_KEYS) {
    if (value[name] === undefined) throw modelError('not_array', `${path}.${name}`, `${path} needs gain and bias; ${name} is missing`, where);
  }
  return { gain: packModelVector(value.gain, `${path}.gain`, where), bias: packModelVector(value.bias, `${path}.bias`, where) };
}

function readWholeNumber(model, name) {
  const value = model[name];
  if (typeof value !== 'number') {
    throw modelError('not_number', name, `${name} must be a whole number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value)) throw modelError('range', name, `${name} is ${value}: it must be a whole number`);
  return value;
}

// The model object of the format (docs/api.md), its JS types checked, packed for the binding
// (cpp/bindings read_model: the engine checks every shape, value and limit).
function packModel(model) {
  checkModelObject(model, 'model', MODEL_KEYS, '{ vocab, dModel, maxTokens, causal, embed, positions, layers, unembed, … }', {}, MODEL_METADATA);
  const { vocab } = model;
  if (!Array.isArray(vocab)) throw modelError('not_array', 'vocab', `vocab must be an array of token strings, got ${describe(vocab)}`);
  vocab.forEach((token, i) => {
    if (typeof token !== 'string') throw modelError('not_string', 'vocab', `vocab[${i}] is ${describe(token)}: every token must be a string`, { column: i });
  });
  const causal = model.causal === undefined ? false : model.causal;
  if (typeof causal !== 'boolean') throw modelError('not_boolean', 'causal', `causal must be true or false, got ${describe(causal)}`);
  const packed = {
    vocab: vocab.length,
    dModel: readWholeNumber(model, 'dModel'),
    maxTokens: readWholeNumber(model, 'maxTokens'),
    causal,
  };
  if (model.embed === undefined) throw modelError('not_matrix', 'embed', 'the model needs embed (vocab × dModel); embed is missing');
  packed.embed = packModelRows(model.embed, 'embed');
  if (model.positions !== 'sinusoidal') {
    if (model.positions === undefined) throw modelError('not_matrix', 'positions', "the model needs positions (maxTokens × dModel, or 'sinusoidal'); positions is missing");
    packed.positions = packModelRows(model.positions, 'positions');
  }
  if (!Array.isArray(model.layers)) throw modelError('not_array', 'layers', `layers must be an array of layers (it may be empty), got ${describe(model.layers)}`);
  packed.layers = model.layers.map((layer, l) => {
    const lp = `layers[${l}]`;
    const at = { layer: l };
    checkModelObject(layer, lp, LAYER_KEYS, '{ norm1?, heads, wo, bo?, norm2?, mlp? }', at);
    const out = {};
    const norm1 = packNorm(layer.norm1, `${lp}.norm1`, at);
    if (norm1) out.norm1 = norm1;
    if (!Array.isArray(layer.heads)) throw modelError('not_array', `${lp}.heads`, `${lp}.heads must be an array of heads { wq, wk, wv }, got ${describe(layer.heads)}`, at);
    out.heads = layer.heads.map((head, h) => {
      const hp = `${lp}.heads[${h}]`;
      const where = { layer: l, head: h };
      checkModelObject(head, hp, MODEL_HEAD_KEYS, '{ wq, wk, wv, bq?, bk?, bv? }', where);
      const packedHead = {};
      for (const name of ['wq', 'wk', 'wv']) {
        if (head[name] === undefined) throw modelError('not_matrix', `${hp}.${name}`, `${hp} needs wq, wk and wv; ${name} is missing`, where);
        packedHead[name] = packModelRows(head[name], `${hp}.${name}`, where);
      }
      for (const name of ['bq', 'bk', 'bv']) {
        const bias = packModelVector(head[name], `${hp}.${name}`, where);
        if (bias) packedHead[name] = bias;
      }
      return packedHead;
    });
    if (layer.wo === undefined) throw modelError('not_matrix', `${lp}.wo`, `${lp} needs wo ((h·d_v) × dModel); wo is missing`, at);
    out.wo = packModelRows(layer.wo, `${lp}.wo`, at);
    const bo = packModelVector(layer.bo, `${lp}.bo`, at);
    if (bo) out.bo = bo;
    const norm2 = packNorm(layer.norm2, `${lp}.norm2`, at);
    if (norm2) out.norm2 = norm2;
    if (layer.mlp !== undefined) {
      const mp = `${lp}.mlp`;
      checkModelObject(layer.mlp, mp, MLP_KEYS, "{ w1, b1?, w2, b2?, activation: 'gelu' | 'relu' }", at);
      const { mlp } = layer;
      for (const name of ['w1', 'w2']) {
        if (mlp[name] === undefined) throw modelError('not_matrix', `${mp}.${name}`, `${mp} needs w1 and w2; ${name} is missing`, at);
      }
      if (!ACTIVATIONS.includes(mlp.activation)) {
        throw modelError('choice', `${mp}.activation`, `${mp}.activation must be "gelu" or "relu", got ${describe(mlp.activation)}`, at);
      }
      out.mlp = { w1: packModelRows(mlp.w1, `${mp}.w1`, at), w2: packModelRows(mlp.w2, `${mp}.w2`, at), activation: mlp.activation };
      const b1 = packModelVector(mlp.b1, `${mp}.b1`, at);
      const b2 = packModelVector(mlp.b2, `${mp}.b2`, at);
      if (b1) out.mlp.b1 = b1;
      if (b2) out.mlp.b2 = b2;
    }
    return out;
  });
  const finalNorm = packNorm(model.finalNorm, 'finalNorm', {});
  if (finalNorm) packed.finalNorm = finalNorm;
  if (model.unembed !== 'tied') {
    if (model.unembed === undefined) throw modelError('not_matrix', 'unembed', "the model needs unembed (dModel × vocab, or 'tied'); unembed is missing");
    packed.unembed = packModelRows(model.unembed, 'unembed');
  }
  const unembedBias = packModelVector(model.unembedBias, 'unembedBias');
  if (unembedBias) packed.unembedBias = unembedBias;
  return packed;
}

// Token ids (an array of numbers) as a Float64Array: the engine checks each is a whole number
// in [0, vocab) (targets: or -1) and that there are at most maxTokens.
function packIds(ids, path) {
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
    throw modelError('not_array', path, `${path} must be an array of token ids (numbers), got ${describe(ids)}`);
  }
  const out = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    if (typeof ids[i] !== 'number') throw modelError('not_number', path, `${path}[${i}] is ${describe(ids[i])}: every id must be a number`, { column: i });
    out[i] = ids[i];
  }
  return out;
}

// runModel's headsOff: [{ layer, head }] → one Uint8Array of flags per layer (1: off).
function packHeadsOff(headsOff, model) {
  if (headsOff === undefined) return undefined;
  const expected = 'an array of { layer, head } (the heads switched off)';
  if (!Array.isArray(headsOff)) throw modelError('not_array', 'headsOff', `headsOff must be ${expected}, got ${describe(headsOff)}`);
  const flags = model.layers.map((layer) => new Uint8Array(layer.heads.length));
  headsOff.forEach((entry, i) => {
    checkModelObject(entry, `headsOff[${i}]`, ['layer', 'head'], '{ layer, head }');
    const { layer, head } = entry;
    if (!Number.isInteger(layer) || layer < 0 || layer >= flags.length) {
      throw modelError('range', 'headsOff', `headsOff[${i}].layer is ${describe(layer)}: it must be a layer's index, 0 to ${flags.length - 1}`, { column: i });
    }
    if (!Number.isInteger(head) || head < 0 || head >= flags[layer].length) {
      throw modelError('range', 'headsOff', `headsOff[${i}].head is ${describe(head)}: layers[${layer}] has heads 0 to ${flags[layer].length - 1}`, { column: i, layer });
    }
    flags[layer][head] = 1;
  });
  return flags;
}

// A vector of the binding (Float64Array) in the rows form (an array of numbers) or as is.
const unpackVector = (typed) => (typed ? (v) => v : (v) => Array.from(v));

// The binding's model arrays (model_to_js) in the format's structure: matrices as rows (or
// typed), vectors as arrays of numbers (or Float64Arrays).
function unpackModelArrays(p, typed) {
  const matrix = typed ? (m) => m : unpackRows;
  const vector = unpackVector(typed);
  const norm = (n) => ({ gain: vector(n.gain), bias: vector(n.bias) });
  const optional = (object, name, unpack) => (object[name] === undefined ? {} : { [name]: unpack(object[name]) });
  return {
    embed: matrix(p.embed),
    ...optional(p, 'positions', matrix),
    layers: p.layers.map((layer) => ({
      ...optional(layer, 'norm1', norm),
      heads: layer.heads.map((head) => ({
        wq: matrix(head.wq), wk: matrix(head.wk), wv: matrix(head.wv),
        ...optional(head, 'bq', vector), ...optional(head, 'bk', vector), ...optional(head, 'bv', vector),
      })),
      wo: matrix(layer.wo),
      ...optional(layer, 'bo', vector),
      ...optional(layer, 'norm2', norm),
      ...(layer.mlp === undefined ? {} : {
        mlp: { w1: matrix(layer.mlp.w1), ...optional(layer.mlp, 'b1', vector), w2: matrix(layer.mlp.w2), ...optional(layer.mlp, 'b2', vector) },
      }),
    })),
    ...optional(p, 'finalNorm', norm),
    ...optional(p, 'unembed', matrix),
    ...optional(p, 'unembedBias', vector),
  };
}

// trainModel's result: a new model, the input's fields (metadata included) with every
// parameter array replaced by its trained copy; the input and its arrays are left as they were.
function trainedModel(model, p) {
  const trained = unpackModelArrays(p, false);
  return {
    ...model,
    ...trained,
    layers: model.layers.map((layer, l) => {
      const t = trained.layers[l];
      const out = { ...layer, ...t };
      if (layer.mlp !== undefined) out.mlp = { ...layer.mlp, ...t.mlp };
      return out;
    }),
  };
}

function packModelTrainOptions(options) {
  checkFields(options, "trainModel()'s second argument", MODEL_TRAIN_KEYS, "{ batches: [{ ids, targets }], optimizer: 'adam' | 'sgd', learningRate }");
  if (!Array.isArray(options.batches)) {
    throw modelError('not_array', 'batches', `batches must be an array of { ids, targets }, got ${describe(options.batches)}`);
  }
  const batches = options.batches.map((batch, b) => {
    const bp = `batches[${b}]`;
    checkModelObject(batch, bp, ['ids', 'targets'], '{ ids, targets }');
    return { ids: packIds(batch.ids, `${bp}.ids`), targets: packIds(batch.targets, `${bp}.targets`) };
  });
  const optimizer = readChoice(options, 'optimizer', MODEL_OPTIMIZERS, 'adam');
  if (typeof options.learningRate !== 'number') {
    throw modelError('not_number', 'learningRate', `learningRate must be a number > 0, got ${describe(options.learningRate)}`);
  }
  return { batches, optimizer, learningRate: options.learningRate };
}

// runModel()'s third argument: { typed, reuse, headsOff }.
function readRunOptions(options) {
  if (options === undefined) return { typed: false, reuse: false, headsOff: undefined };
  checkFields(options, "runModel()'s third argument", ['typed', 'reuse', 'headsOff'], '{ typed?, reuse?, headsOff? }');
  const { headsOff, ...format } = options;
  return { ...readFormat(format, "runModel()'s third argument"), headsOff };
}

function makeEngine(raw) {
  return {
    compute(input, format) {
      const { typed, reuse } = readFormat(format);
      const packed = packInput(input, 'compute');
      const result = raw.compute(packed, reuse);
      if (result.error) throw inputError(result.error);

      // the binding's matrices are already fresh copies (or, with reuse, the views the caller
      // asked for): the typed form hands them over as is
      const unpack = typed ? (m) => m : unpackRows;
      // one head, the single-head form: its steps at the top level, as before issue 4
      const names = packed.alibi ? [...RESULTS, 'bias'] : RESULTS; // ALiBi's bias, per head
      const out = input.heads === undefined ? unpackHead(result.heads[0], unpack, names) : {
        heads: result.heads.map((head) => unpackHead(head, unpack, names)),
        concat: unpack(result.concat),
        output: unpack(result.output),
      };
      if (packed.causal || packed.keyPadding !== undefined) {
        const { rows, cols, data } = result.masked;
        out.masked = typed ? result.masked : Array.from({ length: rows }, (_, i) => unpackFlags(data.subarray(i * cols, (i + 1) * cols)));
        out.fullyMasked = typed ? result.fullyMasked : unpackFlags(result.fullyMasked);
      }
      if (packed.positionalEncoding) {
        out.pe = unpack(result.pe);
        out.xWithPe = unpack(result.xWithPe);
        if (input.context !== undefined) {
          out.contextPe = unpack(result.contextPe);
          out.contextWithPe = unpack(result.contextWithPe);
        }
      }
      return out;
    },

    // dL/d(every input matrix) and dL/d(every result matrix) of a scalar loss L whose gradient
    // enters as `gradient`: { output: G } (dL/doutput), { weights: S } (dL/dweights: one matrix,
    // or one per head in the heads form), both, or { loss, target }, a loss of train() (then
    // also `loss`, its value). { input, result } in the input's and in compute()'s structures.
    backward(input, gradient, format) {
      const { typed } = readFormat(format, "backward()'s third argument", ['typed']);
      const packed = packInput(input, 'backward');
      const multiHead = input.heads !== undefined;
      const expected = '{ output: G } (G = dL/doutput, the shape of the output), { weights: S } (S = dL/dweights), both, or { loss, target }';
      if (gradient === null || typeof gradient !== 'object' || Array.isArray(gradient)) {
        throw inputError({
          code: 'not_matrix',
          operand: 'output',
          message: `backward() takes the gradient as its second argument, ${expected}, got ${describe(gradient)}`,
        });
      }
      checkFields(gradient, "backward()'s second argument", ['output', 'weights', 'loss', 'target'], expected);
      let seed;
      if (gradient.loss !== undefined || gradient.target !== undefined) {
        const other = ['output', 'weights'].find((name) => gradient[name] !== undefined);
        if (other !== undefined) {
          throw inputError({ code: 'conflict', operand: other, message: `backward() takes either a gradient (output, weights) or a loss (loss, target), not both: ${other} was given with the loss` });
        }
        seed = packLoss(gradient, multiHead, 'backward');
      } else {
        if (gradient.output === undefined && gradient.weights === undefined) {
          throw inputError({ code: 'not_matrix', operand: 'output', message: `backward() needs ${expected}; output and weights are missing` });
        }
        seed = {};
        if (gradient.output !== undefined) seed.output = packRows('output', gradient.output);
        if (gradient.weights !== undefined) seed.weights = packPerHead('weights', gradient.weights, multiHead, 'gradient of the weights');
      }
      const result = raw.backward(packed, seed);
      if (result.error) throw inputError(result.error);

      const unpack = typed ? (m) => m : unpackRows;
      const g = result.input;
      const gInput = input.heads === undefined
        ? { x: unpack(g.x), wq: unpack(g.heads[0].wq), wk: unpack(g.heads[0].wk), wv: unpack(g.heads[0].wv) }
        : { x: unpack(g.x), heads: g.heads.map((head) => unpackHead(head, unpack, HEAD_OPERANDS)) };
      if (input.context !== undefined) gInput.context = unpack(g.context);
      if (input.wo !== undefined) gInput.wo = unpack(g.wo);
      gInput.temperature = g.temperature;
      const r = result.result;
      const gResult = input.heads === undefined ? unpackHead(r.heads[0], unpack) : {
        heads: r.heads.map((head) => unpackHead(head, unpack)),
        concat: unpack(r.concat),
        output: unpack(r.output),
      };
      if (packed.positionalEncoding) {
        gResult.xWithPe = unpack(r.xWithPe);
        if (input.context !== undefined) gResult.contextWithPe = unpack(r.contextWithPe);
      }
      const out = { input: gInput, result: gResult };
      if (result.loss !== undefined) out.loss = result.loss;
      return out;
    },

    // options.steps steps of gradient descent: { input (the trained matrices replaced),
    // losses (steps + 1), state (pass it back as options.state to go on) }.
    train(input, options) {
      const packed = packInput(input, 'train');
      const { packed: packedOptions, trained } = packTrainOptions(options, input.heads !== undefined);
      const result = raw.train(packed, packedOptions);
      if (result.error) throw inputError(result.error);

      const out = { ...input };
      const t = result.input;
      for (const name of ['x', 'context', 'wo']) if (trained.includes(name)) out[name] = unpackRows(t[name]);
      const headNames = HEAD_OPERANDS.filter((name) => trained.includes(name));
      if (input.heads === undefined) {
        for (const name of headNames) out[name] = unpackRows(t.heads[0][name]);
      } else {
        out.heads = input.heads.map((head, h) => {
          const copy = { ...head };
          for (const name of headNames) copy[name] = unpackRows(t.heads[h][name]);
          return copy;
        });
      }
      return {
        input: out,
        losses: Array.from(result.losses),
        state: { optimizer: packedOptions.optimizer, train: trained, step: result.step, moments: result.moments },
      };
    },

    // A model's forward pass: every intermediate of every layer (docs/api.md, "Models").
    runModel(model, ids, options) {
      const { typed, reuse, headsOff } = readRunOptions(options);
      const packed = packModel(model);
      const result = raw.runModel(packed, packIds(ids, 'ids'), packHeadsOff(headsOff, packed), reuse);
      if (result.error) throw inputError(result.error);
      const unpack = typed ? (m) => m : unpackRows;
      return {
        residual: result.residual.map(unpack),
        layers: result.layers.map((layer) => ({
          input: unpack(layer.input),
          attention: {
            heads: layer.attention.heads.map((head) => unpackHead(head, unpack)),
            concat: unpack(layer.attention.concat),
            output: unpack(layer.attention.output),
          },
          ...(layer.mlp === undefined ? {} : { mlp: unpackHead(layer.mlp, unpack, ['input', 'hidden', 'activated', 'output']) }),
        })),
        finalInput: unpack(result.finalInput),
        logits: unpack(result.logits),
        probabilities: unpack(result.probabilities),
      };
    },

    // The mean cross-entropy of the logits against targets (one id per position, -1: no loss
    // there) and its gradient for every parameter, in the model's structure.
    modelGradients(model, ids, targets, format) {
      const { typed } = readFormat(format, "modelGradients()'s fourth argument", ['typed']);
      const packed = packModel(model);
      const result = raw.modelGradients(packed, packIds(ids, 'ids'), packIds(targets, 'targets'));
      if (result.error) throw inputError(result.error);
      return { loss: result.loss, gradients: unpackModelArrays(result.gradients, typed) };
    },

    // One optimizer step per batch: { model (a new object; the input is not modified),
    // losses (each batch's loss before its step) }.
    trainModel(model, options) {
      const packed = packModel(model);
      const result = raw.trainModel(packed, packModelTrainOptions(options));
      if (result.error) throw inputError(result.error);
      return { model: trainedModel(model, result.parameters), losses: Array.from(result.losses) };
    },

    // Bytes of wasm memory in use by the module (it grows, never shrinks).
    memoryBytes() {
      return raw.HEAP8.buffer.byteLength;
    },
  };
}

// The embedded wasm as bytes: handed to the module as wasmBinary, so that it is compiled from
// memory (a CSP needs only 'wasm-unsafe-eval', no connect-src) and nothing is ever fetched.
function wasmBytes() {
  const text = atob(ATTENTION_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// Why the module could not start, as an Error with a code a page can show in its own words:
// 'no_wasm' (no WebAssembly here), 'csp' (the page's Content-Security-Policy forbids compiling
// WebAssembly) or 'load' (anything else; the message says what). Emscripten's own texts
// ("Aborted(...)", its build advice) are left out; the original error is the cause.
function loadError(cause) {
  const text = String((cause && cause.message) || cause);
  let code = 'load';
  let message = `the engine's WebAssembly could not be started: ${text.replace(/^Aborted\((.*)\)(\. Build with .*)?$/s, '$1')}`;
  if (typeof WebAssembly !== 'object') {
    code = 'no_wasm';
    message = 'this browser has no WebAssembly (or it is turned off), and the engine needs it';
  } else if (/Content.Security.Policy|\bCSP\b|unsafe-eval/i.test(text)) {
    code = 'csp';
    message = "the page's Content-Security-Policy does not allow WebAssembly: its script-src needs 'wasm-unsafe-eval'";
  }
  const error = new Error(message, { cause });
  error.code = code;
  return error;
}

// One module per page or process, however many callers: every call returns the same promise.
let enginePromise = null;

function createAttentionEngine() {
  if (!enginePromise) {
    // inside then(): the module throws at once, not rejects, where WebAssembly is missing
    enginePromise = Promise.resolve().then(() => createAttentionModule({ wasmBinary: wasmBytes() })).then(
      (raw) => makeEngine(raw),
      (err) => {
        enginePromise = null; // let a later call try again
        throw loadError(err);
      },
    );
  }
  return enginePromise;
}

// A second engine in a Web Worker, for computations long enough to freeze a page
// (n in the thousands). The worker runs this very code, from its own source text
// (attentionEngineScript, the function the build wraps it in, called with asWorker) put in
// a Blob: nothing is fetched, so it works from file:// and offline, and after a bundler
// renamed everything; a page's CSP must allow `worker-src blob:`.
// worker.compute(input) → a promise of compute(input, { typed: true }), whose buffers
// are moved (transferred), not copied; worker.backward(input, gradient) likewise of
// backward(input, gradient, { typed: true }), worker.train(input, options) of
// train(input, options). Calls run one after another, in order. An input error rejects
// with the same Error (code, operand, row, column, head) as the engine's call; a worker
// that cannot start (Trusted Types, a CSP without blob: workers) or breaks rejects every
// call with code 'worker'. Throws at once where workers do not exist.

// An input's matrices of arrays of numbers as rows of one Float64Array each, its buffer moved
// to the worker with the message (buffers): the structured clone of 4096 × 64 numbers as
// arrays took 50–100 ms of the page's thread. Anything else (a row that is no array, a value
// that is no number) goes as it is, for the worker's engine to name the same error.
const INPUT_MATRICES = ['x', 'context', 'wq', 'wk', 'wv', 'wo'];
function rowsToSend(rows, buffers) {
  if (!Array.isArray(rows)) return rows;
  let total = 0;
  for (const row of rows) {
    if (!Array.isArray(row)) return rows;
    total += row.length;
  }
  const data = new Float64Array(total);
  const out = new Array(rows.length);
  for (let i = 0, offset = 0; i < rows.length; i++) {
    const row = rows[i];
    for (let j = 0; j < row.length; j++) {
      const v = row[j];
      if (typeof v !== 'number') return rows;
      data[offset + j] = v;
    }
    out[i] = data.subarray(offset, offset + row.length);
    offset += row.length;
  }
  buffers.push(data.buffer);
  return out;
}
function inputToSend(input, buffers) {
  const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isObject(input)) return input;
  const matrices = (object, keys) => {
    const out = { ...object };
    for (const key of keys) if (key in object) out[key] = rowsToSend(object[key], buffers);
    return out;
  };
  const out = matrices(input, INPUT_MATRICES);
  if (Array.isArray(input.heads)) out.heads = input.heads.map((head) => (isObject(head) ? matrices(head, ['wq', 'wk', 'wv']) : head));
  return out;
}

// Every typed array's buffer in a result (matrices, heads, rows), once each.
function buffersOf(value, out = new Set()) {
  if (ArrayBuffer.isView(value)) out.add(value.buffer);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) buffersOf(v, out);
  return out;
}

function startWorker() {
  if (typeof Worker !== 'function') throw new Error('startWorker() needs Web Workers, which this environment does not have');
  const source = `(${attentionEngineScript})(true);\n`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const waiting = new Map(); // id → { resolve, reject }
  const given = new WeakSet(); // the buffers of compute()'s results, until given back (recycle)
  let nextId = 0;
  let worker = null;
  let broken = null;
  const stop = (message) => {
    URL.revokeObjectURL(url);
    if (worker) worker.terminate();
    broken = inputError({ code: 'worker', message });
    for (const call of waiting.values()) call.reject(broken);
    waiting.clear();
  };
  try {
    worker = new Worker(url);
  } catch (error) {
    // e.g. under Trusted Types, where a blob: URL string is no TrustedScriptURL
    stop(`the engine's worker could not start: ${(error && error.message) || error}`);
  }
  if (worker) {
    worker.onmessage = ({ data }) => {
      if (data.ready) URL.revokeObjectURL(url);
      if (data.failed) stop(`the engine's worker could not load the engine: ${data.failed}`);
      if (data.id === undefined) return;
      const call = waiting.get(data.id);
      waiting.delete(data.id);
      if (data.error) call.reject(inputError(data.error));
      else call.resolve(data.result);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      stop(`the engine's worker stopped: ${event.message || 'it could not start'}`);
    };
  }
  // one message { id, method, args } per call, answered by { id, result } or { id, error }
  const call = (method, args, buffers = []) => {
    if (broken) return Promise.reject(broken);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, method, args }, buffers);
    });
  };
  return {
    compute: (input) => {
      const buffers = [];
      return call('compute', [inputToSend(input, buffers)], buffers).then((result) => {
        for (const buffer of buffersOf(result)) given.add(buffer);
        return result;
      });
    },
    // A result of compute() the caller no longer reads: its buffers move back to the worker
    // (its arrays are empty from then on), and the worker's next results are written into
    // them. Buffers the worker did not give, or already given back, stay where they are.
    recycle(result) {
      const back = [...buffersOf(result)].filter((buffer) => given.delete(buffer) && buffer.byteLength > 0);
      if (broken || back.length === 0) return;
      worker.postMessage({ method: 'recycle', args: [back] }, back);
    },
    backward: (input, gradient) => call('backward', [input, gradient]),
    train: (input, options) => call('train', [input, options]),
    // the models' calls: runModel's result and the gradients in the typed form
    runModel: (model, ids, options) => call('runModel', [model, ids, options]),
    modelGradients: (model, ids, targets) => call('modelGradients', [model, ids, targets]),
    trainModel: (model, options) => call('trainModel', [model, options]),
    terminate() {
      stop('the engine\'s worker was stopped');
    },
  };
}

// The worker's side: runs in the worker (attentionEngineScript(true)).
function workerMain() {
  const ready = createAttentionEngine();
  // Buffers the page gave back (recycle), oldest first, each with the number of computations
  // that passed it by: a computation's matrices are written into them, not into fresh memory
  // (at n = 4096 a result is some 400 MB, and each fresh one left as much garbage on the page).
  // One in a size within SPARE of a matrix's is taken (a sentence one token shorter); what
  // two computations in a row did not take is let go, and all of it after IDLE_MS without one.
  let pool = [];
  const SPARE = 1.25;
  const IDLE_MS = 5000;
  let idle = 0;
  const letGoWhenIdle = () => {
    clearTimeout(idle);
    if (pool.length > 0) idle = setTimeout(() => { pool = []; }, IDLE_MS);
  };
  const copyOut = (view) => {
    let best = -1;
    pool.forEach(({ buffer }, i) => {
      const fits = buffer.byteLength >= view.byteLength && buffer.byteLength <= view.byteLength * SPARE;
      if (fits && (best < 0 || buffer.byteLength < pool[best].buffer.byteLength)) best = i;
    });
    const buffer = best >= 0 ? pool.splice(best, 1)[0].buffer : new ArrayBuffer(view.byteLength);
    const out = new view.constructor(buffer, 0, view.length);
    out.set(view);
    return out;
  };
  // compute(input, { typed: true }) from the engine's reused views: each matrix copied once
  // (a matrix met twice, the one head's output, is the same copy), into the pool where it fits.
  const computeInto = (engine, input) => {
    const views = engine.compute(input, { typed: true, reuse: true });
    const copies = new Map();
    const walk = (value) => {
      if (ArrayBuffer.isView(value)) {
        if (!copies.has(value)) copies.set(value, copyOut(value));
        return copies.get(value);
      }
      if (Array.isArray(value)) return value.map(walk);
      if (value === null || typeof value !== 'object') return value;
      if (ArrayBuffer.isView(value.data)) {
        if (!copies.has(value)) copies.set(value, { rows: value.rows, cols: value.cols, data: copyOut(value.data) });
        return copies.get(value);
      }
      return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, walk(v)]));
    };
    const result = walk(views);
    pool = pool.filter((entry) => ++entry.passed < 2);
    letGoWhenIdle();
    return result;
  };
  ready.then(() => postMessage({ ready: true }), (error) => postMessage({ failed: String((error && error.message) || error) }));
  const run = {
    compute: (engine, [input]) => computeInto(engine, input),
    backward: (engine, [input, gradient]) => engine.backward(input, gradient, { typed: true }),
    train: (engine, [input, options]) => engine.train(input, options),
    runModel: (engine, [model, ids, options]) => engine.runModel(model, ids, { ...options, typed: true, reuse: false }),
    modelGradients: (engine, [model, ids, targets]) => engine.modelGradients(model, ids, targets, { typed: true }),
    trainModel: (engine, [model, options]) => engine.trainModel(model, options),
  };
  self.onmessage = ({ data: { id, method, args } }) => {
    if (method === 'recycle') {
      for (const buffer of args[0]) pool.push({ buffer, passed: 0 });
      letGoWhenIdle();
      return;
    }
    if (!Object.hasOwn(run, method)) return; // only this script's own calls
    ready.then((engine) => {
      let result;
      try {
        result = run[method](engine, args);
      } catch (error) {
        const { message, code, operand, row, column, head, layer, path } = error;
        postMessage({ id, error: { message, code, operand, row, column, head, layer, path } });
        return;
      }
      postMessage({ id, result }, [...buffersOf(result)]);
    });
  };
}

createAttentionEngine.startWorker = startWorker;
if (asWorker) workerMain();
return createAttentionEngine;
