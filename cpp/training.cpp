#include "training.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <utility>

#include "backward.h"

namespace attn {

namespace {

// torch.optim.Adam's defaults
constexpr double kBeta1 = 0.9;
constexpr double kBeta2 = 0.999;
constexpr double kEpsilon = 1e-8;

// mulberry32, the generator of the page's "fill randomly" (web/src/io/random.js): uniform in
// [0, 1).
class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : a_(seed) {}
  double next() {
    a_ += 0x6D2B79F5u;
    uint32_t t = a_;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }

 private:
  uint32_t a_;
};

// rows[i] = 1 for the query rows of step `step` (0-based, over every call): every row, or k of
// the n drawn by the first k swaps of a Fisher–Yates shuffle.
void pick_rows(uint32_t seed, long long step, int n, long long k,
               std::vector<unsigned char>* rows) {
  if (k == 0 || k >= n) {
    rows->assign(n, 1);
    return;
  }
  rows->assign(n, 0);
  Mulberry32 rng(seed + static_cast<uint32_t>(step) * 0x9E3779B9u);  // mod 2^32
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int i = 0; i < k; i++) {
    const int j = i + static_cast<int>(rng.next() * (n - i));  // uniform in i … n − 1
    std::swap(order[i], order[j]);
    (*rows)[order[i]] = 1;
  }
}

// The values of the trained matrices of p (a MultiHeadInput, or its InputGradients), in the
// moments' order: x, context, per head W_Q, b_Q, W_K, b_K, W_V, b_V, then W_O, b_O (a bias
// trains with its matrix, where `in` has it).
template <class Params>
std::vector<std::vector<double>*> trained_values(Params& p, const MultiHeadInput& in,
                                                 const Trained& t) {
  std::vector<std::vector<double>*> out;
  if (t.x) out.push_back(&p.x.data);
  if (t.context) out.push_back(&p.context.data);
  for (size_t h = 0; h < p.heads.size(); h++) {
    auto& head = p.heads[h];
    const Head& given = in.heads[h];
    if (t.wq) out.push_back(&head.wq.data);
    if (t.wq && !given.bq.empty()) out.push_back(&head.bq);
    if (t.wk) out.push_back(&head.wk.data);
    if (t.wk && !given.bk.empty()) out.push_back(&head.bk);
    if (t.wv) out.push_back(&head.wv.data);
    if (t.wv && !given.bv.empty()) out.push_back(&head.bv);
  }
  if (t.wo) out.push_back(&p.wo.data);
  if (t.wo && !in.bo.empty()) out.push_back(&p.bo);
  return out;
}

int count_rows(const std::vector<unsigned char>& rows) {
  return static_cast<int>(std::count(rows.begin(), rows.end(), 1));
}

// Mean squared error over the rows flagged in `rows`; with d_output, its gradient (n_q, d_out).
double output_mse(const Matrix& output, const Matrix& target,
                  const std::vector<unsigned char>& rows, Matrix* d_output) {
  const double n = static_cast<double>(count_rows(rows)) * output.cols;
  if (d_output != nullptr) d_output->resize(output.rows, output.cols);
  double sum = 0.0;
  for (int i = 0; i < output.rows; i++) {
    for (int j = 0; j < output.cols; j++) {
      const double diff = output.at(i, j) - target.at(i, j);
      if (rows[i]) sum += diff * diff;
      if (d_output != nullptr) d_output->at(i, j) = rows[i] ? 2.0 * diff / n : 0.0;
    }
  }
  return sum / n;
}

