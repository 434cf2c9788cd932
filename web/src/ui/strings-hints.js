// The strings of "What to look at" (hints.js, under a preset's weights), in Chinese and
// English; part of i18n.js's one table.

export const HINT_STRINGS = {
  presetNoteTitle: { zh: '看点', en: 'What to look at' },
  // "What to look at" (hints.js): each preset's pattern, said with the weights on screen now,
  // or what they show instead when the pattern is not there (a temperature, a mask, padding).
  presetNote_tutorial: {
    zh: '教程的原例：每个注意力权重都在 {lo} 到 {hi} 之间，接近 1/3——这组数字太接近，几乎分不出谁更相关。',
    en: 'The tutorial’s own example: every attention weight is between {lo} and {hi}, close to 1/3 — these numbers are too close to tell the tokens apart.',
  },
  presetNote_tutorialSpread: {
    zh: '教程的原例。现在的权重并不都接近 1/3：从 {lo} 到 {hi}，最大的是 {query} → {key}。',
    en: 'The tutorial’s own example. The weights on screen now are not all close to 1/3: they run from {lo} to {hi}, the largest {query} → {key}.',
  },
  presetNote_english: {
    zh: '教程的数字配上英文词元：权重和教程一样，每个都在 {lo} 到 {hi} 之间，接近 1/3。',
    en: 'The tutorial’s numbers with English tokens: the same weights, each between {lo} and {hi}, close to 1/3.',
  },
  presetNote_englishSpread: {
    zh: '教程的数字配上英文词元。现在的权重并不都接近 1/3：从 {lo} 到 {hi}，最大的是 {query} → {key}。',
    en: 'The tutorial’s numbers with English tokens. The weights on screen now are not all close to 1/3: they run from {lo} to {hi}, the largest {query} → {key}.',
  },
  presetNote_animal: {
    zh: '看注意力权重中 it 这一行：最大的权重 {animal} 在 animal 上，street 只分到 {street}（it 要找活的名词；street 是名词但不是活的）。',
    en: 'Look at row “it” of the attention weights: its largest weight, {animal}, is on “animal”, and “street” gets {street} (it looks for a noun that is alive; “street” is a noun but not alive).',
  },
  presetNote_animalClose: {
    zh: '看注意力权重中 it 这一行：现在没有哪个键明显突出——{first} 是 {a}，{second} 是 {b}，相差太小。',
    en: 'Look at row “it” of the attention weights: no key stands out now — “{first}” has {a}, “{second}” {b}, too close to call.',
  },
  presetNote_animalOther: {
    zh: '看注意力权重中 it 这一行：现在最大的权重 {a} 在 {first} 上，不在 animal 上（animal 是 {animal}）。',
    en: 'Look at row “it” of the attention weights: its largest weight now, {a}, is on “{first}”, not on “animal” ({animal}).',
  },
  presetNote_previous: {
    zh: '每个词元把最大的权重给它前面那个词元（第一个前面没有，就给自己）：至少 {least}，给其他词元的最多 {most}。由位置决定，与词无关——两个 the 看向不同的地方。',
    en: 'Each token gives its largest weight to the token before it (the first, with none before it, to itself): {least} or more, against at most {most} for any other. Position decides, not the word — the two “the”s look at different places.',
  },
  presetNote_previousSome: {
    zh: '这组数字让每个词元看前一个词元，但现在只有 {n} 行中的 {k} 行明显如此（前一个词元的权重至少是其他任何一个的 1.5 倍）。',
    en: ({ k, n }) => `These numbers make each token look at the token before it, but on screen now ${k} of ${n} rows clearly do (the weight before at least 1.5 times any other).`,
  },
  presetNote_same: {
    zh: '每个词元看向同一个词的每一次出现（每一次至少 {least}，别的词最多 {most}）：三个 the 互相看，两个 cat 互相看；只出现一次的词只看自己。',
    en: 'Each token looks at every copy of its own word ({least} or more on each, at most {most} on any other word): the three “the”s at each other, the two “cat”s at each other; a word that occurs once looks at itself.',
  },
  presetNote_sameSome: {
    zh: '这组数字让每个词元看同一个词的每一次出现，但现在只有 {n} 行中的 {k} 行明显如此（每一次出现的权重至少是别的词的 1.5 倍）。',
    en: ({ k, n }) => `These numbers make each token look at every copy of its own word, but on screen now ${k} of ${n} rows clearly do (each copy at least 1.5 times any other word).`,
  },
};
