// Types of the <attention-visualizer> element: `import 'attention-visualizer'` registers it
// (dist/attention-visualizer.mjs); dist/attention-visualizer.js does the same as a classic
// script. docs/authoring.md documents every attribute, property and event.
import type { AttentionOptions, HeadResult } from './attention-engine.js';

export type {
  AttentionEngine, AttentionEngineFactory, AttentionInputError, AttentionLoadError, AttentionWorker,
  ComputeInput, ComputeResult, Matrix, TypedMatrix,
} from './attention-engine.js';

// ---- generated: StepId … AttentionVisualizerAttributes (scripts/make-element-data.mjs) ----
/** Step ids, in the order the element shows them (which ones appear depends on the options). */
export type StepId = 'input' | 'pe' | 'project' | 'scores' | 'bias' | 'scale' | 'softmax' | 'output' | 'heads' | 'concat' | 'wo' | 'learn';
export type PanelName = 'nav' | 'formula' | 'explanation' | 'work' | 'lines' | 'legend' | 'notes' | 'tools';
export type Language = 'zh' | 'en';
export type Theme = 'auto' | 'light' | 'dark';
/** The goals of "How it learns" (the state's `learn.goal`). */
export type LearnGoal = 'previous' | 'self' | 'animal' | 'custom';
/** Its learning rates (Adam's step size, the state's `learn.lr`). */
export type LearningRate = 0.001 | 0.002 | 0.005 | 0.01 | 0.02 | 0.05 | 0.1 | 0.2 | 0.5;
/** The forms of embedCode() and of the tools' embed code. */
export type EmbedForm = 'element' | 'iframe' | 'hugo' | 'mkdocs' | 'jupyter';