// Cross-entropy of the weights of every head with a target, over the rows flagged in `rows`
// and the unmasked cells; with d_scaled, its gradient at each head's Scaled.
double weights_cross_entropy(const MultiHeadResult& f, const std::vector<Matrix>& targets,
                             const std::vector<unsigned char>& rows,
                             std::vector<Matrix>* d_scaled) {
  const Mask& mask = f.mask;
  int n_targets = 0;
  for (const Matrix& t : targets) n_targets += t.rows > 0;
  const double n = static_cast<double>(n_targets) * count_rows(rows);
  if (d_scaled != nullptr) d_scaled->resize(targets.size());
  double sum = 0.0;
  for (size_t h = 0; h < targets.size(); h++) {
    const Matrix& t = targets[h];
    if (d_scaled != nullptr) {  // 0 rows: not in the loss; else 0 but where computed below
      (*d_scaled)[h].resize(t.rows, t.cols);
      std::fill((*d_scaled)[h].data.begin(), (*d_scaled)[h].data.end(), 0.0);
    }
    if (t.rows == 0) continue;
    const AttentionResult& r = f.heads[h];
    for (int i = 0; i < mask.n_q; i++) {
      if (!rows[i] || mask.fully_masked[i]) continue;  // no weights: nothing to compare
      // log Weights[i][j] = Scaled[i][j] − max − log Σ_l exp(Scaled[i][l] − max), finite even
      // where the weight underflows to 0
      double max = -INFINITY;
      for (int j = 0; j < mask.n_k; j++) {
        if (!mask.at(i, j) && r.scaled.at(i, j) > max) max = r.scaled.at(i, j);
      }
      double exp_sum = 0.0;
      double target_sum = 0.0;
      for (int j = 0; j < mask.n_k; j++) {
        if (mask.at(i, j)) continue;
        exp_sum += std::exp(r.scaled.at(i, j) - max);
        target_sum += t.at(i, j);
      }
      const double log_sum = std::log(exp_sum);
      for (int j = 0; j < mask.n_k; j++) {
        if (mask.at(i, j)) continue;
        sum -= t.at(i, j) * (r.scaled.at(i, j) - max - log_sum);
        if (d_scaled != nullptr) {
          (*d_scaled)[h].at(i, j) = (r.weights.at(i, j) * target_sum - t.at(i, j)) / n;
        }
      }
    }
  }
  return sum / n;
}

// The target of o.loss against the input (whose shapes are already checked).
Error check_target(const MultiHeadInput& in, const TrainOptions& o) {
  const int n_q = in.x.rows;
  const int n_k = in.context.rows > 0 ? in.context.rows : in.x.rows;
  const int n_heads = static_cast<int>(in.heads.size());
  const int d_out = in.wo.rows > 0 ? in.x.cols : n_heads * in.heads[0].wv.cols;
  auto bad_shape = [](const std::string& label, const Matrix& m, int rows, int cols,
                      const std::string& what, int head) {
    std::ostringstream msg;
    msg << label << " is " << m.rows << " × " << m.cols << " but must be " << rows << " × " << cols
        << " (" << what << ")";
    return make_error(ErrorCode::shape, "target", msg.str()).in_head(head);
  };
  if (o.loss == Loss::output_mse) {
    if (o.target.rows != n_q || o.target.cols != d_out) {
      return bad_shape("target", o.target, n_q, d_out, "the output's shape, n_q × d_out", -1);
    }
  } else {
    if (static_cast<int>(o.target_weights.size()) != n_heads) {
      return make_error(ErrorCode::shape, "target",
                        "target has " + std::to_string(o.target_weights.size()) +
                            " weight matrices but there are " + std::to_string(n_heads) +
                            " heads: one per head (or null for a head left out of the loss)");
    }
    int given = 0;
    for (int h = 0; h < n_heads; h++) {
      const Matrix& m = o.target_weights[h];
      if (m.rows == 0) continue;
      given++;
      const std::string label = indexed_label(h, "target");
      const int head = h;
      if (m.rows != n_q || m.cols != n_k) {
        return bad_shape(label, m, n_q, n_k, "the weights' shape, n_q × n_k", head);
      }
      for (int i = 0; i < m.rows; i++) {
        for (int j = 0; j < m.cols; j++) {
          if (m.at(i, j) >= 0) continue;
          std::ostringstream msg;
          msg << label << "[" << i << "][" << j << "] is " << m.at(i, j)
              << ": target weights must be >= 0 (a distribution over the keys)";
          return make_error(ErrorCode::range, "target", msg.str()).in_head(head).at(i, j);
        }
      }
    }
    if (given == 0) {
      return make_error(ErrorCode::empty, "target",
                        "target has no weight matrix: give one for at least one head");
    }
  }

  return Error{};
}

