// The strings of "How it learns" (learn.js, learned.js, the state's `learn` field), in
// Chinese and English; part of i18n.js's one table.

export const LEARN_STRINGS = {
  // "How it learns" (learn.js, learned.js, the state's `learn` field)
  stepLearnTitle: { zh: '注意力怎样学会：训练 W_Q 和 W_K', en: 'How attention learns: training W_Q and W_K' },
  stepLearnFormula: {
    zh: 'L = −(1/n) Σ_i Σ_j 目标_ij · log Weights_ij，W ← W − 学习率 · ∂L/∂W（Adam）',
    en: 'L = −(1/n) Σ_i Σ_j target_ij · log Weights_ij,  W ← W − rate · ∂L/∂W (Adam)',
  },
  stepLearnPlain: {
    zh: '注意力权重是由 W_Q 和 W_K 定出来的。给每一行定一个想要的分布（目标），算出损失对每个数的梯度，再把 W_Q、W_K 往让损失变小的方向挪一点——一遍遍重复，注意力就学会了这个模式。',
    en: 'The attention weights come from W_Q and W_K. Give each row the distribution you want (the goal), take the gradient of the loss with respect to every number, and move W_Q and W_K a little the way that lowers the loss — again and again, and the attention learns the pattern.',
  },
  learnTooMany: {
    zh: '训练演示最多支持每边 {max} 个词元（目标网格每个格子一个查询和一个键）。',
    en: 'Training here is for up to {max} tokens a side (the goal grid has a cell for each query and key).',
  },
  learnedLabel: { zh: '训练好的示例：', en: 'Trained examples:' },
  learnedButton_previous: { zh: '学会看前一个词', en: 'Learned: previous word' },
  learnedButton_self: { zh: '学会看自己（我爱你）', en: 'Learned: itself (我爱你)' },
  learnedButton_animal: { zh: '学会 it → animal', en: 'Learned: it → animal' },
  learnedNote_previous: {
    zh: '这组 W_Q、W_K 是本引擎训练出来的：从随机数（种子 11，d_k = 4）出发，目标“每个词看前一个词”，Adam 400 步。每一行最大的权重都落在前一个词上。',
    en: 'These W_Q and W_K were trained by this engine: from random numbers (seed 11, d_k = 4) toward the goal “each word looks at the previous word”, 400 Adam steps. Every row’s largest weight is on the word before.',
  },
  learnedNote_self: {
    zh: '这是教程的“我爱你”，目标“每个词看自己”，Adam 300 步，连 X 一起训练：只训练 W_Q、W_K 做不到，因为“爱”的向量是“我”和“你”的平均。现在每一行最大的权重都在对角线上。',
    en: 'The tutorial’s 我爱你 trained toward “each word looks at itself”, 300 Adam steps, X trained too: W_Q and W_K alone cannot do it, as 爱’s vector is the mean of 我’s and 你’s. Every row’s largest weight is now on the diagonal.',
  },
  learnedNote_animal: {
    zh: '“it 指的是谁”的句子，W_Q、W_K 从随机数（种子 5）出发，目标“it → animal”（其他行不设目标），Adam 200 步：it 那一行几乎全部权重都给了 animal。',
    en: 'The “what it refers to” sentence, W_Q and W_K from random numbers (seed 5) toward the goal “it → animal” (no goal for the other rows), 200 Adam steps: the row of “it” gives almost all its weight to “animal”.',
  },
  learnGoal: { zh: '目标', en: 'Goal' },
  learnGoal_previous: { zh: '每个词看前一个词', en: 'Each word looks at the previous word' },
  learnGoal_self: { zh: '每个词看自己', en: 'Each word looks at itself' },
  learnGoal_animal: { zh: 'it → animal', en: 'it → animal' },
  learnGoal_custom: { zh: '自己画', en: 'Paint my own' },
  learnGridHint: {
    zh: '在目标网格上点击或拖动：点中的格子成为这一行的目标；Shift+点击（或按 +）给这个格子加一份权重再归一化；Delete 清空这一行（不设目标）。方向键移动，回车或空格选中。',
    en: 'Click or drag on the goal grid: the cell becomes its row’s target; Shift+click (or +) adds a unit of weight to it and rescales the row to sum 1; Delete clears the row (no goal). Arrow keys move, Enter or Space picks.',
  },
  learnGridLabel: { zh: '目标网格：行是查询，列是键', en: 'Goal grid: rows are queries, columns keys' },
  learnGoalName: { zh: '目标', en: 'Goal' },
  learnGridCaption: { zh: '每行一个分布', en: 'a distribution per row' },
  learnCell: { zh: '{query} → {key}：目标 {value}', en: '{query} → {key}: target {value}' },
  learnCellFree: { zh: '{query} → {key}：这一行没有目标', en: '{query} → {key}: no goal for this row' },
  learnWeightsNow: { zh: '现在的权重', en: 'weights now' },
  learnTrain: { zh: '训练', en: 'Train' },
  learnPause: { zh: '暂停', en: 'Pause' },
  learnStep: { zh: '走一步', en: 'One step' },
  learnReset: { zh: '重置', en: 'Reset' },
  learnRate: { zh: '学习率', en: 'Learning rate' },
  learnTrainX: { zh: '也训练 X', en: 'Also train X' },
  learnTrainXHint: {
    zh: '只训练 W_Q、W_K 不一定能达到每个目标：如果一个键的向量是别的键的混合，它的分数也只能是它们分数的同样混合。勾选“也训练 X”让词向量也一起动。',
    en: 'W_Q and W_K alone cannot reach every goal: when a key’s vector is a mix of other keys’, its scores are the same mix of theirs. Tick “Also train X” to let the vectors move too.',
  },
  learnStatus: { zh: '第 {n} 步，损失 {value}', en: 'Step {n}, loss {value}' },
  // why a run stopped (learnmath.js stopReason) and the verdict on the goal (learn.js verdictText)
  learnStopConverged: {
    zh: '这次训练了 {n} 步后停下：目标达到了——损失离这个目标能有的最小值（{floor}）不到 {gap}。',
    en: ({ n, floor, gap }) => `Stopped after ${n} ${n === 1 ? 'step' : 'steps'}: goal reached — the loss is within ${gap} of the least this goal allows (${floor}).`,
  },
  learnStopPlateau: {
    zh: '这次训练了 {n} 步后停下：损失不再下降（最近 {window} 步离这个目标的最小值 {floor} 近了不到 1%）。',
    en: ({ n, window, floor }) => `Stopped after ${n} ${n === 1 ? 'step' : 'steps'}: the loss has stopped falling (it came less than 1% closer to the least this goal allows, ${floor}, over the last ${window} steps).`,
  },
  learnStopCap: {
    zh: '这次训练了 {n} 步，是一次训练的上限；损失还在下降，再按“训练”接着练。',
    en: 'Stopped after {n} steps, the most one run takes; the loss was still falling: press Train to go on.',
  },
  learnReasonMean: {
    zh: '用这些输入达不到这个目标：“{key}”的向量是“{p}”和“{q}”的平均，所以每一行里“{key}”的分数都是它们的平均，它的权重不可能比它们两个都大——可目标要“{query}”这一行更多地看“{key}”。',
    en: 'This goal cannot be reached with these inputs: {key}’s vector is the mean of {p}’s and {q}’s, so in every row {key}’s score is the mean of theirs and its weight can never be above both — yet the goal asks the row of {query} for more weight on {key}.',
  },
  learnReasonMix: {
    zh: '用这些输入达不到这个目标：“{key}”的向量是 {a} ×“{p}”+ {b} ×“{q}”，所以每一行里“{key}”的分数都是它们分数的同样混合，它的权重不可能比它们两个都大——可目标要“{query}”这一行更多地看“{key}”。',
    en: 'This goal cannot be reached with these inputs: {key}’s vector is {a} × {p}’s + {b} × {q}’s, so in every row {key}’s score is the same mix of theirs and its weight can never be above both — yet the goal asks the row of {query} for more weight on {key}.',
  },
  learnReasonSame: {
    zh: '用这些输入达不到这个目标：“{key}”和“{p}”的向量一样，所以每一行里它们的权重都相等——可目标要“{query}”这一行给它们不同的权重。',
    en: 'This goal cannot be reached with these inputs: {key}’s vector is the same as {p}’s, so in every row their weights are equal — yet the goal asks the row of {query} to weigh them differently.',
  },
  learnReasonTrainX: { zh: '勾选“也训练 X”让词向量也能动。', en: 'Tick “Also train X” to let the vectors move.' },
  learnNoCause: {
    zh: '输入里看不出简单的原因：调小学习率，或勾选“也训练 X”，也许能更接近目标。',
    en: 'No simple cause shows in the inputs: a lower learning rate, or “Also train X”, may get closer.',
  },
  learnNoCauseX: { zh: '输入里看不出简单的原因：调小学习率也许能更接近目标。', en: 'No simple cause shows in the inputs: a lower learning rate may get closer.' },
  learnNoGoal: { zh: '还没有目标：选一个，或在网格上画。', en: 'No goal yet: pick one, or paint it on the grid.' },
  learnOverflow: {
    zh: '这一步数值溢出了（{message}），权重停在上一步。请调小学习率再试。',
    en: 'This step overflowed ({message}); the weights stay as they were. Lower the learning rate and try again.',
  },
  learnCurve: { zh: '损失曲线', en: 'Loss curve' },
  learnCurveCaption: { zh: '损失随训练步数的变化（越低越接近目标）。', en: 'The loss over the training steps (lower is closer to the goal).' },
  learnSteps: { zh: '{n} 步', en: ({ n }) => `${n} ${n === 1 ? 'step' : 'steps'}` },
  learnMatrices: { zh: 'W_Q 和 W_K：现在的值和从开始以来的变化', en: 'W_Q and W_K: now, and their change since the start' },
  learnNow: { zh: '现在', en: 'now' },
  learnChange: { zh: '变化', en: 'change' },
  learnChangeHint: {
    zh: 'Δ 矩阵是现在减去开始时的值，两个 Δ 用同一把颜色尺：颜色越深，训练改动越大。小到按位数显示为 0 的数写成 1.2e-6 的形式。',
    en: 'The Δ matrices are now minus the start, both on one colour scale: the deeper the colour, the more training changed that number. A number too small for the decimal places is written like 1.2e-6.',
  },
  backTitle: { zh: '反向传播，一步一步', en: 'The backward pass, step by step' },
  backPlain: {
    zh: '梯度从损失倒着流回去：先到权重，经过 softmax 的雅可比矩阵到缩放后的分数，除以 √d_k 到分数，再到 Q、K，最后到 W_Q、W_K。点击或用方向键选一个格子，看它的数字是怎么算出来的。',
    en: 'The gradient flows back from the loss: to the weights, through the softmax’s Jacobian to the scaled scores, ÷ √d_k to the scores, then to Q and K, and at last to W_Q and W_K. Point at a cell (or move with the arrow keys) to see how its number is made.',
  },
  legendGradients: {
    zh: '梯度的颜色：蓝色为负，白色为 0，红色为正；七个梯度用同一把尺，±{max} 为最深的颜色。小到按位数显示为 0 的数写成 1.2e-6 的形式。',
    en: 'Colours of the gradients: blue negative, white 0, red positive, on one scale for all seven, the deepest colour at ±{max}. A number too small for the decimal places is written like 1.2e-6.',
  },
  backTerms: { zh: '（{n} 项之和）', en: '(a sum of {n} terms)' },
  backFree: { zh: '这个格子没有目标（或被遮挡），损失不直接依赖它的权重。', en: 'This cell has no target (or is masked): the loss does not depend on its weight directly.' },
  backJacobian: {
    zh: 'softmax 的雅可比：一个权重变大，同一行的其他权重一起变小，所以要减去这一行的加权平均。',
    en: 'The softmax’s Jacobian: when one weight grows the others in its row shrink, hence the row’s weighted mean is subtracted.',
  },
  backDivisor: { zh: '缩放因子', en: 'the scale' },
  backUpdate: {
    zh: '训练的每一步把这个梯度（经 Adam 调整后）乘以学习率，从矩阵里减掉。',
    en: 'Each training step subtracts this gradient (as Adam rescales it) times the learning rate from the matrix.',
  },

  // "How it learns", from scratch: the induction model trained live (learninduction.js, state/learninduction.js)
  inductionTitle: { zh: '从零训练一个模型：看归纳头怎样形成', en: 'Train a model from scratch: watch an induction head form' },
  inductionPlain: {
    zh: '一个 2 层、每层 2 个头、只有注意力的 Transformer（因果掩码），从随机数出发，在随机字母序列上学习预测下一个字母；每条序列里有一段 8–11 个字母会在后面随机位置再出现一次。要猜中被复制的字母，它得找到当前字母上一次出现的位置，再抄下紧随其后的那个字母——这就是“归纳头”（Olsson 等，2022）。损失先在一个平台上停很久，然后突然下降：这时某个头的前缀匹配得分升起来。目标：一个头在 {count} 条从未训练过的序列上的前缀匹配得分 ≥ {goal}。数据和初始权重与随页面提供的 induction 模型相同，训练在后台线程里进行，页面保持流畅。',
    en: 'A 2-layer, 2-head, attention-only transformer (causal) starts from random numbers and learns to predict the next letter of random sequences in which a stretch of 8–11 letters reappears later, at a random place. To predict a copied letter it must find where the current letter appeared before and copy the letter that came after it: an induction head (Olsson et al. 2022). The loss sits on a plateau for a long while, then drops: that is when one head’s prefix-matching score rises. Goal: a head with a prefix-matching score ≥ {goal} on {count} sequences it never trained on. The data and the initial weights are those of the induction model the page ships; the steps run in a background thread, so the page stays responsive.',
  },
  inductionTrain: { zh: '从零开始训练', en: 'Train from scratch' },
  inductionResume: { zh: '继续', en: 'Resume' },
  inductionSave: { zh: '保存模型（JSON）', en: 'Save the model (JSON)' },
  inductionStart: { zh: '还没有训练：所有权重都是随机数（种子 3）。', en: 'Not trained yet: every weight is a random number (seed 3).' },
  inductionStatus: {
    zh: '第 {n} 步：损失 {loss}（最近 {window} 步的平均）；前缀匹配得分最高的是第 {layer} 层第 {head} 个头，{score}',
    en: 'Step {n}: loss {loss} (mean of the last {window} steps); best prefix-matching score {score}, layer {layer} head {head}',
  },
  inductionPausing: {
    zh: '第 {n} 步：正在暂停（这一段训练完就停）……',
    en: 'Step {n}: pausing (once the chunk under way is done)…',
  },
  inductionNoWorker: {
    zh: '这个页面不允许后台线程，训练在页面自己的线程上进行，每一段训练时页面会卡顿一下。',
    en: 'This page allows no background thread: training runs on the page’s own thread, which stalls for each chunk of steps.',
  },
  inductionStop_converged: {
    zh: '训练了 {n} 步后停下：已收敛——最近 {window} 步的平均损失下降不到 {gain}%。',
    en: 'Stopped after {n} steps: converged — the mean loss fell by less than {gain}% over the last {window} steps.',
  },
  inductionStop_plateau: {
    zh: '训练了 {n} 步后停下：停在平台上——最近 {patience} 步的平均损失下降不到 {gain}%，也没有哪个头达到目标。',
    en: 'Stopped after {n} steps: a plateau — the mean loss fell by less than {gain}% over the last {patience} steps, and no head reached the goal.',
  },
  inductionStop_cap: { zh: '训练了 {n} 步后停下：这是一次训练的上限。', en: 'Stopped after {n} steps, the most a run takes.' },
  inductionGoalMet: {
    zh: '目标达到了：第 {layer} 层第 {head} 个头是归纳头——在未训练过的序列上，被复制的字母平均把 {score} 的注意力放在它上一次出现之后的那个字母上（目标 ≥ {goal}）。',
    en: 'Goal reached: layer {layer} head {head} is an induction head — on sequences never trained on, a copied letter puts {score} of its attention, on average, on the letter after its earlier copy (goal ≥ {goal}).',
  },
  inductionGoalMissed: {
    zh: '目标没有达到：前缀匹配得分最高的是第 {layer} 层第 {head} 个头，{score}，不到 {goal}。',
    en: 'Goal not reached: the best prefix-matching score is {score} (layer {layer} head {head}), below {goal}.',
  },
  inductionGoalAt: {
    zh: '第 {n} 步时第一次有头达到目标：正是损失突然下降的时候。',
    en: 'A head first reached the goal at step {n}, as the loss dropped.',
  },
  inductionCurve: { zh: '从零训练的损失曲线', en: 'Loss curve of the run from scratch' },
  inductionCurveCaption: {
    zh: '训练损失，每 {every} 步取平均（nats/词元；瞎猜是 ln 24 = {ln}）。',
    en: 'The training loss, averaged over each {every} steps (nats per token; guessing is ln 24 = {ln}).',
  },
  inductionPrefixChart: { zh: '每个头的前缀匹配得分随步数的变化', en: 'Each head’s prefix-matching score over the steps' },
  inductionPrefixCaption: {
    zh: '前缀匹配：被复制的字母放在“它上一次出现之后那个字母”上的平均注意力，每个头一条线，颜色同下表。虚线是目标 {goal}。',
    en: 'Prefix matching: the mean attention a copied letter puts on the letter after its earlier copy, a line a head, coloured as in the table below. The dashed line is the goal, {goal}.',
  },
  inductionPreviousChart: { zh: '每个头的前一词元得分随步数的变化', en: 'Each head’s previous-token score over the steps' },
  inductionPreviousCaption: {
    zh: '前一词元：每个字母放在紧挨着的前一个字母上的平均注意力。归纳头要靠另一层的前一词元头才能工作。',
    en: 'Previous token: the mean attention each letter puts on the letter just before it. An induction head needs a previous-token head in the layer below.',
  },
  inductionHead: { zh: '头', en: 'Head' },
  inductionPrefix: { zh: '前缀匹配', en: 'Prefix matching' },
  inductionPrevious: { zh: '前一词元', en: 'Previous token' },
  inductionHeadName: { zh: '第 {layer} 层第 {head} 个头', en: 'Layer {layer} head {head}' },
  inductionTableCaption: { zh: '第 {n} 步的得分', en: 'Scores at step {n}' },
  inductionTableEmpty: { zh: '得分（训练开始后出现）', en: 'Scores (once training starts)' },
  inductionScoresHint: {
    zh: '每训练 {chunk} 步，在 {count} 条从未训练过的序列上量一次，和随页面提供的模型卡片用的是同一种量法。',
    en: 'Measured every {chunk} steps on {count} sequences never trained on, as the shipped model’s card measures them.',
  },
  inductionHeadsTitle: {
    zh: '第 {step} 步时，每个头在一条未训练过的序列上的注意力权重（行是查询，列是键）：',
    en: 'At step {step}, each head’s attention weights on a sequence never trained on (rows are queries, columns keys):',
  },
  inductionSequenceHint: {
    zh: '标出的字母是复制段里有更早副本的查询：归纳头在这些行上看向更早副本之后的那个字母，亮点落在对角线下方的一条斜线上。',
    en: 'The marked letters are the copied queries with an earlier copy: an induction head’s rows there look at the letter after that copy, a bright stripe below the diagonal.',
  },
  inductionTileScores: { zh: '前缀匹配 {prefix}，前一词元 {previous}', en: 'prefix matching {prefix}, previous token {previous}' },
  inductionReadout: {
    zh: '{query}（第 {i} 个）→ {key}（第 {j} 个）：{value}',
    en: '{query} (position {i}) → {key} (position {j}): {value}',
  },

  probLearn: {
    zh: '要是 {goal, target?, lr?, trainX?} 形式的对象。',
    en: 'must be an object { goal, target?, lr?, trainX? }.',
  },
  probLearnTarget: {
    zh: '要是 {rows} × {cols} 的矩阵，每个数在 0 到 1 之间，每行的和是 1（或整行为 0，不设目标）。',
    en: 'must be a {rows} × {cols} matrix of numbers from 0 to 1, each row summing to 1 (or all 0: no goal).',
  },
  probLearnTargetOnly: { zh: '只在 goal 为 custom 时使用。', en: 'is only for goal custom.' },
  probLearnGoal: { zh: '{name} 不适用于这些词元（可选：{list}）。', en: '{name} does not apply to these tokens (choose {list}).' },
};
