#include "model.h"

#include <algorithm>

#include "model_parts.h"

// The model's format: its shapes, limits and token ids checked (model.h); the forward pass is in
// model_forward.cpp, the backward pass and training in model_backward.cpp.
namespace attn {

namespace model_parts {

std::string count(long long n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

Error model_error(ErrorCode code, const std::string& path, const std::string& operand, int layer,
                  int head, const std::string& message) {
  return make_error(code, operand, message).with_path(path).in_layer(layer).in_head(head);
}

std::string leaf(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

}  // namespace model_parts

using namespace model_parts;

namespace {

// "layers[1].heads[0].wq has 5 rows but dModel is 4"
Error size_error(const std::string& path, int layer, int head, long long have, const char* what,
                 const std::string& want_name, long long want) {
  return model_error(
      ErrorCode::shape, path, leaf(path), layer, head,
      path + " has " + count(have, what) + " but " + want_name + " is " + std::to_string(want));
}

Error check_matrix(const std::string& path, int layer, int head, const Matrix& m,
                   const std::string& rows_name, int rows, const std::string& cols_name, int cols) {
  if (m.rows != rows) return size_error(path, layer, head, m.rows, "row", rows_name, rows);
  if (m.cols != cols) return size_error(path, layer, head, m.cols, "column", cols_name, cols);
  return Error{};
}

// An optional vector: empty (absent) or n values.
Error check_vector(const std::string& path, int layer, int head, const std::vector<double>& v,
                   const std::string& n_name, int n) {
  if (v.empty() || static_cast<int>(v.size()) == n) return Error{};
  return size_error(path, layer, head, static_cast<long long>(v.size()), "value", n_name, n);
}

Error check_norm(const std::string& path, int layer, const Norm& norm, int d_model) {
  if (!norm.present()) return Error{};
  // a norm needs both (a norm without its bias would be another layer kind)
  if (norm.bias.empty()) {
    return model_error(ErrorCode::empty, path + ".bias", "bias", layer, -1,
                       path + " needs both gain and bias; bias is missing");
  }
  Error err = check_vector(path + ".gain", layer, -1, norm.gain, "dModel", d_model);
  if (err.ok()) err = check_vector(path + ".bias", layer, -1, norm.bias, "dModel", d_model);
  return err;
}

Error too_large(const std::string& path, const std::string& what, long long value, long long limit,
                const std::string& advice) {
  return model_error(ErrorCode::limit, path, leaf(path), -1, -1,
                     what + " is " + std::to_string(value) + ", more than the " +
                         std::to_string(limit) + " supported: " + advice);
}

Error check_layer(const Model& model, int l) {
  const Layer& layer = model.layers[l];
  const int d = model.d_model;
  const std::string lp = layer_path(l);
  Error err = check_norm(lp + ".norm1", l, layer.norm1, d);
  if (!err.ok()) return err;
  const int n_heads = static_cast<int>(layer.heads.size());
  if (!(err = check_head_count(l, n_heads)).ok()) return err;
  const int d_k = layer.heads[0].wq.cols;
  const int d_v = layer.heads[0].wv.cols;
  const std::string dk_name = "d_k (the columns of " + head_path(l, 0) + ".wq)";
  const std::string dv_name = "d_v (the columns of " + head_path(l, 0) + ".wv)";
  for (int h = 0; h < n_heads; h++) {
    const Head& w = layer.heads[h];
    const std::string hp = head_path(l, h);
    if (w.wq.cols > kMaxDimension || w.wv.cols > kMaxDimension) {
      return too_large(hp + (w.wq.cols > kMaxDimension ? ".wq" : ".wv"), "d_k or d_v of " + hp,
                       std::max(w.wq.cols, w.wv.cols), kMaxDimension, "use smaller heads")
          .in_layer(l)
          .in_head(h);
    }
    if (!(err = check_matrix(hp + ".wq", l, h, w.wq, "dModel", d, dk_name, d_k)).ok()) return err;
    if (!(err = check_matrix(hp + ".wk", l, h, w.wk, "dModel", d, dk_name, d_k)).ok()) return err;
    if (!(err = check_matrix(hp + ".wv", l, h, w.wv, "dModel", d, dv_name, d_v)).ok()) return err;
    if (!(err = check_vector(hp + ".bq", l, h, w.bq, "d_k", d_k)).ok()) return err;
    if (!(err = check_vector(hp + ".bk", l, h, w.bk, "d_k", d_k)).ok()) return err;
    if (!(err = check_vector(hp + ".bv", l, h, w.bv, "d_v", d_v)).ok()) return err;
  }
  err = check_matrix(lp + ".wo", l, -1, layer.wo,
                     "h·d_v (" + count(n_heads, "head") + " × d_v " + std::to_string(d_v) + ")",
                     n_heads * d_v, "dModel", d);
  if (!err.ok()) return err;
  if (!(err = check_vector(lp + ".bo", l, -1, layer.bo, "dModel", d)).ok()) return err;
  if (!layer.has_mlp) {
    if (layer.norm2.present()) {
      return model_error(ErrorCode::conflict, lp + ".norm2", "norm2", l, -1,
                         lp + ".norm2 is the norm before the MLP, but " + lp + " has no mlp");
    }
    return Error{};
  }
  if (!(err = check_norm(lp + ".norm2", l, layer.norm2, d)).ok()) return err;
  const Mlp& mlp = layer.mlp;
  const int f = mlp.w1.cols;
  if (f > kMaxHidden) {
    return too_large(lp + ".mlp.w1", "the MLP's width f (the columns of " + lp + ".mlp.w1)", f,
                     kMaxHidden, "use a narrower MLP")
        .in_layer(l);
  }
  const std::string f_name = "f (the columns of " + lp + ".mlp.w1)";
  if (!(err = check_matrix(lp + ".mlp.w1", l, -1, mlp.w1, "dModel", d, f_name, f)).ok()) {
    return err;
  }
  if (!(err = check_vector(lp + ".mlp.b1", l, -1, mlp.b1, f_name, f)).ok()) return err;
  if (!(err = check_matrix(lp + ".mlp.w2", l, -1, mlp.w2, f_name, f, "dModel", d)).ok()) {
    return err;
  }
  return check_vector(lp + ".mlp.b2", l, -1, mlp.b2, "dModel", d);
}

long long parameter_count(const Model& model) {
  long long n = 0;
  for_each_array(model,
                 [&](const std::vector<double>& v) { n += static_cast<long long>(v.size()); });
  return n;
}

}  // namespace

std::string layer_path(int l) { return "layers[" + std::to_string(l) + "]"; }

std::string head_path(int l, int h) { return layer_path(l) + "." + head_name(h); }

Error vector_from_values(const std::string& path, const std::string& operand, int layer, int head,
                         const double* values, int n, std::vector<double>* out) {
  if (n <= 0) {
    return model_error(ErrorCode::empty, path, operand, layer, head,
                       path + " is empty: it needs at least one number");
  }
  const long long j = first_non_finite(values, static_cast<size_t>(n));
  if (j >= 0) {
    return model_error(ErrorCode::not_finite, path, operand, layer, head,
                       path + "[" + std::to_string(j) + "] is " + non_finite_name(values[j]) +
                           ": every value must be a finite number")
        .at(-1, static_cast<int>(j));
  }
  out->assign(values, values + n);
  return Error{};
}

Error check_layer_count(long long n_layers) {
  if (n_layers > kMaxLayers) {
    return too_large("layers", "the number of layers", n_layers, kMaxLayers, "use fewer layers");
  }
  return Error{};
}

Error check_head_count(int l, long long n_heads) {
  const std::string lp = layer_path(l);
  if (n_heads == 0) {
    return model_error(ErrorCode::empty, lp + ".heads", "heads", l, -1,
                       lp + ".heads is empty: a layer needs at least one head { wq, wk, wv }");
  }
  if (n_heads > kMaxHeads) {
    return too_large(lp + ".heads", "the number of heads of " + lp, n_heads, kMaxHeads,
                     "use fewer heads")
        .in_layer(l);
  }
  return Error{};
}

Error check_model(const Model& model) {
  Error err;
  const int d = model.d_model;
  if (d < 1) {
    return model_error(ErrorCode::range, "dModel", "dModel", -1, -1,
                       "dModel is " + std::to_string(d) + ": it must be at least 1");
  }
  if (d > kMaxDimension) {
    return too_large("dModel", "dModel", d, kMaxDimension, "use shorter vectors");
  }
  if (model.max_tokens < 1) {
    return model_error(
        ErrorCode::range, "maxTokens", "maxTokens", -1, -1,
        "maxTokens is " + std::to_string(model.max_tokens) + ": it must be at least 1");
  }
  if (model.max_tokens > kMaxTokens) {
    return too_large("maxTokens", "maxTokens", model.max_tokens, kMaxTokens,
                     "use a shorter context");
  }
  if (model.vocab < 1) {
    return model_error(ErrorCode::empty, "vocab", "vocab", -1, -1,
                       "vocab is empty: it needs at least one token string");
  }
  if (model.vocab > kMaxVocab) {
    return too_large("vocab", "the number of tokens (vocab)", model.vocab, kMaxVocab,
                     "use a smaller vocabulary");
  }
  const int n_layers = static_cast<int>(model.layers.size());
  if (!(err = check_layer_count(n_layers)).ok()) return err;
  const std::string vocab_name = "vocab's length";
  err = check_matrix("embed", -1, -1, model.embed, vocab_name, model.vocab, "dModel", d);
  if (!err.ok()) return err;
  if (!model.sinusoidal) {
    err = check_matrix("positions", -1, -1, model.positions, "maxTokens", model.max_tokens,
                       "dModel", d);
    if (!err.ok()) return err;
  }
  for (int l = 0; l < n_layers; l++) {
    if (!(err = check_layer(model, l)).ok()) return err;
  }
  if (!(err = check_norm("finalNorm", -1, model.final_norm, d)).ok()) return err;
  if (!model.tied) {
    err = check_matrix("unembed", -1, -1, model.unembed, "dModel", d, vocab_name, model.vocab);
    if (!err.ok()) return err;
  }
  err = check_vector("unembedBias", -1, -1, model.unembed_bias, vocab_name, model.vocab);
  if (!err.ok()) return err;
  const long long parameters = parameter_count(model);
  if (parameters > kMaxModelParameters) {
    return too_large("layers", "the number of parameters", parameters, kMaxModelParameters,
                     "use a smaller model");
  }
  return Error{};
}

Error ids_from_values(const Model& model, const std::string& name, const double* values, int n,
                      bool targets, std::vector<int>* out) {
  Error err = check_ids(model, name, values, n, targets);
  if (!err.ok()) return err;
  out->assign(values, values + n);  // whole numbers within int's range, checked above
  return Error{};
}

Error check_batch_count(long long n_batches) {
  if (n_batches == 0) {
    return model_error(ErrorCode::empty, "batches", "batches", -1, -1,
                       "batches is empty: it needs at least one { ids, targets }");
  }
  if (n_batches > kMaxBatches) {
    return too_large("batches", "the number of batches", n_batches, kMaxBatches,
                     "train in several calls");
  }
  return Error{};
}

}  // namespace attn
