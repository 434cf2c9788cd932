// Types of the attention engine: `import { createAttentionEngine } from 'attention-visualizer/engine'`
// (or its default export), the global of dist/attention-engine.js, and require() under node.
// docs/api.md documents every field.

/** Rows of numbers: n × d, every row the same length (a row may be a Float64Array). */
export type Matrix = ReadonlyArray<ReadonlyArray<number> | Float64Array>;
/** A result matrix as arrays of rows of float64 numbers. */
export type Rows = number[][];
/** A result matrix in the typed form: row-major `data`, `rows` × `cols`. */
export interface TypedMatrix {
  rows: number;
  cols: number;
  data: Float64Array;
}
/** A mask in the typed form: 1 where query i may not look at key j. */
export interface TypedMask {
  rows: number;
  cols: number;
  data: Uint8Array;
}

/** One head's projections, and its optional biases added to every row: Q = X·W_Q + b_Q. */
export interface HeadWeights {
  wq: Matrix;
  wk: Matrix;
  wv: Matrix;
  /** d_k numbers. */
  bq?: ReadonlyArray<number> | Float64Array;
  /** d_k numbers. */
  bk?: ReadonlyArray<number> | Float64Array;
  /** d_v numbers. */
  bv?: ReadonlyArray<number> | Float64Array;
}

/**
 * The attention options (the binding's table, cpp/bindings/attention_bindings.cpp kOptions); each
 * has the default given. The element's state holds each of them (AttentionVisualizerState).
 */
export interface AttentionOptions {
  /** Query i looks only at keys j ≤ i. Default false. */
  causal?: boolean;
  /** One per key; true marks a padding key that no query attends to. */
  keyPadding?: readonly boolean[];
  /** false leaves out the division by √d_k. Default true. */
  scaleBySqrtDk?: boolean;
  /** Finite and > 0: the scaled scores are divided by it. Default 1. */
  temperature?: number;
  /** Adds the sinusoidal positional encoding to x (and to context). Default false. */
  positionalEncoding?: boolean;
  /** ALiBi: head h of H adds −m_h·|i − j| (m_h = 2^(−8(h+1)/H)) to its scaled scores, before the temperature. Default false. */
  alibi?: boolean;
}

/** The options next to the matrices: the second sentence and the attention options. */
export interface ComputeOptions extends AttentionOptions {
  /** n_k × d_context: keys and values come from it (cross-attention). Default: x. */
  context?: Matrix;
}

/** One head: X·W_Q, X·W_K, X·W_V and the steps after them. */
export interface SingleHeadInput extends ComputeOptions, HeadWeights {
  /** n × d_model, one row per token. */
  x: Matrix;
}

/** Several heads (instead of wq, wk, wv), optionally with W_O. */
export interface MultiHeadInput extends ComputeOptions {
  x: Matrix;
  heads: readonly HeadWeights[];
  /** (h·d_v) × d_model: output = concat·W_O. */
  wo?: Matrix;
  /** d_model numbers, only with wo: output = concat·W_O + b_O. */
  bo?: ReadonlyArray<number> | Float64Array;
}

export type ComputeInput = SingleHeadInput | MultiHeadInput;

/** The seven steps of one head. */
export interface HeadResult<M = Rows> {
  q: M;
  k: M;
  v: M;
  scores: M;
  /** (scores / √d_k [+ bias]) / temperature; -Infinity where masked. */
  scaled: M;
  weights: M;
  output: M;
  /** With `alibi`: ALiBi's bias −m_h·|i − j| (n_q × n_k), never masked. */
  bias?: M;
}

/** Present with `causal` or `keyPadding` (masked, fullyMasked) and `positionalEncoding` (the rest). */
export interface ResultExtras<M = Rows, Mask = boolean[][], Flags = boolean[]> {
  masked?: Mask;
  fullyMasked?: Flags;
  pe?: M;
  xWithPe?: M;
  contextPe?: M;
  contextWithPe?: M;
}

export type SingleHeadResult<M = Rows, Mask = boolean[][], Flags = boolean[]> = HeadResult<M> & ResultExtras<M, Mask, Flags>;