/** The attributes, all strings in HTML (matrices as JSON or "1 0; 0 1"). */
export interface AttentionVisualizerAttributes {
  /** A whole state: a share hash (av1.…) or state JSON; the other attributes apply on top · 完整状态 */
  state?: string;
  /** The sentence, split as `tokenize` says · 句子 */
  sentence?: string;
  /** How the sentence is split: char (default without spaces), space or word · 句子的切分方式 */
  tokenize?: 'char' | 'space' | 'word';
  /** Or the tokens as a JSON array, e.g. ["我","爱","你"] · 或直接给出词元 */
  tokens?: string;
  /** The token vectors X: JSON ([[1,0],[0,1]]) or rows separated by ; or new lines (1 0; 0 1) · 词向量矩阵 */
  x?: string;
  /** W_Q, a matrix as for x · W_Q 矩阵 */
  wq?: string;
  /** W_K, a matrix as for x · W_K 矩阵 */
  wk?: string;
  /** W_V, a matrix as for x · W_V 矩阵 */
  wv?: string;
  /** Several heads, or heads with biases: JSON [{"wq":…,"wk":…,"wv":…,"bq"?:[…],"bk"?:[…],"bv"?:[…]}, …] (instead of wq/wk/wv) · 多头，或带偏置的头 */
  heads?: string;
  /** W_O, a matrix as for x · W_O 矩阵 */
  wo?: string;
  /** b_O, the output's bias (with wo): a JSON array of d_model numbers · 输出偏置 b_O（与 wo 一起） */
  bo?: string;
  /** The vectors of a second sentence (cross-attention), a matrix as for x · 交叉注意力第二个句子的向量 */
  context?: string;
  /** The tokens of context, JSON array · 交叉注意力第二个句子的词元 */
  'context-tokens'?: string;
  /** "false" to leave out the division by √d_k · 设为 false 则不除以 √d_k */
  'scale-by-sqrt-dk'?: boolean | 'true' | 'false';
  /** A causal mask (present = on; ="false" = off) · 因果掩码 */
  causal?: boolean | '' | 'true' | 'false';
  /** One flag per key: "0,0,1" or "false,false,true" · 每个键一个填充标记 */
  'key-padding'?: string;
  /** A number above 0, with a decimal point · 大于 0 的数（用小数点） */
  temperature?: number | string;
  /** Sinusoidal positional encoding (present = on; ="false" = off) · 位置编码 */
  'positional-encoding'?: boolean | '' | 'true' | 'false';
  /** ALiBi: a linear bias −m_h·|i − j| by distance added to the scores (present = on; ="false" = off) · ALiBi 线性位置偏置 */
  alibi?: boolean | '' | 'true' | 'false';
  /** Values the reader fills in: a step's matrix (weights), a row (weights[1]) or cells (weights[0][0],output[2][1]), 0-based · 留给读者填写的数 */
  exercise?: string;
  /** Guess first: one step at a time, a question before the step's result is shown (present = on) · 先猜再看：每一步先回答一个问题再看结果 */
  guess?: boolean | '' | 'true' | 'false';
  /** A shipped model by name (learner-words, animal-street, induction), or your own model file by URL (https://…/my.json, ./my.json; same origin, docs/api.md): the sentence read by its tokenizer, its learned vectors and weights; no matrices needed · 使用本项目训练的模型或你自己的模型文件 */
  model?: string;
  /** With model: the model's layer shown step by step, from 1 · 与 model 一起：逐步显示的层（从 1 起） */
  layer?: number | string;
  /** zh or en (default: the nearest lang of the page, else the browser's) · 界面语言 */
  lang?: Language | string;
  /** The step shown first: an id (any case), a number from 1, or all (every step at once) · 起始步骤 */
  step?: StepId | 'all' | number | string;
  /** The head shown first, from 1 · 起始的头 */
  head?: number | string;
  /** Decimal places shown, 1–8 (default 4) · 小数位数 */
  decimals?: number | string;
  /** Which steps to offer, by id: input, pe, project, scores, bias, scale, softmax, output, heads, concat, wo, learn (default all) · 显示哪些步骤 */
  steps?: string;
  /** Which parts to show: nav, formula, explanation, work, lines, legend, notes, tools (default all) · 显示哪些部分 */
  panels?: string;
  /** The full page's editor under the steps; read-only without it · 可编辑 */
  editable?: boolean | '' | 'true' | 'false';
  /** The level of the steps' headings on the host page, 1–6 (what they hold one below; default: h3 steps, h2 editor) · 步骤标题在宿主页中的级别 */
  'heading-level'?: 1 | 2 | 3 | 4 | 5 | 6 | '1' | '2' | '3' | '4' | '5' | '6';
  /** auto (default: follows the page), light or dark · 主题 */
  theme?: Theme;
  /** full: the whole visualizer page, for index.html only (elsewhere refused with a message: use the element, editable, or an iframe); read once, when first connected · 完整页面模式（仅用于 index.html） */
  mode?: 'full';
}
// ---- end of generated ----

/** The engine's attention options as a state holds them: every one present, a list as an array. */
export type AttentionVisualizerOptions = {
  -readonly [K in keyof AttentionOptions]-?: AttentionOptions[K] extends readonly (infer E)[] | undefined ? E[] : Exclude<AttentionOptions[K], undefined>;
};

/** The whole state (the JSON a share link's hash holds). */
export interface AttentionVisualizerState extends AttentionVisualizerOptions {
  version: 1;
  tokens: string[];
  x: number[][];
  heads: { wq: number[][]; wk: number[][]; wv: number[][] }[];
  wo?: number[][];
  context?: { tokens: string[]; x: number[][] };
  /** The values the reader fills in, as the `exercise` attribute reads them ('weights[1],output[2][1]'); '' for none. */
  exercise: string;
  /** "Guess first": the walk asks a question before each step's result (docs/authoring.md `guess`). */
  guess: boolean;
  /** A shipped model's name ('' for none): the matrices are that model's, read from its tokens (docs/authoring.md `model`). */
  model: string;
  /** With `model`: the model's layer (0-based) shown step by step; X is its input after LayerNorm. */
  layer: number;
  /**
   * "How it learns" (the step `learn`): the goal a head is trained toward, a custom goal's
   * n_q × n_k target (rows of weights summing to 1, or free rows of 0), the learning rate and
   * whether X is trained too. Absent until set; dropped as far as it no longer fits the tokens.
   */
  learn?: {
    goal: LearnGoal;
    target?: number[][];
    lr?: LearningRate;
    trainX?: boolean;
  };
  view: {
    /** a step id, or 'all' for every step at once */
    step: StepId | 'all';
    /** 0-based here (the head attribute counts from 1) */
    head: number;
    lang: Language;
    decimals: number;
  };
}

