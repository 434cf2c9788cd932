// Imported by the page (main.js) before element.js: this bundle is index.html's, where
// <attention-visualizer mode="full"> is the page itself (attributes.js FULL_MODE).
import { FULL_MODE } from '../element/attributes.js';

FULL_MODE.allowed = true;