export interface MultiHeadResult<M = Rows, Mask = boolean[][], Flags = boolean[]> extends ResultExtras<M, Mask, Flags> {
  heads: HeadResult<M>[];
  /** The heads' outputs side by side, n_q × h·d_v. */
  concat: M;
  /** concat·W_O, or concat without wo. */
  output: M;
}

export type TypedSingleHeadResult = SingleHeadResult<TypedMatrix, TypedMask, Uint8Array>;
export type TypedMultiHeadResult = MultiHeadResult<TypedMatrix, TypedMask, Uint8Array>;
export type ComputeResult = SingleHeadResult | MultiHeadResult;
export type TypedComputeResult = TypedSingleHeadResult | TypedMultiHeadResult;

/** compute()'s second argument. */
export type ComputeFormat = {
  /** true: every matrix as { rows, cols, data } (the fast form for large inputs). */
  typed?: boolean;
  reuse?: false;
} | {
  typed: true;
  /**
   * The matrices as views of the engine's own buffers, reused from call to call, valid until
   * the engine's next call (docs/api.md); only with `typed: true`.
   */
  reuse?: boolean;
};

/** What an input error's `code` says (docs/api.md); 'worker' only from a worker. */
export type InputErrorCode =
  | 'not_matrix' | 'not_number' | 'not_boolean' | 'not_array' | 'not_object' | 'not_string' | 'choice' | 'empty'
  | 'empty_row' | 'ragged' | 'not_finite' | 'range' | 'limit' | 'shape' | 'conflict' | 'unknown_option'
  | 'overflow' | 'worker' | 'released';

/**
 * backward()'s second argument: where the gradient of a scalar loss L enters — at the output
 * (G = dL/doutput, the output's shape), at the attention weights (S = dL/dweights, n_q × n_k;
 * in the heads form one per head, null for a head L does not see), or both — or a loss of
 * train(), whose value backward() then returns as `loss`.
 */
export type SingleHeadSeed =
  | { output: Matrix; weights?: Matrix }
  | { output?: Matrix; weights: Matrix }
  | { loss: 'weights'; target: Matrix }
  | { loss: 'output'; target: Matrix };
export type MultiHeadSeed =
  | { output: Matrix; weights?: ReadonlyArray<Matrix | null> }
  | { output?: Matrix; weights: ReadonlyArray<Matrix | null> }
  | { loss: 'weights'; target: ReadonlyArray<Matrix | null> }
  | { loss: 'output'; target: Matrix };

/** dL/d(every input matrix), in the input's structure; temperature: dL/dtemperature. */
export interface SingleHeadInputGradients<M = Rows> {
  x: M;
  wq: M;
  wk: M;
  wv: M;
  /** each bias given: its gradient (number[], or Float64Array in the typed form) */
  bq?: M extends Rows ? number[] : Float64Array;
  bk?: M extends Rows ? number[] : Float64Array;
  bv?: M extends Rows ? number[] : Float64Array;
  context?: M;
  temperature: number;
}
export interface MultiHeadInputGradients<M = Rows> {
  x: M;
  heads: Array<{ wq: M; wk: M; wv: M; bq?: M extends Rows ? number[] : Float64Array; bk?: M extends Rows ? number[] : Float64Array; bv?: M extends Rows ? number[] : Float64Array }>;
  wo?: M;
  bo?: M extends Rows ? number[] : Float64Array;
  context?: M;
  temperature: number;
}
/** dL/d(X + PE) and dL/d(C + PE), with positionalEncoding. */
export interface GradientExtras<M = Rows> {
  xWithPe?: M;
  contextWithPe?: M;
}
/** What backward() returns: input and result gradients, and the loss's value for a { loss, target } seed. */
export interface SingleHeadGradients<M = Rows> {
  input: SingleHeadInputGradients<M>;
  result: HeadResult<M> & GradientExtras<M>;
  loss?: number;
}
export interface MultiHeadGradients<M = Rows> {
  input: MultiHeadInputGradients<M>;
  result: { heads: HeadResult<M>[]; concat: M; output: M } & GradientExtras<M>;
  loss?: number;
}

