/* The engine: makeEngine(raw) wraps the module's raw bindings (private to it) in the public
 * calls, each validating its arguments (validate.js, validate-model.js), calling the binding and
 * turning its result into the documented structures (docs/api.md). */
/* global HEAD_OPERANDS, BIASES, RESULTS, inputError, describe, packRows, readFormat, packInput, checkFields,
   packPerHead, packLoss, packTrainOptions, packModel, packIds, packHeadsOff, packModelTrainOptions,
   readRunOptions */
/* exported makeEngine */

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

// A vector of the binding (Float64Array) in the rows form (an array of numbers) or as is.
const unpackVector = (typed) => (typed ? (v) => v : (v) => Array.from(v));

// The biases among `names` that `from` has (a head of the binding's, or its input), as vectors.
const biasesOf = (from, names, vector) => Object.fromEntries(names.filter((name) => from[name] !== undefined).map((name) => [name, vector(from[name])]));
// The bias trained with each matrix (train: 'wq' trains W_Q and b_Q)
const BIAS_OF = { wq: 'bq', wk: 'bk', wv: 'bv', wo: 'bo' };

// runModel's result from the binding's layout (model_bindings.cpp run_layout, whose order is
// read here) and the module's HEAPF64 right after the call: each matrix { rows, cols, data },
// `data` its range of one fresh Float64Array holding the whole run (one copy, no embind call per
// matrix), or with reuse a view of the engine's own buffer; then unpacked.
function unpackRun(layout, heap, reuse, unpack) {
  let s = 0;
  const matrices = [];
  const next = () => {
    const rows = layout[s++];
    const cols = layout[s++];
    const at = layout[s++];
    const m = { rows, cols, data: heap.subarray(at, at + rows * cols) };
    matrices.push(m);
    return m;
  };
  const nLayers = layout[s++];
  const structure = [];
  for (let l = 0; l < nLayers; l++) structure.push({ heads: layout[s++], mlp: layout[s++] !== 0 });
  const residual = [];
  for (let l = 0; l <= nLayers; l++) residual.push(next());
  const layers = structure.map(({ heads, mlp }) => {
    const input = next();
    const attentionHeads = [];
    for (let h = 0; h < heads; h++) {
      const head = {};
      for (const name of RESULTS) head[name] = next();
      attentionHeads.push(head);
    }
    const concat = next();
    const layer = { input, attention: { heads: attentionHeads, concat, output: next() } };
    if (mlp) {
      const mlpInput = next();
      const hidden = next();
      const activated = next();
      layer.mlp = { input: mlpInput, hidden, activated, output: next() };
    }
    return layer;
  });
  const finalInput = next();
  const logits = next();
  const probabilities = next();
  if (!reuse && unpack === undefined) {
    // the typed form: one copy of the whole run (the rows form reads the engine's buffer at once)
    const values = new Float64Array(matrices.reduce((sum, m) => sum + m.data.length, 0));
    let offset = 0;
    for (const m of matrices) {
      values.set(m.data, offset);
      m.data = values.subarray(offset, offset + m.data.length);
      offset += m.data.length;
    }
  }
  if (unpack !== undefined) {
    // arrays of rows: each matrix replaced in place by its rows
    const rows = new Map(matrices.map((m) => [m, unpack(m)]));
    const of = (m) => rows.get(m);
    return {
      residual: residual.map(of),
      layers: layers.map((layer) => ({
        input: of(layer.input),
        attention: {
          heads: layer.attention.heads.map((head) => Object.fromEntries(RESULTS.map((name) => [name, of(head[name])]))),
          concat: of(layer.attention.concat),
          output: of(layer.attention.output),
        },
        ...(layer.mlp === undefined ? {} : { mlp: { input: of(layer.mlp.input), hidden: of(layer.mlp.hidden), activated: of(layer.mlp.activated), output: of(layer.mlp.output) } }),
      })),
      finalInput: of(finalInput),
      logits: of(logits),
      probabilities: of(probabilities),
    };
  }
  return { residual, layers, finalInput, logits, probabilities };
}