// The options' values against the input (whose shapes are already checked).
Error check_options(const MultiHeadInput& in, const TrainOptions& o, const TrainState& state,
                    long long n_values) {
  const int n_q = in.x.rows;
  const int n_k = in.context.rows > 0 ? in.context.rows : in.x.rows;
  const int n_heads = static_cast<int>(in.heads.size());
  const long long cells = static_cast<long long>(n_heads) * n_q * n_k;
  if (cells > kMaxTrainAttentionCells) {
    std::ostringstream msg;
    msg << "heads × queries × keys = " << n_heads << " × " << n_q << " × " << n_k << " is " << cells
        << ", more than the " << kMaxTrainAttentionCells
        << " supported for training: use fewer tokens or heads";
    return make_error(ErrorCode::limit, "x", msg.str());
  }
  if (!std::isfinite(o.learning_rate)) {
    return make_error(ErrorCode::not_finite, "learningRate",
                      "learningRate must be a finite number > 0");
  }
  if (o.learning_rate <= 0) {
    std::ostringstream msg;
    msg << "learningRate is " << o.learning_rate << ": it must be > 0";
    return make_error(ErrorCode::range, "learningRate", msg.str());
  }
  if (o.steps < 1) {
    return make_error(ErrorCode::range, "steps",
                      "steps is " + std::to_string(o.steps) + ": it must be at least 1");
  }
  if (o.steps > kMaxTrainSteps) {
    return make_error(ErrorCode::limit, "steps",
                      "steps is " + std::to_string(o.steps) + ", more than the " +
                          std::to_string(kMaxTrainSteps) +
                          " supported in one call: call again to go on (pass the state)");
  }
  if (o.rows_per_step < 0 || o.rows_per_step > n_q) {
    return make_error(ErrorCode::range, "rowsPerStep",
                      "rowsPerStep is " + std::to_string(o.rows_per_step) +
                          ": it must be from 1 to the number of query rows, " +
                          std::to_string(n_q) + " (or 0 for every row)");
  }
  const Trained& t = o.trained;
  if (!(t.x || t.context || t.wq || t.wk || t.wv || t.wo)) {
    return make_error(ErrorCode::empty, "train",
                      "train is empty: name at least one matrix to train (x, context, wq, wk, "
                      "wv, wo)");
  }
  if (t.context && in.context.rows == 0) {
    return make_error(ErrorCode::conflict, "train",
                      "train names context but the input has no context");
  }
  if (t.wo && in.wo.rows == 0) {
    return make_error(ErrorCode::conflict, "train", "train names wo but the input has no wo");
  }

  const Error err = check_target(in, o);
  if (!err.ok()) return err;

  return check_state(state, o.optimizer, static_cast<size_t>(n_values),
                     "the trained matrices with this optimizer (pass the state of a call with the "
                     "same input shapes, train and optimizer)");
}

}  // namespace

Error check_state(const TrainState& state, Optimizer optimizer, size_t n_values,
                  const std::string& needed_for) {
  if (state.step < 0) {
    return make_error(ErrorCode::range, "state", "state.step must be >= 0");
  }
  const size_t moments = optimizer == Optimizer::adam ? n_values : 0;
  const bool fresh = state.m.empty() && state.v.empty();
  if (!fresh && (state.m.size() != moments || state.v.size() != moments)) {
    return make_error(ErrorCode::shape, "state",
                      "the state's moments do not fit: they hold " +
                          std::to_string(state.m.size() + state.v.size()) + " values but " +
                          std::to_string(2 * moments) + " are needed for " + needed_for);
  }
  for (size_t i = 0; i < state.m.size(); i++) {
    if (!std::isfinite(state.m[i]) || !std::isfinite(state.v[i])) {
      return make_error(ErrorCode::not_finite, "state", "the state's moments must be finite");
    }
    if (state.v[i] < 0) {
      return make_error(ErrorCode::range, "state",
                        "the state's second moments must be >= 0 (squares of gradients)");
    }
  }
  return Error{};
}

