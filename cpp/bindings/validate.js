/* Input validation of compute(), backward() and train(): every argument's JS types checked and
 * packed for the binding (cpp/bindings/attention_bindings.cpp), which checks shapes, values and
 * limits. Errors are thrown as inputError()s. One of the files the build concatenates into the
 * engine (scripts/build.mjs ENGINE_API_FILES); loader.js has the overview. */
/* exported OPERANDS, HEAD_OPERANDS, BIASES, RESULTS, inputError, describe, packRows, readFormat, packInput,
   checkFields, readChoice, packPerHead, packLoss, packTrainOptions, packState */

const OPERANDS = ['x', 'wq', 'wk', 'wv'];
const HEAD_OPERANDS = ['wq', 'wk', 'wv'];
// a head's optional biases (b_Q, b_K, b_V), each trained with its matrix (wq, wk, wv)
const BIASES = ['bq', 'bk', 'bv'];
const RESULTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];
// the input's matrices and biases; its other options come from the binding's one table of them
// (attention_bindings.cpp kOptions: [{ key, kind, default }], raw.attentionOptions())
const MATRIX_KEYS = ['x', 'wq', 'wk', 'wv', 'bq', 'bk', 'bv', 'heads', 'wo', 'bo', 'context'];
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

// A bias (an array of numbers, or a Float64Array) → Float64Array, checked here (the engine checks
// its length): `head` as for packRows, messages say heads[1].bq[2].
function packBias(operand, values, head) {
  const name = head === undefined ? operand : `heads[${head}].${operand}`;
  if (!Array.isArray(values) && !(values instanceof Float64Array)) {
    throw inputError({ code: 'not_array', operand, head, message: `${name} must be an array of numbers (a bias), got ${describe(values)}` });
  }
  if (values.length === 0) {
    throw inputError({ code: 'empty', operand, head, message: `${name} is empty: a bias needs one number per column (leave it out for no bias)` });
  }
  const out = new Float64Array(values.length);
  for (let j = 0; j < values.length; j++) {
    const v = values[j];
    if (typeof v !== 'number') {
      throw inputError({ code: 'not_number', operand, head, column: j, message: `${name}[${j}] is ${describe(v)}: every value must be a number` });
    }
    if (!Number.isFinite(v)) {
      throw inputError({ code: 'not_finite', operand, head, column: j, message: `${name}[${j}] is ${v}: every value must be a finite number` });
    }
    out[j] = v;
  }
  return out;
}

// Each option kind's check of one given value (the engine checks values: a per-key option's
// length, a positive number's sign), and its packed form.
const OPTION_KINDS = {
  boolean(name, value) {
    if (typeof value !== 'boolean') {
      throw inputError({ code: 'not_boolean', operand: name, message: `${name} must be true or false, got ${describe(value)}` });
    }
    return value;
  },
  positive(name, value) {
    if (typeof value !== 'number') {
      throw inputError({ code: 'not_number', operand: name, message: `${name} must be a number > 0, got ${describe(value)}` });
    }
    return value;
  },
  // true/false per key, as keyPadding: a Uint8Array
  perKey(name, value) {
    if (!Array.isArray(value)) {
      throw inputError({
        code: 'not_array',
        operand: name,
        message: `${name} must be an array of true/false, one per key, got ${describe(value)}`,
      });
    }
    if (value.length === 0) {
      throw inputError({
        code: 'empty',
        operand: name,
        message: `${name} is empty: it needs one true/false per key (leave it out for no padding)`,
      });
    }
    const packed = new Uint8Array(value.length);
    value.forEach((p, j) => {
      if (typeof p !== 'boolean') {
        throw inputError({
          code: 'not_boolean',
          operand: name,
          column: j,
          message: `${name}[${j}] is ${describe(p)}: every entry must be true (a padding key) or false`,
        });
      }
      packed[j] = p ? 1 : 0;
    });
    return packed;
  },
};

// The options of compute() other than matrices (`table`: the binding's, above), checked for
// type and filled with their defaults.
function packOptions(input, table) {
  const options = {};
  for (const { key, kind, default: fallback } of table) {
    options[key] = input[key] === undefined ? fallback : OPTION_KINDS[kind](key, input[key]);
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
  const stray = [...HEAD_OPERANDS, ...BIASES].find((name) => multiHead && input[name] !== undefined);
  if (stray) {
    throw inputError({
      code: 'conflict',
      operand: stray,
      message: `${call}() takes either wq, wk, wv (one head) or heads, not both; ${stray} is given with heads${BIASES.includes(stray) ? ` (a head's bias goes in its heads[h].${stray})` : ''}`,
    });
  }
  if (!multiHead && input.bo !== undefined) {
    throw inputError({ code: 'conflict', operand: 'bo', message: 'bo needs heads and wo: pass heads: [{ wq, wk, wv }, ...] with wo and bo' });
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
    for (const name of BIASES) if (input[name] !== undefined) packed.heads[0][name] = packBias(name, input[name]);
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
      for (const name of BIASES) if (head[name] !== undefined) weights[name] = packBias(name, head[name], h);
      return weights;
    });
    if (input.wo !== undefined) packed.wo = packRows('wo', input.wo);
    if (input.bo !== undefined) packed.bo = packBias('bo', input.bo);
  }
  packed.singleHeadNames = !multiHead;
  return packed;
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

// The input object of compute(), backward() and train(), checked and packed for the binding;
// `table` lists its options (raw.attentionOptions()).
function packInput(input, call, table) {
  if (input === null || typeof input !== 'object') {
    throw inputError({
      code: 'not_matrix',
      message: `${call}() takes an object { x, wq, wk, wv }, got ${describe(input)}`,
    });
  }
  const known = [...MATRIX_KEYS, ...table.map((option) => option.key)];
  const unknown = Object.keys(input).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw inputError({
      code: 'unknown_option',
      operand: unknown,
      message: `${call}() got an unknown option ${JSON.stringify(unknown)}; it takes ${known.join(', ')}`,
    });
  }
  return { ...packOperands(input, call), ...packOptions(input, table) };
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
    Object.assign(packed, packState(state, ['optimizer', 'train', 'step', 'moments'], 'from a previous train() call', (s) => {
      const same = s.optimizer === optimizer && Array.isArray(s.train) && s.train.join() === trained.join();
      return same ? null : `state comes from training ${describe(s.train)} with ${describe(s.optimizer)}, not ${trained.join(', ')} with "${optimizer}": pass the state of a call with the same train and optimizer`;
    }));
  }
  return { packed, trained };
}

// The state of a previous call (train()'s or trainModel()'s result.state, holding only `fields`)
// as { step, moments } for the binding, which checks that the moments fit. `mismatch(state)`:
// why it comes from training something else (a conflict), or null.
function packState(state, fields, from, mismatch) {
  checkFields(state, 'state', fields, from);
  const conflict = mismatch(state);
  if (conflict !== null) throw inputError({ code: 'conflict', operand: 'state', message: conflict });
  const step = readInteger(state, 'step', undefined);
  if (step < 0) {
    throw inputError({ code: 'range', operand: 'state', message: `state.step is ${step}: it must be >= 0` });
  }
  if (!(state.moments instanceof Float64Array)) {
    throw inputError({ code: 'not_array', operand: 'state', message: `state.moments must be a Float64Array, got ${describe(state.moments)}` });
  }
  return { step, moments: state.moments };
}
