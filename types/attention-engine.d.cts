// require('attention-visualizer/engine') under node: module.exports is the factory itself.
import type { AttentionEngineFactory } from './attention-engine.js';

declare const createAttentionEngine: AttentionEngineFactory;
export = createAttentionEngine;
