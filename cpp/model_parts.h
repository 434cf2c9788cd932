// The parts model.cpp, model_layers.cpp, model_forward.cpp and model_backward.cpp share (not part
// of the core's API, model.h): the errors' wording, the order of a model's arrays, the token ids'
// check and the layer kinds, each forward with its backward (model_layers.cpp).
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "model.h"

namespace attn {
namespace model_parts {

// "3 rows", "1 value"
std::string count(long long n, const std::string& noun);

// make_error() with the model's path, layer and head.
Error model_error(ErrorCode code, const std::string& path, const std::string& operand, int layer,
                  int head, const std::string& message);

// The last name of a path: "wq" of "layers[1].heads[0].wq", "gain" of "finalNorm.gain".
std::string leaf(const std::string& path);

// Every array of a model (or of its gradients, which have the same structure), in one order:
// Adam's moments follow it. Absent arrays (no bias, sinusoidal positions, tied) are left out.
template <class M, class V>
void for_each_array(M& model, V visit) {
  visit(model.embed.data);
  if (!model.sinusoidal) visit(model.positions.data);
  for (auto& layer : model.layers) {
    for (auto* v : {&layer.norm1.gain, &layer.norm1.bias}) visit(*v);
    for (auto& head : layer.heads) {
      for (auto* v : {&head.wq.data, &head.wk.data, &head.wv.data, &head.bq, &head.bk, &head.bv}) {
        visit(*v);
      }
    }
    visit(layer.wo.data);
    visit(layer.bo);
    if (layer.has_mlp) {
      for (auto* v : {&layer.norm2.gain, &layer.norm2.bias, &layer.mlp.w1.data, &layer.mlp.b1,
                      &layer.mlp.w2.data, &layer.mlp.b2}) {
        visit(*v);
      }
    }
  }
  for (auto* v : {&model.final_norm.gain, &model.final_norm.bias}) visit(*v);
  if (!model.tied) visit(model.unembed.data);
  visit(model.unembed_bias);
}

// The first thing wrong with n token ids (doubles from JS, or ints): none (empty), more than
// max_tokens (limit), or one that is not a whole number in [0, vocab), targets also −1 (range).
template <class T>
Error check_ids(const Model& model, const std::string& name, const T* values, int n, bool targets) {
  if (n <= 0) {
    return model_error(ErrorCode::empty, name, leaf(name), -1, -1,
                       name + " is empty: it needs at least one token id");
  }
  if (n > model.max_tokens) {
    return model_error(ErrorCode::limit, name, leaf(name), -1, -1,
                       name + " has " + count(n, "id") + ", more than the model's maxTokens " +
                           std::to_string(model.max_tokens));
  }
  for (int i = 0; i < n; i++) {
    const double v = static_cast<double>(values[i]);
    const bool no_loss = targets && v == -1.0;
    if (!no_loss && !(v >= 0 && v < model.vocab && v == std::floor(v))) {
      std::ostringstream msg;
      msg << name << "[" << i << "] is " << v << ": it must be a whole number from 0 to "
          << model.vocab - 1 << " (an index into vocab)" << (targets ? ", or -1 for no loss" : "");
      return model_error(ErrorCode::range, name, leaf(name), -1, -1, msg.str()).at(-1, i);
    }
  }
  return Error{};
}

// The first non-finite element of the step `path` (of layer `layer`), an overflow: "<what>
// <path>[i][j] is Infinity: …".
Error check_step(const std::string& path, int layer, const Matrix& m, const char* what);

// A layer's error from multi_head_attention(): its path and layer ("layers[1].heads[0].q").
Error in_layer(Error err, int l);

// Whether head h of layer l is switched off (RunOptions::heads_off).
bool head_off(const RunOptions& options, int l, int h);

// ---- the layer kinds (model_layers.cpp), each forward with its backward ----

// x₀[i] = embed[ids[i]] + P[i], (n, d_model); dembed[ids[i]] += dx₀[i], dP[i] += dx₀[i].
void encoder_forward(const Model& model, const std::vector<int>& ids, Matrix* out);
void encoder_backward(const Model& model, const std::vector<int>& ids, const Matrix& dx, Model* g);

// LayerNorm per row, keeping each row's mean and 1/σ (n); its backward adds into dx and g.
void layernorm_forward(const Matrix& x, const Norm& norm, Matrix* out, std::vector<double>* mean,
                       std::vector<double>* rstd);
void layernorm_backward(const Matrix& dy, const Matrix& x, const std::vector<double>& mean,
                        const std::vector<double>& rstd, const Norm& norm, Matrix* dx, Norm* g);

// out = x·W (+ b on every row); from dout: dW = xᵀ·dout, db, dx = dout·Wᵀ.
void linear_forward(const Matrix& x, const Matrix& w, const std::vector<double>& b, Matrix* out,
                    MatmulScratch* scratch);
void linear_backward(const Matrix& dout, const Matrix& x, const Matrix& w, bool has_bias,
                     Matrix* dx, Matrix* dw, std::vector<double>* db, MatmulScratch* scratch);

// GELU (exact, erf) or ReLU, element by element; dx = dout ⊙ act'(x).
void activation_forward(Activation kind, const Matrix& x, Matrix* out);
void activation_backward(Activation kind, const Matrix& dout, const Matrix& x, Matrix* dx);

// The mean cross-entropy over positions with a target, and dL/dlogits into dlogits.
double crossentropy_forward_backward(const Matrix& logits, const Matrix& probabilities,
                                     const std::vector<int>& targets, Matrix* dlogits);

// zeros of the argument's shape
Matrix zeros_like(const Matrix& m);
std::vector<double> zeros_like(const std::vector<double>& v);
Norm zeros_like(const Norm& n);

}  // namespace model_parts
}  // namespace attn
