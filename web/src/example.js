// The worked example of the tutorial ("finding a person in a classroom").
export const EXAMPLE = {
  sentence: '我爱你',
  x: '1 0\n0.5 0.5\n0 1',
  wq: '0.5 0.2\n0.1 0.6',
  wk: '0.4 0.3\n0.2 0.7',
  wv: '0.8 0.1\n0.3 0.9',
};