/** The matrices train() can change (wq, wk, wv: those of every head). */
export type TrainableName = 'x' | 'context' | 'wq' | 'wk' | 'wv' | 'wo';
/** What the next train() call needs to go on as if both were one call. */
export interface TrainState {
  readonly optimizer: 'sgd' | 'adam';
  readonly train: readonly TrainableName[];
  readonly step: number;
  /** Adam's first then second moments (empty for sgd). */
  readonly moments: Float64Array;
}
/** train()'s options; Target: one matrix (one-head form) or one per head (heads form) for loss 'weights'. */
export interface TrainOptions<Target> {
  loss: 'output' | 'weights';
  /** 'output': the output wanted; 'weights': the weights wanted. */
  target: Matrix | Target;
  train: readonly TrainableName[];
  /** Default 'sgd'. */
  optimizer?: 'sgd' | 'adam';
  learningRate: number;
  /** 1 to 10 000; default 1. */
  steps?: number;
  /** 0 to 2³² − 1: picks each step's rows with rowsPerStep; default 0. */
  seed?: number;
  /** Query rows in each step's loss; default every row. */
  rowsPerStep?: number;
  state?: TrainState;
}
/** The input with the trained matrices replaced, the losses (steps + 1), and the state to go on. */
export interface TrainResult<Input> {
  input: Input;
  losses: number[];
  state: TrainState;
}

/** A LayerNorm's parameters (torch.nn.LayerNorm, eps 1e-5): dModel values each. */
export interface ModelNorm<V = ReadonlyArray<number>> {
  gain: V;
  bias: V;
}
/** One head of a model's layer: wq, wk dModel × d_k, wv dModel × d_v; biases optional. */
export interface ModelHead<M = Matrix, V = ReadonlyArray<number>> {
  wq: M;
  wk: M;
  wv: M;
  bq?: V;
  bk?: V;
  bv?: V;
}
/** The MLP after a layer's attention: act(m·w1 + b1)·w2 + b2, w1 dModel × f, w2 f × dModel. */
export interface ModelMlp<M = Matrix, V = ReadonlyArray<number>> {
  w1: M;
  b1?: V;
  w2: M;
  b2?: V;
  activation: 'gelu' | 'relu';
}
/** A pre-norm layer: norm1 before the attention, norm2 before the MLP (each optional). */
export interface ModelLayer<M = Matrix, V = ReadonlyArray<number>> {
  norm1?: ModelNorm<V>;
  heads: ReadonlyArray<ModelHead<M, V>>;
  /** (h·d_v) × dModel. */
  wo: M;
  bo?: V;
  norm2?: ModelNorm<V>;
  mlp?: ModelMlp<M, V>;
}
/** A small transformer (docs/api.md, "Models"): one JSON-able object. */
export interface Model {
  vocab: ReadonlyArray<string>;
  dModel: number;
  maxTokens: number;
  /** Query i sees keys j ≤ i; default false. */
  causal?: boolean;
  /** vocab × dModel. */
  embed: Matrix;
  /** maxTokens × dModel, or compute()'s sinusoidal encoding. */
  positions: Matrix | 'sinusoidal';
  layers: ReadonlyArray<ModelLayer>;
  finalNorm?: ModelNorm;
  /** dModel × vocab, or embedᵀ. */
  unembed: Matrix | 'tied';
  unembedBias?: ReadonlyArray<number>;
  /** Metadata, kept as given and never read by the engine. */
  name?: string;
  title?: unknown;
  description?: unknown;
  tokenizer?: unknown;
  training?: unknown;
  source?: unknown;
  license?: unknown;
}
/** runModel()'s third argument. */
export type RunModelOptions = ComputeFormat & {
  /** Heads switched off (ablation): each one's output enters its layer's concatenation as 0. */
  headsOff?: ReadonlyArray<{ layer: number; head: number }>;
};
/** What one layer computed: input (what the heads read), the attention's steps, the MLP's. */
export interface ModelLayerRun<M = Rows> {
  input: M;
  attention: { heads: HeadResult<M>[]; concat: M; output: M };
  mlp?: { input: M; hidden: M; activated: M; output: M };
}
export interface ModelRun<M = Rows> {
  /** x₀ … x_L: the residual stream before each layer and after the last. */
  residual: M[];
  layers: ModelLayerRun<M>[];
  /** What the unembedding reads: LN(x_L) with a final norm, else x_L. */
  finalInput: M;
  logits: M;
  probabilities: M;
}
/** A model's arrays in its structure: its gradients, or (trainModel) its trained parameters. */
export interface ModelArrays<M = Rows, V = number[]> {
  embed: M;
  positions?: M;
  layers: {
    norm1?: ModelNorm<V>;
    heads: ModelHead<M, V>[];
    wo: M;
    bo?: V;
    norm2?: ModelNorm<V>;
    mlp?: { w1: M; b1?: V; w2: M; b2?: V };
  }[];
  finalNorm?: ModelNorm<V>;
  unembed?: M;
  unembedBias?: V;
}
export interface ModelGradients<M = Rows, V = number[]> {
  /** The mean cross-entropy over the positions with a target. */
  loss: number;
  gradients: ModelArrays<M, V>;
}
/** trainModel()'s options: one step per batch, in order. */
export interface TrainModelOptions {
  /** targets: one id per position, −1 for no loss there. */
  batches: ReadonlyArray<{ ids: ReadonlyArray<number>; targets: ReadonlyArray<number> }>;
  /** Default 'adam' (torch.optim.Adam's defaults). */
  optimizer?: 'adam' | 'sgd';
  learningRate: number;
  /** The previous call's result.state: its steps and Adam's moments carry over, as if both were one call. */
  state?: TrainModelState;
}
/** What the next trainModel() call on this model needs to go on as if both were one call. */
export interface TrainModelState {
  readonly optimizer: 'sgd' | 'adam';
  /** Steps taken so far (Adam's bias correction counts from them). */
  readonly step: number;
  /** Adam's first then second moments of every parameter (empty for sgd). */
  readonly moments: Float64Array;
}
export interface TrainModelResult<M = Model> {
  /** A new model: the input's fields with every parameter replaced (the input is not modified); a new LoadedModel for a LoadedModel. */
  model: M;
  /** Each batch's loss before its step. */
  losses: number[];
  /** Pass it back as options.state to go on. */
  state: TrainModelState;
}
/** A model read, checked and kept in the engine by loadModel(): its calls skip copying it in again. */
export interface LoadedModel {
  /** Its parameters as a model object (the loaded object's fields and metadata). */
  toModel(): Model;
  /** Frees its memory in the engine; using it afterwards throws (code 'released'). Idempotent. */
  release(): void;
}

