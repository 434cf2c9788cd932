// libFuzzer target for the C++ that reads user data: matrix_from_rows (flat values + row
// lengths, as the bindings pass them), multi_head_attention with every option, and then, on the
// same input, the backward pass of a seed (G and/or S per head), loss_backward() and train()
// with options read from the bytes (losses, targets, trained matrices, optimizer, learning rate,
// steps, rows per step). Whatever the bytes, the engine must either return an Error with a code
// and a message, or finite results of the right shapes: weight rows that sum to 1 (0 for a fully
// masked row), finite gradients of every matrix, finite losses and trained matrices (a gradient
// or an update that does not fit float64 is an overflow error, never a NaN handed back). An
// exception escaping is a crash too. Built with ASan and UBSan (scripts/test.mjs runs it for a
// bounded time on tests/fuzz/corpus); bytes past the end read as 0, which picks the common case
// of each choice, so the forward pass's corpus reaches the backward pass and training as well.
// The bytes after those build a model (model.h) for run_model(), model_gradients() and a step of
// train_model(): an Error with a message, or finite results (probability rows that sum to 1).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attention.h"
#include "backward.h"
#include "model.h"
#include "training.h"

namespace {

// Reads the fuzzer's bytes front to back; past the end everything reads as 0.
struct Bytes {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;