// A model's arrays from the binding's layout (model_bindings.cpp model_layout, whose order is
// read here) and the module's HEAPF64 right after the call, in the format's structure with
// matrices { rows, cols, data } and vectors Float64Arrays, absent ones left out: each a copy
// (`copy`), or a view of the engine's memory to be read at once (unpackModelArrays).
function readModelArrays(layout, heap, copy) {
  let s = 0;
  const next = () => {
    const rows = layout[s++];
    const cols = layout[s++];
    const at = layout[s++];
    if (rows === 0) return undefined;
    const data = copy ? heap.slice(at, at + rows * cols) : heap.subarray(at, at + rows * cols);
    return { rows, cols, data };
  };
  const vector = () => {
    const v = next();
    return v === undefined ? undefined : v.data;
  };
  const norm = () => {
    const gain = vector();
    const bias = vector();
    return gain === undefined ? undefined : { gain, bias };
  };
  // each field in the layout's order; absent ones dropped
  const present = (fields) => Object.fromEntries(fields.filter(([, v]) => v !== undefined));
  const nLayers = layout[s++];
  const structure = [];
  for (let l = 0; l < nLayers; l++) structure.push({ heads: layout[s++], mlp: layout[s++] !== 0 });
  const embed = next();
  const positions = next();
  const layers = structure.map(({ heads, mlp }) => {
    const norm1 = norm();
    const layerHeads = [];
    for (let h = 0; h < heads; h++) layerHeads.push(present([['wq', next()], ['wk', next()], ['wv', next()], ['bq', vector()], ['bk', vector()], ['bv', vector()]]));
    const layer = present([['norm1', norm1], ['heads', layerHeads], ['wo', next()], ['bo', vector()], ['norm2', norm()]]);
    const w1 = next();
    const b1 = vector();
    const w2 = next();
    const b2 = vector();
    if (mlp) layer.mlp = present([['w1', w1], ['b1', b1], ['w2', w2], ['b2', b2]]);
    return layer;
  });
  return present([['embed', embed], ['positions', positions], ['layers', layers], ['finalNorm', norm()], ['unembed', next()], ['unembedBias', vector()]]);
}

// The binding's model arrays (readModelArrays) in the format's structure: matrices as rows (or
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
// A model without its parameter arrays: what trainedModel() needs besides them (its structure,
// the strings 'sinusoidal' and 'tied', activations and metadata), kept by a loaded model.
const MODEL_PARAMETERS = ['embed', 'positions', 'finalNorm', 'unembed', 'unembedBias'];
function modelSkeleton(model) {
  const kept = Object.entries(model).filter(([key, value]) => !MODEL_PARAMETERS.includes(key) || typeof value === 'string');
  return {
    ...Object.fromEntries(kept),
    vocab: [...model.vocab],
    layers: model.layers.map((layer) => (layer.mlp === undefined ? {} : { mlp: { activation: layer.mlp.activation } })),
  };
}