/** What the `state` property takes: some or all fields, merged into the current state and validated. */
export type AttentionVisualizerStateUpdate = Partial<Omit<AttentionVisualizerState, 'view'>> & {
  view?: Partial<AttentionVisualizerState['view']>;
};

/**
 * A result matrix as `result` gives it: arrays of numbers, or from 1024 × 1024 attention cells
 * (heads × queries × keys) on, each row a Float64Array.
 */
export type ResultRows = number[][] | Float64Array[];

/**
 * The engine's result in one shape for one head or several (heads[0] for one head). Masks are
 * rows of booleans, or from 1024 × 1024 cells on rows of Uint8Array (1 = masked), as
 * `fullyMasked` is then one Uint8Array.
 */
export interface AttentionVisualizerResult {
  heads: HeadResult<ResultRows>[];
  concat: ResultRows | null;
  output: ResultRows;
  masked: boolean[][] | Uint8Array[] | null;
  fullyMasked: boolean[] | Uint8Array | null;
  pe: ResultRows | null;
  xWithPe: ResultRows | null;
  contextPe: ResultRows | null;
  contextWithPe: ResultRows | null;
}

export interface AttentionVisualizerEventDetail {
  state: AttentionVisualizerState;
}

/** A cell (or, without `column`, a row) of a result, for `check()`: `matrix` as `compute()` names its results; row, column and head 0-based (`head` with several heads; `output` without it is the heads' combined output). */
export interface AttentionVisualizerCheckedCell {
  matrix: 'q' | 'k' | 'v' | 'scores' | 'scaled' | 'weights' | 'output';
  row: number;
  column?: number;
  head?: number;
}

/** The mistake a wrong value most likely comes from (docs/authoring.md, "Exercises"). */
export type AttentionVisualizerMistake = 'misprint' | 'transposed' | 'no-scaling' | 'scaled-by-dk' | 'column-softmax' | 'wrong-cell' | 'term-slip' | 'rounded-early' | 'truncated';

/** `check()` of one cell: right to the decimals written, else the likely mistake and its value (`wrong`). */
export interface AttentionVisualizerCellAnswer {
  cell: AttentionVisualizerCheckedCell & { column: number };
  correct: boolean;
  /** The true value, float64. */
  expected: number;
  /** The value typed, read as a number. */
  value: number;
  /** The unit of the last digit written (0.01 for "0.34"). */
  precision: number;
  mistake: AttentionVisualizerMistake | null;
  /** The value the mistake gives, or null. */
  wrong: number | null;
  explanation: { zh: string; en: string };
  /** The explanation without the right value, as an exercise's blank shows it. */
  withheld: { zh: string; en: string };
}

/** `check()` of a whole row: right when every cell is; the mistake and `wrong` are the first wrong cell's. */
export interface AttentionVisualizerRowAnswer {
  cell: AttentionVisualizerCheckedCell;
  correct: boolean;
  expected: number[];
  value: number[];
  mistake: AttentionVisualizerMistake | null;
  wrong: number | null;
  explanation: { zh: string; en: string };
  /** The explanation without the right values. */
  withheld: { zh: string; en: string };
  cells: AttentionVisualizerCellAnswer[];
}