namespace {

// "training step 3: " (or "after 3 steps: ") before the message of an error met on the way.
Error at_step(Error err, const char* where, long long step) {
  const char* after = where[0] != 'a' ? ": " : step == 1 ? " step: " : " steps: ";
  return err.prefixed(where + std::to_string(step) + after);
}

// What trained_values() lists, as operand and head for errors ("wq", 1).
std::vector<std::pair<std::string, int>> trained_names(const MultiHeadInput& in, const Trained& t) {
  std::vector<std::pair<std::string, int>> out;
  if (t.x) out.emplace_back("x", -1);
  if (t.context) out.emplace_back("context", -1);
  for (int h = 0; h < static_cast<int>(in.heads.size()); h++) {
    const int head = h;
    const Head& w = in.heads[h];
    if (t.wq) out.emplace_back("wq", head);
    if (t.wq && !w.bq.empty()) out.emplace_back("bq", head);
    if (t.wk) out.emplace_back("wk", head);
    if (t.wk && !w.bk.empty()) out.emplace_back("bk", head);
    if (t.wv) out.emplace_back("wv", head);
    if (t.wv && !w.bv.empty()) out.emplace_back("bv", head);
  }
  if (t.wo) out.emplace_back("wo", -1);
  if (t.wo && !in.bo.empty()) out.emplace_back("bo", -1);
  return out;
}

}  // namespace

void optimizer_update(Optimizer optimizer, double learning_rate, long long t, size_t n,
                      double* values, const double* d, double* m, double* v) {
  if (optimizer == Optimizer::sgd) {
    for (size_t i = 0; i < n; i++) values[i] -= learning_rate * d[i];
    return;
  }
  const double bias1 = 1.0 - std::pow(kBeta1, static_cast<double>(t));
  const double bias2_sqrt = std::sqrt(1.0 - std::pow(kBeta2, static_cast<double>(t)));
  const double step_size = learning_rate / bias1;
  for (size_t i = 0; i < n; i++) {
    m[i] = kBeta1 * m[i] + (1.0 - kBeta1) * d[i];
    v[i] = kBeta2 * v[i] + (1.0 - kBeta2) * (d[i] * d[i]);
    const double denominator = std::sqrt(v[i]) / bias2_sqrt + kEpsilon;
    values[i] -= step_size * (m[i] / denominator);
  }
}

Error train(const MultiHeadInput& start, const TrainOptions& options, TrainState* state,
            MultiHeadInput* trained, std::vector<double>* losses, Workspace* workspace) {
  Error err = check_multi_head(start);
  if (!err.ok()) return err;
  MultiHeadInput p = start;  // the parameters as they train
  long long n_values = 0;
  for (const std::vector<double>* v : trained_values(p, start, options.trained)) {
    n_values += static_cast<long long>(v->size());
  }
  err = check_options(start, options, *state, n_values);
  if (!err.ok()) return err;

  TrainState s = *state;
  if (options.optimizer == Optimizer::adam && s.m.empty()) {
    s.m.assign(n_values, 0.0);
    s.v.assign(n_values, 0.0);
  }
  const int n_q = start.x.rows;
  const std::vector<unsigned char> every_row(n_q, 1);
  std::vector<unsigned char> rows;  // (n_q): the rows in this step's loss
  MultiHeadResult& f = workspace->forward;
  Gradients& g = workspace->gradients;
  Seed& seed = workspace->seed;                         // output_mse: G (n_q, d_out)
  std::vector<Matrix>& d_scaled = workspace->d_scaled;  // per head (n_q, n_k)
  std::vector<double> out_losses;
  const bool on_output = options.loss == Loss::output_mse;
  const auto params = trained_values(p, start, options.trained);  // p's values keep their places
  const auto names = trained_names(p, options.trained);

  for (long long k = 0;; k++) {
    err = multi_head_attention(p, &f);
    if (!err.ok()) return at_step(err, "after ", s.step);
    // the loss over every row, reported
    const double loss = on_output
                            ? output_mse(f.output, options.target, every_row, nullptr)
                            : weights_cross_entropy(f, options.target_weights, every_row, nullptr);
    if (!std::isfinite(loss)) {
      return at_step(make_error(ErrorCode::overflow, "loss",
                                "the loss is not finite: the values are too large for float64; "
                                "use a smaller learning rate"),
                     "after ", s.step);
    }
    out_losses.push_back(loss);
    if (k == options.steps) break;

    // the step's loss and its gradient, over its rows
    pick_rows(options.seed, s.step, n_q, options.rows_per_step, &rows);
    if (on_output) {
      seed.weights.clear();
      output_mse(f.output, options.target, rows, &seed.output);
      err = backpropagate(p, f, seed, nullptr, &g);
    } else {
      weights_cross_entropy(f, options.target_weights, rows, &d_scaled);
      err = backpropagate(p, f, Seed{}, &d_scaled, &g);
    }
    if (!err.ok()) return at_step(err, "training step ", s.step + 1);

    // the update, matrix by matrix in the moments' order
    const long long t = ++s.step;  // Adam counts steps from 1
    const auto grads = trained_values(g.input, start, options.trained);
    size_t at = 0;  // index into the moments
    for (size_t q = 0; q < params.size(); q++) {
      std::vector<double>& values = *params[q];
      const bool adam = options.optimizer == Optimizer::adam;
      optimizer_update(options.optimizer, options.learning_rate, t, values.size(), values.data(),
                       grads[q]->data(), adam ? &s.m[at] : nullptr, adam ? &s.v[at] : nullptr);
      at += values.size();
      if (!std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); })) {
        const auto& [operand, head] = names[q];
        return at_step(
            make_error(ErrorCode::overflow, operand,
                       "the updated " + operand + " is not finite: use a smaller learning rate")
                .in_head(head),
            "training step ", t);
      }
    }
  }
  *trained = std::move(p);
  *state = std::move(s);
  *losses = std::move(out_losses);
  return Error{};
}