/** Thrown by compute() (and rejected by a worker's compute()) for bad input. */
export interface AttentionInputError extends Error {
  code: InputErrorCode;
  /** The operand or option, or the step that overflowed ('q', 'scores', …). */
  operand: string | undefined;
  /** 0-based; undefined where it does not apply. */
  row: number | undefined;
  column: number | undefined;
  head: number | undefined;
  /** A model's errors: the 0-based layer, where it applies. */
  layer?: number;
  /** A model's errors: the array by its path ('layers[1].heads[0].wq', 'ids', 'batches[2].targets'). */
  path?: string;
}

/** Why createAttentionEngine() rejected: no WebAssembly here, a CSP without 'wasm-unsafe-eval', or another cause (message). */
export interface AttentionLoadError extends Error {
  code: 'no_wasm' | 'csp' | 'load';
  cause: unknown;
}

export interface AttentionEngine {
  compute(input: SingleHeadInput, format: ComputeFormat & { typed: true }): TypedSingleHeadResult;
  compute(input: MultiHeadInput, format: ComputeFormat & { typed: true }): TypedMultiHeadResult;
  compute(input: SingleHeadInput, format?: ComputeFormat & { typed?: false; reuse?: false }): SingleHeadResult;
  compute(input: MultiHeadInput, format?: ComputeFormat & { typed?: false; reuse?: false }): MultiHeadResult;
  compute(input: ComputeInput, format?: ComputeFormat): ComputeResult | TypedComputeResult;
  /** The gradients of a scalar loss whose gradient enters as `gradient` (docs/api.md). */
  backward(input: SingleHeadInput, gradient: SingleHeadSeed, format: { typed: true }): SingleHeadGradients<TypedMatrix>;
  backward(input: MultiHeadInput, gradient: MultiHeadSeed, format: { typed: true }): MultiHeadGradients<TypedMatrix>;
  backward(input: SingleHeadInput, gradient: SingleHeadSeed, format?: { typed?: false }): SingleHeadGradients;
  backward(input: MultiHeadInput, gradient: MultiHeadSeed, format?: { typed?: false }): MultiHeadGradients;
  /** `steps` steps of gradient descent (docs/api.md). */
  train(input: SingleHeadInput, options: TrainOptions<Matrix>): TrainResult<SingleHeadInput>;
  train(input: MultiHeadInput, options: TrainOptions<ReadonlyArray<Matrix | null>>): TrainResult<MultiHeadInput>;
  /** A model's forward pass, every intermediate (docs/api.md, "Models"). */
  runModel(model: Model | LoadedModel, ids: ReadonlyArray<number>, options: RunModelOptions & { typed: true }): ModelRun<TypedMatrix>;
  runModel(model: Model | LoadedModel, ids: ReadonlyArray<number>, options?: RunModelOptions & { typed?: false }): ModelRun;
  /** The loss and dL/d(every parameter); targets −1: no loss at that position. */
  modelGradients(model: Model | LoadedModel, ids: ReadonlyArray<number>, targets: ReadonlyArray<number>, format: { typed: true }): ModelGradients<TypedMatrix, Float64Array>;
  modelGradients(model: Model | LoadedModel, ids: ReadonlyArray<number>, targets: ReadonlyArray<number>, format?: { typed?: false }): ModelGradients;
  /** One optimizer step per batch. */
  trainModel(model: Model, options: TrainModelOptions): TrainModelResult;
  trainModel(model: LoadedModel, options: TrainModelOptions): TrainModelResult<LoadedModel>;
  /** The model read, checked and kept in the engine until release(): pass it to runModel, modelGradients, trainModel. */
  loadModel(model: Model): LoadedModel;
  /** Bytes of wasm memory the module holds (it grows, never shrinks). */
  memoryBytes(): number;
}

