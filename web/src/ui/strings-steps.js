// The strings of the pipeline diagram (pipeline.js) and of the plain steps' titles, formulas
// and words (steps.js), in Chinese and English; part of i18n.js's one table.

export const STEP_STRINGS = {
  // The pipeline diagram (pipeline.js): what each stage is called aloud, and its drawn words
  pipelineLabel: { zh: '计算流程：每个阶段都可以点开', en: 'The computation, stage by stage: each stage opens its step' },
  pipelineVariantKey: {
    zh: '虚线框：选项加上的阶段，普通的注意力里没有（{list}）。',
    en: 'Dashed: a stage an option adds, not in plain attention ({list}).',
  },
  stageLabel: { zh: '{text} {shape}：{name}——第 {n} 步，共 {total} 步', en: '{text} {shape}: {name} — step {n} of {total}' },
  stage_x: { zh: '输入 X', en: 'Input X' },
  stage_c: { zh: '上下文 C', en: 'Context C' },
  stage_pe: { zh: 'X 加位置编码', en: 'X plus positional encoding' },
  stage_peC: { zh: 'C 加位置编码', en: 'C plus positional encoding' },
  stage_q: { zh: '查询 Q', en: 'Queries Q' },
  stage_k: { zh: '键 K', en: 'Keys K' },
  stage_v: { zh: '值 V', en: 'Values V' },
  stage_scores: { zh: '分数 Q·Kᵀ', en: 'Scores Q·Kᵀ' },
  stage_bias: { zh: '加上 ALiBi 距离偏置', en: 'Add the ALiBi distance bias' },
  stage_scale: { zh: '除以 √d_k', en: 'Divide by √d_k' },
  stage_scaleT: { zh: '除以 √d_k，再除以温度 T', en: 'Divide by √d_k and by the temperature T' },
  stage_t: { zh: '除以温度 T', en: 'Divide by the temperature T' },
  stage_unscaled: { zh: '不缩放', en: 'No scaling' },
  stage_mask: { zh: '掩码', en: 'Mask' },
  stage_softmax: { zh: 'softmax', en: 'Softmax' },
  stage_output: { zh: '权重乘 V', en: 'Weights times V' },
  stage_heads: { zh: '全部 {n} 个头', en: 'All {n} heads' },
  stage_concat: { zh: '拼接各头', en: 'Concatenate the heads' },
  stage_wo: { zh: '乘 W_O', en: 'Times W_O' },
  stage_learn: { zh: '学习：训练 W_Q、W_K 以达到目标', en: 'How it learns: training W_Q and W_K toward a goal' },
  stageText_mask: { zh: '掩码', en: 'mask' },
  stageText_heads: { zh: '{n} 个头', en: '{n} heads' },
  stageText_concat: { zh: '拼接', en: 'concat' },
  stageText_learn: { zh: '学习', en: 'learn' },

  stepInputTitle: { zh: '每个词元一个向量', en: 'One vector per token' },
  stepInputFormula: { zh: 'X：n × d_model，每个词元一行', en: 'X: n × d_model, one row per token' },
  stepInputPlain: {
    zh: '把句子想成一间教室：每个词元是一个人，用一行数字（向量）来描述。',
    en: 'Think of the sentence as a classroom: each token is a person, described by one row of numbers (a vector).',
  },
  stepProjectTitle: { zh: '投影出 Q、K、V', en: 'Project into Q, K and V' },
  stepProjectFormula: { zh: 'Q = X·W_Q，K = X·W_K，V = X·W_V', en: 'Q = X·W_Q,  K = X·W_K,  V = X·W_V' },
  stepProjectFormulaFrom: { zh: 'Q = {q}·W_Q，K = {kv}·W_K，V = {kv}·W_V', en: 'Q = {q}·W_Q,  K = {kv}·W_K,  V = {kv}·W_V' },
  stepProjectPlain: {
    zh: '同一个人的向量乘上三个矩阵，得到三样东西：Q 是我心里想找的特征，K 是每个人身上贴的标签，V 是每个人实际能告诉我的信息。',
    en: 'Each person’s vector is multiplied by three matrices: Q is what I am looking for, K is the label each person wears, V is what each person can tell me.',
  },
  stepScoresTitle: { zh: '注意力分数', en: 'Scores' },
  stepScoresFormula: { zh: 'Scores = Q·Kᵀ', en: 'Scores = Q·Kᵀ' },
  stepScoresPlain: {
    zh: '我扫视全班：拿我想找的特征（我的 Q）和每个人的标签（他的 K）做点积，匹配得越好分数越高。每一行是一个人给全班打的分。',
    en: 'I look around the room: the dot product of what I look for (my Q) with each person’s label (their K) is high when they match. Each row is one person scoring everyone.',
  },
  stepScaleTitle: { zh: '除以 √d_k', en: 'Divide by √d_k' },
  stepScaleFormula: { zh: 'Scaled = Scores / √d_k', en: 'Scaled = Scores / √d_k' },
  stepScalePlain: {
    zh: '向量越长，点积天然越大。除以 √d_k 让分数保持在合适的范围，下一步的 softmax 才不会只盯着一个人。',
    en: 'Longer vectors give larger dot products by themselves. Dividing by √d_k keeps the scores in range so the softmax of the next step does not fix on one person.',
  },
  stepSoftmaxTitle: { zh: 'softmax：注意力权重', en: 'Softmax: attention weights' },
  stepSoftmaxFormula: { zh: 'Weights = softmax(Scaled)，逐行', en: 'Weights = softmax(Scaled), row by row' },
  stepSoftmaxPlain: {
    zh: '每一行的分数变成加起来等于 1 的比例：我该听每个人多少。先减去这一行的最大值，exp 才不会溢出，结果不变。',
    en: 'Each row of scores becomes shares that add up to 1: how much I listen to each person. The row’s maximum is subtracted first so exp cannot overflow; the result is the same.',
  },
  stepOutputTitle: { zh: '输出：按权重混合 V', en: 'Output: V mixed by the weights' },
  stepOutputFormula: { zh: 'Output = Weights·V', en: 'Output = Weights·V' },
  stepOutputPlain: {
    zh: '我从每个人那里听来的信息（V）按权重加起来，就是我的新向量：它带上了整句话的上下文。',
    en: 'What I hear from each person (their V), added up by the weights, is my new vector: it now carries context from the whole sentence.',
  },
};