  uint8_t byte() { return pos < size ? data[pos++] : 0; }
  int small(int max) { return byte() % (max + 1); }  // 0 … max
  double value() {
    // mostly ordinary numbers; raw bit patterns (NaN, ±Inf, huge, subnormal) now and then
    const uint8_t kind = byte();
    if (kind < 200) return (static_cast<int>(byte()) - 128) / 16.0;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits = bits << 8 | byte();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
};

void check(bool ok) {
  if (!ok) __builtin_trap();  // an invariant broke: libFuzzer reports the input
}

// A matrix read as rows of possibly different lengths, through the validating entry point.
attn::Error read_matrix(Bytes& in, const char* name, int rows, int cols, attn::Matrix* out) {
  std::vector<int> lengths(rows, cols);
  if (rows > 0 && in.small(15) == 0) lengths[in.small(rows - 1)] = in.small(cols + 1);  // ragged
  std::vector<double> values;
  for (int len : lengths)
    for (int j = 0; j < len; j++) values.push_back(in.value());
  attn::Error err = attn::matrix_from_rows(name, values.data(), lengths.data(), rows, out);
  check(err.ok() || !err.message.empty());
  return err;
}

void check_result(const attn::MultiHeadInput& in, const attn::MultiHeadResult& r) {
  const int n_q = in.x.rows;
  const int n_k = in.context.rows > 0 ? in.context.rows : n_q;
  check(static_cast<size_t>(r.heads.size()) == in.heads.size());
  for (const attn::AttentionResult& h : r.heads) {
    check(h.weights.rows == n_q && h.weights.cols == n_k);
    for (int i = 0; i < n_q; i++) {
      double sum = 0.0;
      for (int j = 0; j < n_k; j++) {
        const double w = h.weights.at(i, j);
        check(std::isfinite(w) && w >= 0.0 && w <= 1.0);
        check(!r.mask.at(i, j) || w == 0.0);  // masked keys get exactly 0
        sum += w;
      }
      check(r.mask.fully_masked[i] ? sum == 0.0 : std::fabs(sum - 1.0) < 1e-9);
    }
    for (double v : h.output.data) check(std::isfinite(v));
  }
  check(r.output.rows == n_q);
  for (double v : r.output.data) check(std::isfinite(v));
}

void check_finite(const attn::Matrix& m) {
  for (double v : m.data) check(std::isfinite(v));
}

void check_error(const attn::Error& err) { check(!err.ok() && !err.message.empty()); }

// Gradients of the shapes of `in`'s matrices and results, every value finite.
void check_gradients(const attn::MultiHeadInput& in, const attn::Gradients& g) {
  const bool cross = in.context.rows > 0;
  check(g.input.x.rows == in.x.rows && g.input.x.cols == in.x.cols);
  check(g.input.context.rows == in.context.rows && g.input.wo.rows == in.wo.rows);
  check(g.input.heads.size() == in.heads.size() && g.result.heads.size() == in.heads.size());
  check_finite(g.input.x);
  check_finite(g.input.context);
  check_finite(g.input.wo);
  check(std::isfinite(g.input.temperature));
  for (size_t h = 0; h < in.heads.size(); h++) {
    const attn::Head& w = g.input.heads[h];
    check(w.wq.rows == in.heads[h].wq.rows && w.wq.cols == in.heads[h].wq.cols);
    check(w.wk.rows == in.heads[h].wk.rows && w.wv.cols == in.heads[h].wv.cols);
    for (const attn::Matrix* m : {&w.wq, &w.wk, &w.wv}) check_finite(*m);
    const attn::AttentionResult& r = g.result.heads[h];
    check(r.weights.rows == in.x.rows && r.weights.cols == (cross ? in.context.rows : in.x.rows));
    for (const attn::Matrix* m : {&r.q, &r.k, &r.v, &r.scores, &r.scaled, &r.weights, &r.output}) {
      check_finite(*m);
    }
  }
  check_finite(g.result.concat);
  check_finite(g.result.output);
}

// A matrix of `rows` × `cols` read from the bytes, one row or column off now and then (a shape
// error); 0 rows when the bytes say so.
attn::Matrix read_seed(Bytes& b, const char* name, int rows, int cols, bool* ok) {
  attn::Matrix m;
  const uint8_t shape = b.byte();
  if (shape == 255) return m;  // left out
  if (shape == 254) rows++;
  if (shape == 253) cols++;
  *ok = read_matrix(b, name, rows, cols, &m).ok();
  return m;
}

// The backward pass of a seed from the bytes: G (unless left out), S for some heads.
void fuzz_backward(Bytes& b, const attn::MultiHeadInput& in, int n_k, int d_out) {
  const int n_q = in.x.rows;
  const int n_heads = static_cast<int>(in.heads.size());
  bool ok = true;
  attn::Seed seed;
  const uint8_t which = b.byte();
  if (!(which & 1)) seed.output = read_seed(b, "output", n_q, d_out, &ok);
  if (which & 2) {
    seed.weights.resize(n_heads + (which & 4 ? 1 : 0));  // one head too many, now and then
    for (attn::Matrix& s : seed.weights) {
      if (b.byte() & 1) s = read_seed(b, "weights", n_q, n_k, &ok);
    }
  }
  if (!ok) return;
  attn::MultiHeadResult f;
  attn::Gradients g;
  const attn::Error err = attn::attention_backward(in, seed, &f, &g);
  if (err.ok()) {
    check_gradients(in, g);
    check(g.result.output.data == seed.output.data || seed.output.rows == 0);
  } else {
    check_error(err);
  }
}

// loss_backward() and a few steps of train() with options from the bytes, through one
// workspace kept across inputs, as the bindings keep one.
void fuzz_training(Bytes& b, const attn::MultiHeadInput& in, int n_k, int d_out) {
  static attn::Workspace workspace;
  const int n_q = in.x.rows;
  const int n_heads = static_cast<int>(in.heads.size());
  attn::TrainOptions o;
  const uint8_t choices = b.byte();
  bool ok = true;
  if (choices & 1) {
    o.loss = attn::Loss::weights_cross_entropy;
    o.target_weights.resize(n_heads + (choices & 2 ? 1 : 0));
    for (attn::Matrix& t : o.target_weights) {
      if (b.byte() & 1) continue;  // a head left out
      t = read_seed(b, "target", n_q, n_k, &ok);
      // weights >= 0 mostly: a distribution's values, or a negative one now and then
      if (!(choices & 4)) {
        for (double& v : t.data) v = std::fabs(v);
      }
    }
  } else {
    o.target = read_seed(b, "target", n_q, d_out, &ok);
  }
  if (!ok) return;
  const uint8_t trained = b.byte() ^ 0x1C;  // 0: W_Q, W_K and W_V
  o.trained = {(trained & 1) != 0, (trained & 2) != 0,  (trained & 4) != 0,
               (trained & 8) != 0, (trained & 16) != 0, (trained & 32) != 0};
  o.optimizer = choices & 8 ? attn::Optimizer::adam : attn::Optimizer::sgd;
  const double rates[] = {0.05, 1e-3, 1.0, 1e6};
  const uint8_t rate = b.byte();
  o.learning_rate = rate < 252 ? rates[rate % 4] : b.value();
  o.steps = 1 + b.small(3) - (choices & 16 ? 1 : 0);  // 0 … 4: 0 is a range error
  o.seed = b.byte();
  o.rows_per_step = b.small(n_q + 1);  // n_q + 1: a range error

  double loss = 0.0;
  attn::Error err = attn::loss_backward(in, o, &loss, &workspace);
  if (err.ok()) {
    check(std::isfinite(loss) && loss >= 0.0);
    check_gradients(in, workspace.gradients);
  } else {
    check_error(err);
  }

  attn::TrainState state;
  attn::MultiHeadInput out;
  std::vector<double> losses;
  err = attn::train(in, o, &state, &out, &losses, &workspace);
  if (err.ok()) {
    check(static_cast<long long>(losses.size()) == o.steps + 1 && state.step == o.steps);
    for (double v : losses) check(std::isfinite(v) && v >= 0.0);
    check_finite(out.x);
    check_finite(out.context);
    check_finite(out.wo);
    for (const attn::Head& w : out.heads) {
      for (const attn::Matrix* m : {&w.wq, &w.wk, &w.wv}) check_finite(*m);
    }
  } else {
    check_error(err);
    check(losses.empty() && state.step == 0);  // nothing changed
  }
}

}  // namespace

// A vector of n values from the bytes, through the validating entry point.
bool read_vector(Bytes& b, const char* name, int n, std::vector<double>* out) {
  std::vector<double> values(n);
  for (double& v : values) v = b.value();
  const attn::Error err = attn::vector_from_values(name, name, -1, -1, values.data(), n, out);
  check(err.ok() || !err.message.empty());
  return err.ok();
}

bool read_norm(Bytes& b, int d, attn::Norm* norm) {
  return read_vector(b, "gain", d, &norm->gain) && read_vector(b, "bias", d, &norm->bias);
}

// A small model from the bytes: which parts it has, its sizes, and one shape off now and then.
void fuzz_model(Bytes& b) {
  attn::Model m;
  m.vocab = 1 + b.small(5);
  m.d_model = 1 + b.small(5);
  m.max_tokens = 1 + b.small(6);
  const uint8_t flags = b.byte();
  m.causal = flags & 1;
  m.sinusoidal = flags & 2;
  m.tied = flags & 4;
  const int off = flags & 128 ? 1 : 0;  // the last layer's W_O one row too many: a shape error
  const int d = m.d_model;
  if (!read_matrix(b, "embed", m.vocab, d, &m.embed).ok()) return;
  if (!m.sinusoidal && !read_matrix(b, "positions", m.max_tokens, d, &m.positions).ok()) return;
  const int n_layers = b.small(2);
  for (int l = 0; l < n_layers; l++) {
    attn::Layer w;
    const uint8_t parts = b.byte();
    if ((parts & 1) && !read_norm(b, d, &w.norm1)) return;
    const int n_heads = 1 + b.small(2);
    const int d_k = 1 + b.small(3);
    const int d_v = 1 + b.small(3);
    for (int h = 0; h < n_heads; h++) {
      attn::Head head;
      if (!read_matrix(b, "wq", d, d_k, &head.wq).ok()) return;
      if (!read_matrix(b, "wk", d, d_k, &head.wk).ok()) return;
      if (!read_matrix(b, "wv", d, d_v, &head.wv).ok()) return;
      if ((parts & 2) &&
          !(read_vector(b, "bq", d_k, &head.bq) && read_vector(b, "bk", d_k, &head.bk) &&
            read_vector(b, "bv", d_v, &head.bv))) {
        return;
      }
      w.heads.push_back(std::move(head));
    }
    const int wo_rows = n_heads * d_v + (l == n_layers - 1 ? off : 0);
    if (!read_matrix(b, "wo", wo_rows, d, &w.wo).ok()) return;
    if ((parts & 4) && !read_vector(b, "bo", d, &w.bo)) return;
    w.has_mlp = parts & 8;
    if (w.has_mlp) {
      const int f = 1 + b.small(4);
      if ((parts & 32) && !read_norm(b, d, &w.norm2)) return;
      if (!read_matrix(b, "w1", d, f, &w.mlp.w1).ok()) return;
      if (!read_matrix(b, "w2", f, d, &w.mlp.w2).ok()) return;
      if ((parts & 64) &&
          !(read_vector(b, "b1", f, &w.mlp.b1) && read_vector(b, "b2", d, &w.mlp.b2))) {
        return;
      }
      w.mlp.activation = parts & 16 ? attn::Activation::relu : attn::Activation::gelu;
    }
    m.layers.push_back(std::move(w));
  }
  if ((flags & 8) && !read_norm(b, d, &m.final_norm)) return;
  if (!m.tied && !read_matrix(b, "unembed", d, m.vocab, &m.unembed).ok()) return;
  if ((flags & 16) && !read_vector(b, "unembedBias", m.vocab, &m.unembed_bias)) return;

  // ids and targets through their checks: now and then one outside the vocabulary or too many
  const int n = 1 + b.small(m.max_tokens);
  std::vector<double> id_values(n), target_values(n);
  for (int i = 0; i < n; i++) {
    id_values[i] = b.small(m.vocab);              // vocab itself: a range error
    target_values[i] = b.small(m.vocab + 1) - 1;  // -1: no loss there
  }
  std::vector<int> ids, targets;
  attn::Error err = attn::ids_from_values(m, "ids", id_values.data(), n, false, &ids);
  if (err.ok()) err = attn::ids_from_values(m, "targets", target_values.data(), n, true, &targets);
  if (!err.ok()) {
    check_error(err);
    return;
  }
  attn::ModelRun run;
  err = attn::run_model(m, ids, {}, &run);
  if (!err.ok()) {
    check_error(err);
    return;
  }
  check(run.probabilities.rows == n && run.probabilities.cols == m.vocab);
  for (int i = 0; i < n; i++) {
    double sum = 0.0;
    for (int j = 0; j < m.vocab; j++) sum += run.probabilities.at(i, j);
    check(std::fabs(sum - 1.0) < 1e-9);
  }
  check_finite(run.logits);
  attn::Model g;
  double loss = 0.0;
  err = attn::model_gradients(m, ids, targets, {}, &run, &loss, &g);
  if (!err.ok()) {
    check_error(err);
    return;
  }
  check(std::isfinite(loss) && loss >= 0.0);
  check(g.embed.rows == m.embed.rows && g.embed.cols == m.embed.cols);
  check_finite(g.embed);
  for (size_t l = 0; l < m.layers.size(); l++) {
    check(g.layers[l].heads.size() == m.layers[l].heads.size());
    check(g.layers[l].heads[0].bq.size() == m.layers[l].heads[0].bq.size());
    check_finite(g.layers[l].heads[0].wq);
    check_finite(g.layers[l].wo);
  }
  attn::Model trained;
  std::vector<double> losses;
  attn::ModelTrainOptions options;
  options.optimizer = flags & 32 ? attn::Optimizer::sgd : attn::Optimizer::adam;
  options.learning_rate = 0.01;
  attn::TrainState state;
  err = attn::train_model(m, {{ids, targets}}, options, &state, &trained, &losses);
  if (!err.ok()) {
    check_error(err);
    return;
  }
  check(losses.size() == 1 && losses[0] == loss);
  check_finite(trained.embed);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes b{data, size};
  const int n_q = b.small(12);  // 0 rows is a case too: "x is empty"
  const int d_model = 1 + b.small(7);
  const int n_heads = 1 + b.small(3);
  const int d_k = 1 + b.small(5);
  const int d_v = 1 + b.small(5);
  const uint8_t flags = b.byte();

  attn::MultiHeadInput in;
  if (!read_matrix(b, "x", n_q, d_model, &in.x).ok()) return 0;
  int d_source = d_model;
  if (flags & 1) {  // cross-attention
    const int n_k = 1 + b.small(12);
    d_source = 1 + b.small(7);
    if (!read_matrix(b, "context", n_k, d_source, &in.context).ok()) return 0;
  }
  for (int h = 0; h < n_heads; h++) {
    attn::Head w;
    // a wrong shape now and then, to reach the shape checks
    const int rows_q = (flags & 2) && h == n_heads - 1 ? d_model + 1 : d_model;
    if (!read_matrix(b, "wq", rows_q, d_k, &w.wq).ok()) return 0;
    if (!read_matrix(b, "wk", d_source, d_k, &w.wk).ok()) return 0;
    if (!read_matrix(b, "wv", d_source, d_v, &w.wv).ok()) return 0;
    in.heads.push_back(std::move(w));
  }
  if (flags & 4) {
    if (!read_matrix(b, "wo", n_heads * d_v, d_model, &in.wo).ok()) return 0;
  }
  in.options.causal = flags & 8;
  if (flags & 16) {
    const int n_k = in.context.rows > 0 ? in.context.rows : n_q;
    for (int j = 0; j < n_k + (flags & 128 ? 1 : 0); j++)
      in.options.key_padding.push_back(b.byte() & 1);
  }
  in.options.scale_by_sqrt_dk = !(flags & 32);
  in.options.positional_encoding = flags & 64;
  in.options.temperature = b.small(3) == 0 ? b.value() : 1.0;

  attn::MultiHeadResult r;
  const attn::Error err = attn::multi_head_attention(in, &r);
  if (err.ok()) {
    check_result(in, r);
  } else {
    check(!err.message.empty());
  }
  // the shapes a seed or target must have (the input's, even when it is rejected: backward()
  // and train() must reject it the same way)
  const int n_k = in.context.rows > 0 ? in.context.rows : n_q;
  const int d_out = in.wo.rows > 0 ? d_model : n_heads * d_v;
  fuzz_backward(b, in, n_k, d_out);
  fuzz_training(b, in, n_k, d_out);
  fuzz_model(b);
  return 0;
}