/** A second engine in a Web Worker: the typed form, computed off the page's thread, in order. */
export interface AttentionWorker {
  compute(input: SingleHeadInput): Promise<TypedSingleHeadResult>;
  compute(input: MultiHeadInput): Promise<TypedMultiHeadResult>;
  compute(input: ComputeInput): Promise<TypedComputeResult>;
  backward(input: SingleHeadInput, gradient: SingleHeadSeed): Promise<SingleHeadGradients<TypedMatrix>>;
  backward(input: MultiHeadInput, gradient: MultiHeadSeed): Promise<MultiHeadGradients<TypedMatrix>>;
  train(input: SingleHeadInput, options: TrainOptions<Matrix>): Promise<TrainResult<SingleHeadInput>>;
  train(input: MultiHeadInput, options: TrainOptions<ReadonlyArray<Matrix | null>>): Promise<TrainResult<MultiHeadInput>>;
  runModel(model: Model, ids: ReadonlyArray<number>, options?: Omit<RunModelOptions, 'typed' | 'reuse'>): Promise<ModelRun<TypedMatrix>>;
  modelGradients(model: Model, ids: ReadonlyArray<number>, targets: ReadonlyArray<number>): Promise<ModelGradients<TypedMatrix, Float64Array>>;
  trainModel(model: Model, options: TrainModelOptions): Promise<TrainModelResult>;
  /**
   * Gives a result of compute() back once it is no longer read: its buffers move to the worker
   * (its arrays are empty from then on) and later results are written into them instead of
   * fresh memory. Buffers the worker did not give, or gave back already, are left alone.
   */
  recycle(result: TypedComputeResult): void;
  /** Stops the worker; pending and later calls reject with code 'worker'. */
  terminate(): void;
}

export interface AttentionEngineFactory {
  /** The one engine of this page or process: every call returns the same promise. */
  (): Promise<AttentionEngine>;
  /** Throws where Web Workers do not exist; a worker that cannot start rejects every call with code 'worker'. */
  startWorker(): AttentionWorker;
}

export declare const createAttentionEngine: AttentionEngineFactory;
export default createAttentionEngine;

declare global {
  /** Defined by the classic scripts (dist/attention-engine.js, dist/attention-visualizer.js). */
  var createAttentionEngine: AttentionEngineFactory | undefined;
}
