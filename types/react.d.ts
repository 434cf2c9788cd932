// <attention-visualizer> in React's JSX (React 19 types):
//   import 'attention-visualizer';            // registers the element
//   import type {} from 'attention-visualizer/react';
//   <attention-visualizer sentence="我爱你" step="softmax" editable ref={ref} />
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { AttentionVisualizer, AttentionVisualizerAttributes } from './attention-visualizer.js';

export type AttentionVisualizerProps = DetailedHTMLProps<HTMLAttributes<AttentionVisualizer>, AttentionVisualizer>
  & AttentionVisualizerAttributes;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'attention-visualizer': AttentionVisualizerProps;
    }
  }
}
