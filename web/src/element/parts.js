// Two parts of <attention-visualizer> made from what the element lets them do (`actions`,
// element.js): the export panel (views/tools.js) and "How it learns" (views/learn.js).
//   actions: { state(), shownState(), engine(), ctx(lang), editable(), apply(state),
//              replace(state), rerenderTools(), displayAttributes(), baseUrl() }
import { Tools } from '../views/tools.js';
import { createLearner } from '../views/learn.js';
import { learnedState } from '../state/learned.js';
import { embedCode } from './embed-code.js';

// The export panel: of the state shown; an imported state file replaces the work (whole) or is merged.
export const makeTools = (actions) => new Tools({
  state: () => actions.shownState(),
  ctx: (lang) => actions.ctx(lang),
  editable: () => actions.editable(),
  apply: (state, { whole = false } = {}) => (whole ? actions.replace(state) : actions.apply(state)),
  rerender: () => actions.rerenderTools(),
  embedCode: (form) => embedCode(form, actions.shownState(), actions.displayAttributes(), actions.baseUrl(), document.baseURI),
  baseUrl: actions.baseUrl,
});

// "How it learns": trained weights become the state's, of the head trained.
export const makeLearner = (actions) => createLearner({
  engine: () => actions.engine(),
  commit: ({ head, x, c, wq, wk, bq, bk }) => {
    const s = actions.state();
    actions.apply({
      ...s, x, ...(c ? { context: { ...s.context, x: c } } : {}),
      // (a head's b_Q and b_K train with its W_Q and W_K)
      heads: s.heads.map((h, i) => (i === head ? { ...h, wq, wk, ...(bq ? { bq } : {}), ...(bk ? { bk } : {}) } : h)),
    });
  },
  setSettings: (learn) => actions.apply({ ...actions.state(), learn }),
  loadLearned: (name) => {
    const { lang, decimals } = actions.state().view;
    actions.replace(learnedState(name, { lang, decimals }));
  },
});