function makeEngine(raw) {
  // compute()'s options besides its matrices, as the binding declares them: [{ key, kind, default }]
  const inputOptions = raw.attentionOptions();
  // Models loaded into this engine (loadModel): handle → { id (null once released), skeleton,
  // layers: the number of heads of each layer, as packHeadsOff reads them }.
  const loaded = new WeakMap();
  const newLoaded = (id, skeleton, layers) => {
    const entry = { id, skeleton, layers };
    const handle = Object.freeze({
      // its parameters, as a plain model object (the loaded model's fields and metadata)
      toModel: () => trainedModel(entry.skeleton, readModelArrays(raw.modelParameters(liveId(entry)), raw.HEAPF64, false)),
      // frees its memory in the engine; using it afterwards is an error (code 'released')
      release() {
        if (entry.id === null) return;
        raw.releaseModel(entry.id);
        entry.id = null;
      },
    });
    loaded.set(handle, entry);
    return handle;
  };
  const liveId = (entry) => {
    if (entry.id === null) {
      throw inputError({ code: 'released', operand: 'model', message: 'this loaded model was released: load the model again (engine.loadModel)' });
    }
    return entry.id;
  };
  // The model argument of runModel, modelGradients and trainModel for the binding: a loaded
  // model's id, or a plain model checked and packed; `layers` as the entries above.
  const modelSource = (model) => {
    const entry = model !== null && typeof model === 'object' ? loaded.get(model) : undefined;
    if (entry !== undefined) return { source: liveId(entry), entry, layers: entry.layers };
    const packed = packModel(model);
    return { source: packed, layers: packed.layers };
  };
  return {
    compute(input, format) {
      const { typed, reuse } = readFormat(format);
      const packed = packInput(input, 'compute', inputOptions);
      const result = raw.compute(packed, reuse);
      if (result.error) throw inputError(result.error);

      // the binding's matrices are already fresh copies (or, with reuse, the views the caller
      // asked for): the typed form hands them over as is
      const unpack = typed ? (m) => m : unpackRows;
      // one head, the single-head form: its steps at the top level, as before issue 4
      // each head's matrices as the binding gave them: RESULTS, and those an option adds (a bias)
      const names = Object.keys(result.heads[0]);
      const out = input.heads === undefined ? unpackHead(result.heads[0], unpack, names) : {
        heads: result.heads.map((head) => unpackHead(head, unpack, names)),
        concat: unpack(result.concat),
        output: unpack(result.output),
      };
      // the results the options add, where the binding gave them (masks; positional encoding)
      if (result.masked !== undefined) {
        const { rows, cols, data } = result.masked;
        out.masked = typed ? result.masked : Array.from({ length: rows }, (_, i) => unpackFlags(data.subarray(i * cols, (i + 1) * cols)));
        out.fullyMasked = typed ? result.fullyMasked : unpackFlags(result.fullyMasked);
      }
      if (result.pe !== undefined) {
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
      const packed = packInput(input, 'backward', inputOptions);
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
      const vector = unpackVector(typed);
      const g = result.input;
      // each bias given: its gradient, the column sums of its product's
      const gInput = input.heads === undefined
        ? { x: unpack(g.x), wq: unpack(g.heads[0].wq), wk: unpack(g.heads[0].wk), wv: unpack(g.heads[0].wv), ...biasesOf(g.heads[0], BIASES, vector) }
        : { x: unpack(g.x), heads: g.heads.map((head) => ({ ...unpackHead(head, unpack, HEAD_OPERANDS), ...biasesOf(head, BIASES, vector) })) };
      if (input.context !== undefined) gInput.context = unpack(g.context);
      if (input.wo !== undefined) gInput.wo = unpack(g.wo);
      if (input.bo !== undefined) gInput.bo = vector(g.bo);
      gInput.temperature = g.temperature;
      const r = result.result;
      const gResult = input.heads === undefined ? unpackHead(r.heads[0], unpack) : {
        heads: r.heads.map((head) => unpackHead(head, unpack)),
        concat: unpack(r.concat),
        output: unpack(r.output),
      };
      if (r.xWithPe !== undefined) {
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
      const packed = packInput(input, 'train', inputOptions);
      const { packed: packedOptions, trained } = packTrainOptions(options, input.heads !== undefined);
      const result = raw.train(packed, packedOptions);
      if (result.error) throw inputError(result.error);

      const out = { ...input };
      const t = result.input;
      const vector = unpackVector(false);
      for (const name of ['x', 'context', 'wo']) if (trained.includes(name)) out[name] = unpackRows(t[name]);
      if (trained.includes('wo') && input.bo !== undefined) out.bo = vector(t.bo);
      const headNames = HEAD_OPERANDS.filter((name) => trained.includes(name));
      // a trained matrix's bias, where the head has one, trained with it
      const headBiases = headNames.map((name) => BIAS_OF[name]);
      if (input.heads === undefined) {
        for (const name of headNames) out[name] = unpackRows(t.heads[0][name]);
        Object.assign(out, biasesOf(t.heads[0], headBiases.filter((b) => input[b] !== undefined), vector));
      } else {
        out.heads = input.heads.map((head, h) => {
          const copy = { ...head };
          for (const name of headNames) copy[name] = unpackRows(t.heads[h][name]);
          return Object.assign(copy, biasesOf(t.heads[h], headBiases.filter((b) => head[b] !== undefined), vector));
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
      const { source, layers } = modelSource(model);
      const off = packHeadsOff(headsOff, { layers });
      const result = raw.runModel(source, packIds(ids, 'ids'), off);
      if (result.error) throw inputError(result.error);
      return unpackRun(result.layout, raw.HEAPF64, reuse, typed ? undefined : unpackRows);
    },

    // The mean cross-entropy of the logits against targets (one id per position, -1: no loss
    // there) and its gradient for every parameter, in the model's structure.
    modelGradients(model, ids, targets, format) {
      const { typed } = readFormat(format, "modelGradients()'s fourth argument", ['typed']);
      const { source } = modelSource(model);
      const result = raw.modelGradients(source, packIds(ids, 'ids'), packIds(targets, 'targets'));
      if (result.error) throw inputError(result.error);
      return { loss: result.loss, gradients: unpackModelArrays(readModelArrays(result.gradients, raw.HEAPF64, typed), typed) };
    },

    // One optimizer step per batch: { model (a new object, or a new loaded model for a loaded
    // one; the input is not modified), losses (each batch's loss before its step), state (pass it
    // back as options.state to go on: the steps and Adam's moments carry over) }.
    trainModel(model, options) {
      const { source, entry } = modelSource(model);
      const packed = packModelTrainOptions(options);
      const result = raw.trainModel(source, packed);
      if (result.error) throw inputError(result.error);
      const losses = Array.from(result.losses);
      const state = { optimizer: packed.optimizer, step: result.step, moments: result.moments };
      if (entry !== undefined) return { model: newLoaded(result.id, entry.skeleton, entry.layers), losses, state };
      return { model: trainedModel(model, readModelArrays(result.parameters, raw.HEAPF64, false)), losses, state };
    },

    // The model read, checked and kept in the engine once: runModel, modelGradients and
    // trainModel take the handle in place of the model and skip copying it in again (results
    // identical). It stays until handle.release(); handle.toModel() gives it back as an object.
    loadModel(model) {
      const packed = packModel(model);
      const result = raw.loadModel(packed);
      if (result.error) throw inputError(result.error);
      return newLoaded(result.id, modelSkeleton(model), packed.layers.map((layer) => ({ heads: { length: layer.heads.length } })));
    },

    // Bytes of wasm memory in use by the module (it grows, never shrinks).
    memoryBytes() {
      return raw.HEAP8.buffer.byteLength;
    },
  };
}
