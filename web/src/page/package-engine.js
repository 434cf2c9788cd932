// The ES module build's engine for the element: the same global the classic script defines
// (createAttentionEngine), set before element.js runs, unless a page loaded an engine first.
import { createAttentionEngine } from 'attention-visualizer/engine';

if (typeof globalThis.createAttentionEngine !== 'function') globalThis.createAttentionEngine = createAttentionEngine;
