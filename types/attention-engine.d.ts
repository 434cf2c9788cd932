// Types of the attention engine: `import { createAttentionEngine } from 'attention-visualizer/engine'`
// (or its default export), the global of dist/attention-engine.js, and require() under node.
// README.md's "JS API" section documents every field.

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

/** One head's projections. */
export interface HeadWeights {
  wq: Matrix;
  wk: Matrix;
  wv: Matrix;
}

/** The options next to the matrices; each has the default given. */
export interface ComputeOptions {
  /** n_k × d_context: keys and values come from it (cross-attention). Default: x. */
  context?: Matrix;
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
}

export type ComputeInput = SingleHeadInput | MultiHeadInput;

/** The seven steps of one head. */
export interface HeadResult<M = Rows> {
  q: M;
  k: M;
  v: M;
  scores: M;
  /** scores / √d_k / temperature; -Infinity where masked. */
  scaled: M;
  weights: M;
  output: M;
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
export interface ComputeFormat {
  /** true: every matrix as { rows, cols, data } (the fast form for large inputs). */
  typed?: boolean;
}

/** What an input error's `code` says (README.md, "JS API"); 'worker' only from a worker. */
export type InputErrorCode =
  | 'not_matrix' | 'not_number' | 'not_boolean' | 'not_array' | 'empty' | 'empty_row' | 'ragged'
  | 'not_finite' | 'range' | 'limit' | 'shape' | 'conflict' | 'unknown_option' | 'overflow' | 'worker';

/** Thrown by compute() (and rejected by a worker's compute()) for bad input. */
export interface AttentionInputError extends Error {
  code: InputErrorCode;
  /** The operand or option, or the step that overflowed ('q', 'scores', …). */
  operand: string | undefined;
  /** 0-based; undefined where it does not apply. */
  row: number | undefined;
  column: number | undefined;
  head: number | undefined;
}

/** Why createAttentionEngine() rejected: no WebAssembly here, a CSP without 'wasm-unsafe-eval', or another cause (message). */
export interface AttentionLoadError extends Error {
  code: 'no_wasm' | 'csp' | 'load';
  cause: unknown;
}

export interface AttentionEngine {
  compute(input: SingleHeadInput, format: ComputeFormat & { typed: true }): TypedSingleHeadResult;
  compute(input: MultiHeadInput, format: ComputeFormat & { typed: true }): TypedMultiHeadResult;
  compute(input: SingleHeadInput, format?: ComputeFormat & { typed?: false }): SingleHeadResult;
  compute(input: MultiHeadInput, format?: ComputeFormat & { typed?: false }): MultiHeadResult;
  compute(input: ComputeInput, format?: ComputeFormat): ComputeResult | TypedComputeResult;
  /** Bytes of wasm memory the module holds (it grows, never shrinks). */
  memoryBytes(): number;
}

/** A second engine in a Web Worker: the typed form, computed off the page's thread, in order. */
export interface AttentionWorker {
  compute(input: SingleHeadInput): Promise<TypedSingleHeadResult>;
  compute(input: MultiHeadInput): Promise<TypedMultiHeadResult>;
  compute(input: ComputeInput): Promise<TypedComputeResult>;
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
