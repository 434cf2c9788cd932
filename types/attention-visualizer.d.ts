// Types of the <attention-visualizer> element: `import 'attention-visualizer'` registers it
// (dist/attention-visualizer.mjs); dist/attention-visualizer.js does the same as a classic
// script. docs/authoring.md documents every attribute, property and event.
import type { MultiHeadResult, Rows } from './attention-engine.js';

export type {
  AttentionEngine, AttentionEngineFactory, AttentionInputError, AttentionLoadError, AttentionWorker,
  ComputeInput, ComputeResult, Matrix, TypedMatrix,
} from './attention-engine.js';

/** Step ids, in the order the element shows them (which ones appear depends on the options). */
export type StepId = 'input' | 'pe' | 'project' | 'scores' | 'scale' | 'softmax' | 'output' | 'heads' | 'concat' | 'wo';
export type PanelName = 'nav' | 'formula' | 'explanation' | 'work' | 'lines' | 'legend' | 'notes' | 'tools';
export type Language = 'zh' | 'en';
export type Theme = 'auto' | 'light' | 'dark';

/** The whole state (the JSON a share link's hash holds). */
export interface AttentionVisualizerState {
  version: 1;
  tokens: string[];
  x: number[][];
  heads: { wq: number[][]; wk: number[][]; wv: number[][] }[];
  wo?: number[][];
  context?: { tokens: string[]; x: number[][] };
  causal: boolean;
  keyPadding: boolean[];
  scaleBySqrtDk: boolean;
  temperature: number;
  positionalEncoding: boolean;
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

/** The engine's result in one shape for one head or several (heads[0] for one head). */
export interface AttentionVisualizerResult {
  heads: MultiHeadResult['heads'];
  concat: Rows | null;
  output: Rows;
  masked: boolean[][] | null;
  fullyMasked: boolean[] | null;
  pe: Rows | null;
  xWithPe: Rows | null;
  contextPe: Rows | null;
  contextWithPe: Rows | null;
}

export interface AttentionVisualizerEventDetail {
  state: AttentionVisualizerState;
}

export interface AttentionVisualizerEventMap extends HTMLElementEventMap {
  /** Once, when the first result is on screen (a listener added late misses it: see `ready`). */
  ready: CustomEvent<AttentionVisualizerEventDetail>;
  /** After every edit and step change (bubbles, composed). */
  change: CustomEvent<AttentionVisualizerEventDetail>;
  /** After each edit, once its result (or the engine's refusal of it) is on screen. */
  computed: Event;
  /** Full mode: before a whole state chosen in the element (a preset, a state file) replaces the one on screen. */
  replace: CustomEvent<AttentionVisualizerEventDetail>;
}

/** The attributes, all strings in HTML (matrices as JSON or "1 0; 0 1"). */
export interface AttentionVisualizerAttributes {
  state?: string;
  sentence?: string;
  tokenize?: 'char' | 'space' | 'word';
  tokens?: string;
  x?: string;
  wq?: string;
  wk?: string;
  wv?: string;
  heads?: string;
  wo?: string;
  context?: string;
  'context-tokens'?: string;
  causal?: boolean | '' | 'true' | 'false';
  'key-padding'?: string;
  'scale-by-sqrt-dk'?: boolean | 'true' | 'false';
  temperature?: number | string;
  'positional-encoding'?: boolean | '' | 'true' | 'false';
  lang?: Language | string;
  steps?: string;
  step?: StepId | 'all' | number | string;
  head?: number | string;
  panels?: string;
  editable?: boolean | '' | 'true' | 'false';
  decimals?: number | string;
  theme?: Theme;
  /** `full`: the whole page (index.html), in the element's own children; read when first connected. */
  mode?: 'full';
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
  /** The markup that shows exactly this: a script tag and the element, or an iframe. */
  embedCode(form: 'element' | 'iframe'): string;
  /** Full mode: loads a whole state as a link does (the engine's refusal is shown, not thrown). */
  load(state: AttentionVisualizerState): void;
  /** Full mode: the element's store (its state and undo history), for the page's storage; else null. */
  readonly store: object | null;
  /** A message over the steps ({key, params} of the string table), until the next whole state; or null. */
  statusMessage: { key: string; params?: Record<string, unknown> } | null;

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
