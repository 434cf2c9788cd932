// The embind layer of the models' calls (model.h: runModel, modelGradients, trainModel,
// loadModel): the packed model read into attn::Model, the results out as JS values. What it
// shares with attention_bindings.cpp is in convert.h.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert.h"
#include "model.h"

using namespace bindings;

namespace {

// A packed matrix or vector of the model at `path` ("layers[1].heads[0].wq"); errors carry the
// path, its last name as the operand, the layer and the head.
attn::Error model_matrix(const val& packed, const std::string& path, int layer, int head,
                         attn::Matrix* out) {
  attn::Error err = to_matrix(path, packed, out);
  if (!err.ok()) {
    err.path = path;
    err.operand = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
    err.layer = layer;
    err.head = head;
  }
  return err;
}

// An optional vector (a Float64Array, or undefined: absent).
attn::Error model_vector(const val& parent, const char* name, const std::string& path, int layer,
                         int head, std::vector<double>* out) {
  out->clear();
  const val v = parent[name];
  if (v.isUndefined()) return attn::Error{};
  const auto values = emscripten::convertJSArrayToNumberVector<double>(v);
  return attn::vector_from_values(path, name, layer, head, values.data(),
                                  static_cast<int>(values.size()), out);
}

attn::Error model_norm(const val& parent, const char* name, const std::string& path, int layer,
                       attn::Norm* out) {
  *out = attn::Norm{};
  const val norm = parent[name];
  if (norm.isUndefined()) return attn::Error{};
  attn::Error err = model_vector(norm, "gain", path + ".gain", layer, -1, &out->gain);
  if (err.ok()) err = model_vector(norm, "bias", path + ".bias", layer, -1, &out->bias);
  return err;
}

// packed (built by validate-model.js packModel, its types already checked): {vocab (a count),
// dModel, maxTokens, causal, embed, positions? (absent: sinusoidal), layers: [{norm1?, heads:
// [{wq, wk, wv, bq?, bk?, bv?}], wo, bo?, norm2?, mlp?: {w1, b1?, w2, b2?, activation}}],
// finalNorm?: {gain, bias}, unembed? (absent: tied), unembedBias?}; matrices packed as to_matrix()
// reads them, vectors Float64Arrays. Then check_model().
attn::Error read_model(const val& packed, attn::Model* m) {
  m->vocab = packed["vocab"].as<int>();
  m->d_model = packed["dModel"].as<int>();
  m->max_tokens = packed["maxTokens"].as<int>();
  m->causal = packed["causal"].as<bool>();
  attn::Error err = model_matrix(packed["embed"], "embed", -1, -1, &m->embed);
  if (!err.ok()) return err;
  m->sinusoidal = packed["positions"].isUndefined();
  if (!m->sinusoidal) {
    err = model_matrix(packed["positions"], "positions", -1, -1, &m->positions);
    if (!err.ok()) return err;
  }
  const val layers = packed["layers"];
  const int n_layers = layers["length"].as<int>();
  if (!(err = attn::check_layer_count(n_layers)).ok()) return err;  // before reading them
  m->layers.resize(n_layers);
  for (int l = 0; l < n_layers; l++) {
    const val layer = layers[l];
    attn::Layer& w = m->layers[l];
    const std::string lp = attn::layer_path(l);
    if (!(err = model_norm(layer, "norm1", lp + ".norm1", l, &w.norm1)).ok()) return err;
    const val heads = layer["heads"];
    const int n_heads = heads["length"].as<int>();
    if (!(err = attn::check_head_count(l, n_heads)).ok()) return err;
    w.heads.resize(n_heads);
    for (int h = 0; h < n_heads; h++) {
      const val head = heads[h];
      attn::Head& hw = w.heads[h];
      const std::string hp = attn::head_path(l, h);
      if (!(err = model_matrix(head["wq"], hp + ".wq", l, h, &hw.wq)).ok()) return err;
      if (!(err = model_matrix(head["wk"], hp + ".wk", l, h, &hw.wk)).ok()) return err;
      if (!(err = model_matrix(head["wv"], hp + ".wv", l, h, &hw.wv)).ok()) return err;
      if (!(err = model_vector(head, "bq", hp + ".bq", l, h, &hw.bq)).ok()) return err;
      if (!(err = model_vector(head, "bk", hp + ".bk", l, h, &hw.bk)).ok()) return err;
      if (!(err = model_vector(head, "bv", hp + ".bv", l, h, &hw.bv)).ok()) return err;
    }
    if (!(err = model_matrix(layer["wo"], lp + ".wo", l, -1, &w.wo)).ok()) return err;
    if (!(err = model_vector(layer, "bo", lp + ".bo", l, -1, &w.bo)).ok()) return err;
    if (!(err = model_norm(layer, "norm2", lp + ".norm2", l, &w.norm2)).ok()) return err;
    const val mlp = layer["mlp"];
    w.has_mlp = !mlp.isUndefined();
    if (!w.has_mlp) continue;
    if (!(err = model_matrix(mlp["w1"], lp + ".mlp.w1", l, -1, &w.mlp.w1)).ok()) return err;
    if (!(err = model_vector(mlp, "b1", lp + ".mlp.b1", l, -1, &w.mlp.b1)).ok()) return err;
    if (!(err = model_matrix(mlp["w2"], lp + ".mlp.w2", l, -1, &w.mlp.w2)).ok()) return err;
    if (!(err = model_vector(mlp, "b2", lp + ".mlp.b2", l, -1, &w.mlp.b2)).ok()) return err;
    w.mlp.activation = mlp["activation"].as<std::string>() == "relu" ? attn::Activation::relu
                                                                     : attn::Activation::gelu;
  }
  if (!(err = model_norm(packed, "finalNorm", "finalNorm", -1, &m->final_norm)).ok()) return err;
  m->tied = packed["unembed"].isUndefined();
  if (!m->tied) {
    err = model_matrix(packed["unembed"], "unembed", -1, -1, &m->unembed);
    if (!err.ok()) return err;
  }
  err = model_vector(packed, "unembedBias", "unembedBias", -1, -1, &m->unembed_bias);
  if (!err.ok()) return err;
  return attn::check_model(*m);
}

// ids (a Float64Array) of `m`, named `name` ("ids", "batches[2].targets").
attn::Error read_ids(const attn::Model& m, const val& values, const std::string& name, bool targets,
                     std::vector<int>* out) {
  const auto v = emscripten::convertJSArrayToNumberVector<double>(values);
  return attn::ids_from_values(m, name, v.data(), static_cast<int>(v.size()), targets, out);
}

// A model's arrays in the format's structure (matrices {rows, cols, data}, vectors
// Float64Arrays; absent arrays left out): its gradients or its trained parameters.
val model_to_js(const attn::Model& m) {
  val out = val::object();
  out.set("embed", to_js(m.embed));
  if (!m.sinusoidal) out.set("positions", to_js(m.positions));
  auto set_vector = [](val& obj, const char* name, const std::vector<double>& v) {
    if (!v.empty()) obj.set(name, vector_to_js(v));
  };
  auto set_norm = [](val& obj, const char* name, const attn::Norm& n) {
    if (!n.present()) return;
    val norm = val::object();
    norm.set("gain", vector_to_js(n.gain));
    norm.set("bias", vector_to_js(n.bias));
    obj.set(name, norm);
  };
  val layers = val::array();
  for (const attn::Layer& w : m.layers) {
    val layer = val::object();
    set_norm(layer, "norm1", w.norm1);
    val heads = val::array();
    for (const attn::Head& h : w.heads) {
      val head = val::object();
      head.set("wq", to_js(h.wq));
      head.set("wk", to_js(h.wk));
      head.set("wv", to_js(h.wv));
      set_vector(head, "bq", h.bq);
      set_vector(head, "bk", h.bk);
      set_vector(head, "bv", h.bv);
      heads.call<void>("push", head);
    }
    layer.set("heads", heads);
    layer.set("wo", to_js(w.wo));
    set_vector(layer, "bo", w.bo);
    if (w.has_mlp) {
      set_norm(layer, "norm2", w.norm2);
      val mlp = val::object();
      mlp.set("w1", to_js(w.mlp.w1));
      set_vector(mlp, "b1", w.mlp.b1);
      mlp.set("w2", to_js(w.mlp.w2));
      set_vector(mlp, "b2", w.mlp.b2);
      layer.set("mlp", mlp);
    }
    layers.call<void>("push", layer);
  }
  out.set("layers", layers);
  set_norm(out, "finalNorm", m.final_norm);
  if (!m.tied) out.set("unembed", to_js(m.unembed));
  set_vector(out, "unembedBias", m.unembed_bias);
  return out;
}

// Models read once (loadModel) and kept by id until released (releaseModel): runModel,
// modelGradients and trainModel take such an id in place of a packed model and skip reading it.
std::unordered_map<int, attn::Model>& loaded_models() {
  static std::unordered_map<int, attn::Model> models;
  return models;
}

// Keeps `m` as a loaded model; returns its id.
int keep_model(attn::Model&& m) {
  static int next_id = 0;
  loaded_models().emplace(++next_id, std::move(m));
  return next_id;
}

// `model`: a packed model, read into `*read`, or a loaded model's id. Points `*m` at the model.
attn::Error resolve_model(const val& model, attn::Model* read, const attn::Model** m) {
  if (!model.isNumber()) {
    *m = read;
    return read_model(model, read);
  }
  const auto found = loaded_models().find(model.as<int>());
  if (found == loaded_models().end()) {  // the JS wrapper passes only ids it has not released
    return attn::make_error(attn::ErrorCode::conflict, "model", "this model is not loaded");
  }
  *m = &found->second;
  return attn::Error{};
}

// packed as read_model() reads it. Returns {id} or {error}.
val load_model(const val& packed) {
  attn::Model m;
  attn::Error err = read_model(packed, &m);
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("id", keep_model(std::move(m)));
  return result;
}

void release_model(int id) { loaded_models().erase(id); }

// A loaded model's parameters (model_to_js).
val model_parameters(int id) { return model_to_js(loaded_models().at(id)); }

// The last forward pass of a model.
attn::ModelRun& model_run() {
  static attn::ModelRun run;
  return run;
}

// Where a forward pass's matrices are, in one list, so that they cross into JS without an embind
// call (or a copy) per matrix: the number of layers L, then per layer its number of heads and 1 if
// it has an MLP (else 0), then per matrix its rows, cols and where its values start in wasm
// memory (an index into HEAPF64), in this order: residual x₀ … x_L; per layer its input, per
// head q, k, v, scores, scaled, weights, output, then concat and the attention's output, with an
// MLP its input, hidden, activated and output; finalInput, logits, probabilities. engine.js
// (unpackRun) reads it in that order right after the call, before anything else runs in wasm.
void run_layout(const attn::Model& m, const attn::ModelRun& run, std::vector<int>* layout) {
  layout->clear();
  layout->push_back(static_cast<int>(run.layers.size()));
  for (size_t l = 0; l < run.layers.size(); l++) {
    layout->push_back(static_cast<int>(run.layers[l].attention.heads.size()));
    layout->push_back(m.layers[l].has_mlp ? 1 : 0);
  }
  auto add = [&](const attn::Matrix& x) {
    layout->push_back(x.rows);
    layout->push_back(x.cols);
    // wasm32: a double's address / 8 fits an int
    layout->push_back(
        static_cast<int>(reinterpret_cast<uintptr_t>(x.data.data()) / sizeof(double)));
  };
  for (const attn::Matrix& x : run.residual) add(x);
  for (size_t l = 0; l < run.layers.size(); l++) {
    const attn::LayerRun& r = run.layers[l];
    add(r.attention_input.x);
    for (const attn::AttentionResult& h : r.attention.heads) {
      for (const attn::Matrix* step :
           {&h.q, &h.k, &h.v, &h.scores, &h.scaled, &h.weights, &h.output}) {
        add(*step);
      }
    }
    add(r.attention.concat);
    add(r.attention_output);
    if (m.layers[l].has_mlp) {
      for (const attn::Matrix* step : {&r.mlp_input, &r.hidden, &r.activated, &r.mlp_output})
        add(*step);
    }
  }
  add(run.final_input);
  add(run.logits);
  add(run.probabilities);
}

// model: packed as read_model() reads it, or a loaded model's id; ids a Float64Array, headsOff:
// [Uint8Array per layer] or undefined. Returns {layout: Int32Array} (run_layout(); the matrices
// stay in model_run() until the next call) or {error}.
val run_model(const val& model, const val& ids, const val& heads_off) {
  attn::Model from_js;
  const attn::Model* model_ptr = nullptr;
  attn::Error err = resolve_model(model, &from_js, &model_ptr);
  if (!err.ok()) return error_to_js(err);
  const attn::Model& m = *model_ptr;
  std::vector<int> token_ids;
  if (!(err = read_ids(m, ids, "ids", false, &token_ids)).ok()) return error_to_js(err);
  attn::RunOptions options;
  if (!heads_off.isUndefined()) {
    const int n = heads_off["length"].as<int>();
    for (int l = 0; l < n; l++) {
      options.heads_off.push_back(
          emscripten::convertJSArrayToNumberVector<unsigned char>(heads_off[l]));
    }
  }
  attn::ModelRun& run = model_run();
  err = attn::run_model(m, token_ids, options, &run);
  if (!err.ok()) return error_to_js(err);

  std::vector<int> layout;
  run_layout(m, run, &layout);
  val result = val::object();
  result.set("layout", copy_or_view("Int32Array", layout.size(), layout.data(), false));
  return result;
}

// model as for run_model(). Returns {loss, gradients (model_to_js)} or {error}.
val model_gradients(const val& model, const val& ids, const val& targets) {
  attn::Model from_js;
  const attn::Model* model_ptr = nullptr;
  attn::Error err = resolve_model(model, &from_js, &model_ptr);
  if (!err.ok()) return error_to_js(err);
  const attn::Model& m = *model_ptr;
  std::vector<int> token_ids, token_targets;
  if (!(err = read_ids(m, ids, "ids", false, &token_ids)).ok()) return error_to_js(err);
  err = read_ids(m, targets, "targets", true, &token_targets);
  if (!err.ok()) return error_to_js(err);
  attn::Model g;
  double loss = 0.0;
  err = attn::model_gradients(m, token_ids, token_targets, {}, &model_run(), &loss, &g);
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("loss", loss);
  result.set("gradients", model_to_js(g));
  return result;
}

// options (built by validate-model.js): {batches: [{ids, targets: Float64Array}], optimizer: 'sgd'
// | 'adam', learningRate, step, moments?: Float64Array (m then v, from a previous call)}; model
// as for run_model(). Returns {parameters (model_to_js), losses: Float64Array, step, moments:
// Float64Array (m then v; empty for sgd)} or, for a loaded model, {id (the trained model,
// loaded), losses, step, moments}; or {error}.
val train_model(const val& model, const val& options) {
  attn::Model from_js;
  const attn::Model* model_ptr = nullptr;
  attn::Error err = resolve_model(model, &from_js, &model_ptr);
  if (!err.ok()) return error_to_js(err);
  const attn::Model& m = *model_ptr;
  const val batches = options["batches"];
  const int n = batches["length"].as<int>();
  if (!(err = attn::check_batch_count(n)).ok()) return error_to_js(err);  // before reading them
  std::vector<attn::Batch> read(n);
  for (int b = 0; b < n; b++) {
    const std::string p = "batches[" + std::to_string(b) + "].";
    if (!(err = read_ids(m, batches[b]["ids"], p + "ids", false, &read[b].ids)).ok()) {
      return error_to_js(err);
    }
    err = read_ids(m, batches[b]["targets"], p + "targets", true, &read[b].targets);
    if (!err.ok()) return error_to_js(err);
  }
  attn::ModelTrainOptions o;
  o.optimizer = options["optimizer"].as<std::string>() == "sgd" ? attn::Optimizer::sgd
                                                                : attn::Optimizer::adam;
  o.learning_rate = options["learningRate"].as<double>();
  attn::TrainState state;
  state.step = static_cast<long long>(options["step"].as<double>());  // a safe integer
  if (!options["moments"].isUndefined()) {
    const auto moments = emscripten::convertJSArrayToNumberVector<double>(options["moments"]);
    const size_t half = moments.size() / 2;
    state.m.assign(moments.begin(), moments.begin() + half);
    state.v.assign(moments.begin() + half, moments.end());
  }
  attn::Model trained;
  std::vector<double> losses;
  err = attn::train_model(m, read, o, &state, &trained, &losses);
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("losses", vector_to_js(losses));
  result.set("step", static_cast<double>(state.step));
  std::vector<double> moments = std::move(state.m);
  moments.insert(moments.end(), state.v.begin(), state.v.end());
  result.set("moments", vector_to_js(moments));
  if (model.isNumber()) {
    result.set("id", keep_model(std::move(trained)));
  } else {
    result.set("parameters", model_to_js(trained));
  }
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(models) {
  emscripten::function("runModel", &run_model);
  emscripten::function("modelGradients", &model_gradients);
  emscripten::function("trainModel", &train_model);
  emscripten::function("loadModel", &load_model);
  emscripten::function("releaseModel", &release_model);
  emscripten::function("modelParameters", &model_parameters);
}