/** Every event of the element bubbles and is composed (it crosses shadow roots). */
export interface AttentionVisualizerEventMap extends HTMLElementEventMap {
  /** Once, when the first result is on screen (a listener added late misses it: see `ready`). */
  ready: CustomEvent<AttentionVisualizerEventDetail>;
  /** After every edit and step change. */
  change: CustomEvent<AttentionVisualizerEventDetail>;
  /** After each edit, once its result (or the engine's refusal of it) is on screen. */
  computed: CustomEvent<AttentionVisualizerEventDetail>;
  /** Before a whole state chosen in the element (a preset, a learned example, a state file) replaces the one on screen. */
  replace: CustomEvent<AttentionVisualizerEventDetail>;
  /** After each `check()` (the reader's "Check my answer" too), its result as the detail. */
  answer: CustomEvent<AttentionVisualizerCellAnswer | AttentionVisualizerRowAnswer>;
}

export declare class AttentionVisualizer extends HTMLElement {
  static readonly observedAttributes: string[];
  /** A copy of the complete state; null before the element first connects, unless a state was set by property. */
  get state(): AttentionVisualizerState | null;
  /**
   * Some or all fields, or as text: a share link (or its hash, `av1.…`) or a state's JSON text
   * (what React 19 sets for `state="av1…"`); an invalid state throws a TypeError naming the field.
   */
  set state(value: AttentionVisualizerStateUpdate | string);
  /**
   * A copy of the result on screen, null until computed; it may lag `state` while `computing`.
   * From 1024 × 1024 attention cells on, each row of its matrices is a Float64Array (rows of the
   * masks and `fullyMasked` Uint8Array, 1 = masked) instead of an array of numbers.
   */
  readonly result: AttentionVisualizerResult | null;
  /**
   * Resolved with the element once its first result is on screen (already resolved when asked
   * later, unlike the `ready` event); rejected with an Error whose `code` is the cause when the
   * engine cannot load.
   */
  readonly ready: Promise<AttentionVisualizer>;
  /** True until the result of the newest edit is on screen (a large one computes in a worker). */
  readonly computing: boolean;
  /** The engine's refusal of the newest edit (an overflow, say) in both languages, or null. */
  readonly error: { zh: string; en: string } | null;
  /** The markup that shows exactly this: a script tag and the element, an iframe, Hugo's shortcode, the element for MkDocs, a Jupyter cell. */
  embedCode(form: EmbedForm): string;
  /**
   * Checks a learner's value for a cell against the numbers on screen: right to the decimals
   * written, else the mistake that most likely produced it, explained in zh and en; sends an
   * `answer` event with the same result. Without `column`, the whole row: an array of values, or
   * one text of numbers apart by spaces, semicolons or commas. Throws (an Error with a `code`:
   * `bad_cell` for a cell that is no object, `not_number`, `not_finite`, `unknown_matrix`, `range`,
   * `row_length`, `not_ready` before the engine loads).
   */
  check(cell: AttentionVisualizerCheckedCell & { column: number }, value: string | number): AttentionVisualizerCellAnswer;
  check(cell: Omit<AttentionVisualizerCheckedCell, 'column'>, value: string | Array<string | number>): AttentionVisualizerRowAnswer;
  /** Replaces the whole state, as a link does (`state = …` merges); a state that does not read throws a TypeError, the engine's refusal is shown, not thrown. */
  load(state: AttentionVisualizerState): void;
  /** Full mode: the element's store (its state and undo history), for the page's storage; else null. */
  readonly store: object | null;
  /** Full mode: the state shown, itself rather than a copy (read it, never change it); else null. */
  readonly shownState: AttentionVisualizerState | null;
  /** Full mode: the message over the steps ({key, params} of the string table), until the next whole state; or null. Set by the page itself. */
  readonly statusMessage: { key: string; params?: Record<string, unknown> } | null;

  addEventListener<K extends keyof AttentionVisualizerEventMap>(type: K, listener: (this: AttentionVisualizer, event: AttentionVisualizerEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof AttentionVisualizerEventMap>(type: K, listener: (this: AttentionVisualizer, event: AttentionVisualizerEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-visualizer': AttentionVisualizer;
  }
}
