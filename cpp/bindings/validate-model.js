/* Input validation of the models' calls (runModel, modelGradients, trainModel; docs/api.md,
 * "Models"): the model object's JS types checked and packed for the binding (read_model in
 * cpp/bindings/model_bindings.cpp checks every shape, value and limit). */
/* global inputError, describe, packRows, checkFields, readChoice, readFormat, packState */
/* exported packModel, packIds, packHeadsOff, packModelTrainOptions, readRunOptions */

const MODEL_KEYS = ['vocab', 'dModel', 'maxTokens', 'causal', 'embed', 'positions', 'layers', 'finalNorm', 'unembed', 'unembedBias'];
// a model's metadata: kept as given, never read by the engine
const MODEL_METADATA = ['name', 'title', 'description', 'tokenizer', 'training', 'source', 'license'];
const LAYER_KEYS = ['norm1', 'heads', 'wo', 'bo', 'norm2', 'mlp'];
const MODEL_HEAD_KEYS = ['wq', 'wk', 'wv', 'bq', 'bk', 'bv'];
const NORM_KEYS = ['gain', 'bias'];
const MLP_KEYS = ['w1', 'b1', 'w2', 'b2', 'activation'];
const ACTIVATIONS = ['gelu', 'relu'];
const MODEL_TRAIN_KEYS = ['batches', 'optimizer', 'learningRate', 'state'];
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


function packModelTrainOptions(options) {
  checkFields(options, "trainModel()'s second argument", MODEL_TRAIN_KEYS, "{ batches: [{ ids, targets }], optimizer: 'adam' | 'sgd', learningRate, state }");
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
  const packed = { batches, optimizer, learningRate: options.learningRate, step: 0 };
  if (options.state !== undefined) {
    // a previous call's result.state: the binding checks that its moments fit the model
    Object.assign(packed, packState(options.state, ['optimizer', 'step', 'moments'], 'from a previous trainModel() call', (s) =>
      s.optimizer === optimizer ? null : `state comes from training with ${describe(s.optimizer)}, not "${optimizer}": pass the state of a call with the same optimizer`));
  }
  return packed;
}

// runModel()'s third argument: { typed, reuse, headsOff }.
function readRunOptions(options) {
  if (options === undefined) return { typed: false, reuse: false, headsOff: undefined };
  checkFields(options, "runModel()'s third argument", ['typed', 'reuse', 'headsOff'], '{ typed?, reuse?, headsOff? }');
  const { headsOff, ...format } = options;
  return { ...readFormat(format, "runModel()'s third argument"), headsOff };
}
