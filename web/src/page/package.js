// The package's main entry (dist/attention-visualizer.mjs): `import 'attention-visualizer'`
// registers <attention-visualizer>. The engine comes from attention-visualizer/engine
// (dist/attention-engine.mjs); imports run in order, so it is there before any element starts.
import './package-engine.js';

export { AttentionVisualizer } from '../element/element.js';