Error loss_backward(const MultiHeadInput& in, const TrainOptions& options, double* loss,
                    Workspace* workspace) {
  Error err = check_multi_head(in);
  if (!err.ok()) return err;
  err = check_target(in, options);
  if (!err.ok()) return err;
  MultiHeadResult& f = workspace->forward;
  err = multi_head_attention(in, &f);
  if (!err.ok()) return err;
  const std::vector<unsigned char> every_row(in.x.rows, 1);
  Seed& seed = workspace->seed;
  double value;
  if (options.loss == Loss::output_mse) {
    seed.weights.clear();
    value = output_mse(f.output, options.target, every_row, &seed.output);
  } else {
    seed.output = Matrix{};
    value = weights_cross_entropy(f, options.target_weights, every_row, nullptr);
    // S_h = −T_h / (Weights_h·|H|·n_q) where T_h ≠ 0 on unmasked cells: the derivative of
    // −T·log Weights, as the loss is written (train() enters at Scaled instead, see above)
    int n_targets = 0;
    for (const Matrix& t : options.target_weights) n_targets += t.rows > 0;
    const double n = static_cast<double>(n_targets) * in.x.rows;
    seed.weights.resize(options.target_weights.size());
    for (size_t h = 0; h < options.target_weights.size(); h++) {
      const Matrix& t = options.target_weights[h];
      Matrix& s = seed.weights[h];
      s.resize(t.rows, t.cols);  // 0 rows: a head left out of the loss
      for (int i = 0; i < t.rows; i++) {
        for (int j = 0; j < t.cols; j++) {
          const double target = t.at(i, j);
          s.at(i, j) =
              target == 0.0 || f.mask.at(i, j) ? 0.0 : -target / f.heads[h].weights.at(i, j) / n;
          if (std::isfinite(s.at(i, j))) continue;
          std::ostringstream msg;
          msg << "the weight at [" << i << "][" << j << "]" << head_phrase(static_cast<int>(h))
              << " is (nearly) 0 where the target is " << target
              << ": the loss's gradient there, −target / weight, does not fit float64 (train() "
                 "can still train from it)";
          return make_error(ErrorCode::overflow, "weights", msg.str())
              .in_head(static_cast<int>(h))
              .at(i, j);
        }
      }
    }
  }
  if (!std::isfinite(value)) {
    return make_error(ErrorCode::overflow, "loss",
                      "the loss is not finite: the values are too large for float64");
  }
  err = backpropagate(in, f, seed, nullptr, &workspace->gradients);
  if (!err.ok()) return err;
  *loss = value;
  return Error{};
}

}  // namespace attn
