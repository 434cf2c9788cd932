// Models (model.h): the forward pass, gradients and training against PyTorch (model_cases.txt,
// written by tests/make_model_fixtures.py), a finite-difference check, and the format's errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "fixtures.h"
#include "model.h"
#include "model_parts.h"  // for_each_array: every parameter, in the moments' order

using attn::ErrorCode;
using attn::Matrix;

namespace {

const std::vector<FixtureCase>& model_cases() {
  static const std::vector<FixtureCase> cases = load_fixture_cases(MODEL_FIXTURE_FILE);
  return cases;
}

std::vector<double> vector_of(const FixtureCase& c, const std::string& name) {
  const auto it = c.matrices.find(name);
  return it == c.matrices.end() ? std::vector<double>{} : it->second.data;
}

std::vector<int> ids_of(const FixtureCase& c, const std::string& name) {
  std::vector<int> ids;
  for (double v : c.matrices.at(name).data) ids.push_back(static_cast<int>(v));
  return ids;
}

// A fixture case's parameters as a Model, under `prefix` ("" or "final.", "grad.").
attn::Model model_of(const FixtureCase& c, const std::string& prefix = "") {
  const auto& o = c.options;
  const auto& m = c.matrices;
  auto flag = [&](const std::string& key) { return o.at(key) != 0.0; };
  auto vec = [&](const std::string& name) { return vector_of(c, prefix + name); };
  attn::Model model;
  model.vocab = static_cast<int>(o.at("vocab"));
  model.d_model = static_cast<int>(o.at("dModel"));
  model.max_tokens = static_cast<int>(o.at("maxTokens"));
  model.causal = flag("causal");
  model.sinusoidal = flag("sinusoidal");
  model.tied = flag("tied");
  model.embed = m.at(prefix + "embed");
  if (!model.sinusoidal) model.positions = m.at(prefix + "positions");
  for (int l = 0; l < static_cast<int>(o.at("layers")); l++) {
    const std::string p = "L" + std::to_string(l) + ".";
    attn::Layer layer;
    if (flag(p + "norm1")) layer.norm1 = {vec(p + "norm1.gain"), vec(p + "norm1.bias")};
    for (int h = 0; h < static_cast<int>(o.at(p + "heads")); h++) {
      const std::string hp = prefix + p + "h" + std::to_string(h) + ".";
      attn::Head head{m.at(hp + "wq"), m.at(hp + "wk"), m.at(hp + "wv")};
      head.bq = vector_of(c, hp + "bq");
      head.bk = vector_of(c, hp + "bk");
      head.bv = vector_of(c, hp + "bv");
      layer.heads.push_back(head);
    }
    layer.wo = m.at(prefix + p + "wo");
    layer.bo = vec(p + "bo");
    layer.has_mlp = flag(p + "mlp");
    if (layer.has_mlp) {
      if (flag(p + "norm2")) layer.norm2 = {vec(p + "norm2.gain"), vec(p + "norm2.bias")};
      layer.mlp.w1 = m.at(prefix + p + "mlp.w1");
      layer.mlp.b1 = vec(p + "mlp.b1");
      layer.mlp.w2 = m.at(prefix + p + "mlp.w2");
      layer.mlp.b2 = vec(p + "mlp.b2");
      layer.mlp.activation =
          o.at(p + "activation") != 0.0 ? attn::Activation::relu : attn::Activation::gelu;
    }
    model.layers.push_back(layer);
  }
  if (flag("finalNorm")) model.final_norm = {vec("finalNorm.gain"), vec("finalNorm.bias")};
  if (!model.tied) model.unembed = m.at(prefix + "unembed");
  model.unembed_bias = vec("unembedBias");
  return model;
}

// max |a − b| / max(1, |b|) over the elements (the same shape required); −∞ matches −∞.
double difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0.0;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::isinf(b[i]) && a[i] == b[i]) continue;
    d = std::max(d, std::fabs(a[i] - b[i]) / std::max(1.0, std::fabs(b[i])));
  }
  return d;
}

void require_close(const FixtureCase& c, const std::string& name, const Matrix& actual,
                   double tolerance) {
  INFO(c.name << ": " << name);
  const Matrix& expected = c.matrices.at(name);
  REQUIRE(actual.rows == expected.rows);
  REQUIRE(actual.cols == expected.cols);
  CHECK(difference(actual.data, expected.data) <= tolerance);
}

void require_close(const FixtureCase& c, const std::string& name, const std::vector<double>& actual,
                   double tolerance) {
  INFO(c.name << ": " << name);
  CHECK(difference(actual, c.matrices.at(name).data) <= tolerance);
}

// Every parameter array of `got` against the case's arrays under `prefix`.
void require_parameters(const FixtureCase& c, const std::string& prefix, const attn::Model& got,
                        double tolerance) {
  require_close(c, prefix + "embed", got.embed, tolerance);
  if (!got.sinusoidal) require_close(c, prefix + "positions", got.positions, tolerance);
  for (int l = 0; l < static_cast<int>(got.layers.size()); l++) {
    const std::string p = prefix + "L" + std::to_string(l) + ".";
    const attn::Layer& layer = got.layers[l];
    for (int h = 0; h < static_cast<int>(layer.heads.size()); h++) {
      const std::string hp = p + "h" + std::to_string(h) + ".";
      const attn::Head& w = layer.heads[h];
      require_close(c, hp + "wq", w.wq, tolerance);
      require_close(c, hp + "wk", w.wk, tolerance);
      require_close(c, hp + "wv", w.wv, tolerance);
      REQUIRE(w.bq.empty() == (c.matrices.count(hp + "bq") == 0));
      if (!w.bq.empty()) {
        require_close(c, hp + "bq", w.bq, tolerance);
        require_close(c, hp + "bk", w.bk, tolerance);
        require_close(c, hp + "bv", w.bv, tolerance);
      }
    }
    require_close(c, p + "wo", layer.wo, tolerance);
    const std::pair<std::string, const std::vector<double>*> vectors[] = {
        {"bo", &layer.bo},
        {"norm1.gain", &layer.norm1.gain},
        {"norm1.bias", &layer.norm1.bias},
        {"norm2.gain", &layer.norm2.gain},
        {"norm2.bias", &layer.norm2.bias},
        {"mlp.b1", &layer.mlp.b1},
        {"mlp.b2", &layer.mlp.b2}};
    for (const auto& [name, v] : vectors) {
      REQUIRE(v->empty() == (c.matrices.count(p + name) == 0));
      if (!v->empty()) require_close(c, p + name, *v, tolerance);
    }
    if (layer.has_mlp) {
      require_close(c, p + "mlp.w1", layer.mlp.w1, tolerance);
      require_close(c, p + "mlp.w2", layer.mlp.w2, tolerance);
    }
  }
  if (got.final_norm.present()) {
    require_close(c, prefix + "finalNorm.gain", got.final_norm.gain, tolerance);
    require_close(c, prefix + "finalNorm.bias", got.final_norm.bias, tolerance);
  }
  if (!got.tied) require_close(c, prefix + "unembed", got.unembed, tolerance);
  if (!got.unembed_bias.empty()) {
    require_close(c, prefix + "unembedBias", got.unembed_bias, tolerance);
  }
}

}  // namespace

TEST_CASE("the fixtures cover every kind of model the issue lists", "[model]") {
  std::set<std::string> seen;  // "<flag>=<0|1>"
  std::set<int> layers, heads;
  bool dk_dv_differ = true;
  for (const FixtureCase& c : model_cases()) {
    for (const auto& [key, value] : c.options) {
      const size_t dot = key.find('.');
      const std::string flag =
          key[0] == 'L' && dot != std::string::npos ? key.substr(dot + 1) : key;
      if (flag == "heads") heads.insert(static_cast<int>(value));
      if (value == 0.0 || value == 1.0) seen.insert(flag + "=" + std::to_string(int(value)));
    }
    layers.insert(static_cast<int>(c.options.at("layers")));
    const Matrix& wq = c.matrices.at("L0.h0.wq");
    const Matrix& wv = c.matrices.at("L0.h0.wv");
    dk_dv_differ = dk_dv_differ && wq.cols != wv.cols &&
                   wq.cols * c.options.at("L0.heads") != c.options.at("dModel");
  }
  for (const char* flag : {"causal", "sinusoidal", "tied", "finalNorm", "unembedBias", "norm1",
                           "norm2", "mlp", "activation", "qkvBias", "bo", "b1", "b2"}) {
    INFO(flag);
    CHECK(seen.count(std::string(flag) + "=0") == 1);
    CHECK(seen.count(std::string(flag) + "=1") == 1);
  }
  CHECK(layers == std::set<int>{1, 2, 3, 4});
  CHECK(*heads.begin() == 1);
  CHECK(*heads.rbegin() == 8);
  CHECK(dk_dv_differ);
}

TEST_CASE("runModel computes every intermediate as PyTorch does, within 1e-12", "[model]") {
  for (const FixtureCase& c : model_cases()) {
    const attn::Model model = model_of(c);
    attn::ModelRun run;
    const attn::Error err = attn::run_model(model, ids_of(c, "ids"), {}, &run);
    INFO(c.name << ": " << err.message);
    REQUIRE(err.ok());
    constexpr double tol = 1e-12;
    for (int l = 0; l <= static_cast<int>(model.layers.size()); l++) {
      require_close(c, "residual." + std::to_string(l), run.residual[l], tol);
    }
    for (int l = 0; l < static_cast<int>(model.layers.size()); l++) {
      const std::string p = "L" + std::to_string(l) + ".";
      const attn::LayerRun& r = run.layers[l];
      require_close(c, p + "input", r.attention_input.x, tol);
      for (int h = 0; h < static_cast<int>(r.attention.heads.size()); h++) {
        const std::string hp = p + "h" + std::to_string(h) + ".";
        const attn::AttentionResult& a = r.attention.heads[h];
        require_close(c, hp + "q", a.q, tol);
        require_close(c, hp + "k", a.k, tol);
        require_close(c, hp + "v", a.v, tol);
        require_close(c, hp + "scores", a.scores, tol);
        require_close(c, hp + "scaled", a.scaled, tol);
        require_close(c, hp + "weights", a.weights, tol);
        require_close(c, hp + "output", a.output, tol);
      }
      require_close(c, p + "concat", r.attention.concat, tol);
      require_close(c, p + "attention", r.attention_output, tol);
      if (model.layers[l].has_mlp) {
        require_close(c, p + "mlp.input", r.mlp_input, tol);
        require_close(c, p + "mlp.hidden", r.hidden, tol);
        require_close(c, p + "mlp.activated", r.activated, tol);
        require_close(c, p + "mlp.output", r.mlp_output, tol);
      }
    }
    require_close(c, "finalInput", run.final_input, tol);
    require_close(c, "logits", run.logits, tol);
    require_close(c, "probabilities", run.probabilities, tol);
  }
}

TEST_CASE("modelGradients gives autograd's loss and gradients, within 1e-9", "[model]") {
  for (const FixtureCase& c : model_cases()) {
    const attn::Model model = model_of(c);
    attn::ModelRun run;
    attn::Model g;
    double loss = 0.0;
    const attn::Error err =
        attn::model_gradients(model, ids_of(c, "ids"), ids_of(c, "targets"), {}, &run, &loss, &g);
    INFO(c.name << ": " << err.message);
    REQUIRE(err.ok());
    CHECK_THAT(loss, Catch::Matchers::WithinAbs(c.matrices.at("loss").data[0], 1e-12));
    require_parameters(c, "grad.", g, 1e-9);
  }
}

TEST_CASE("trainModel takes torch.optim's Adam and SGD steps, within 1e-9", "[model]") {
  int trained = 0;
  for (const FixtureCase& c : model_cases()) {
    if (c.options.count("train.optimizer") == 0) continue;
    trained++;
    const attn::Model start = model_of(c);
    const attn::Model copy = start;
    std::vector<attn::Batch> batches;
    for (int b = 0; b < static_cast<int>(c.options.at("train.batches")); b++) {
      const std::string p = "batch" + std::to_string(b) + ".";
      batches.push_back({ids_of(c, p + "ids"), ids_of(c, p + "targets")});
    }
    attn::ModelTrainOptions options;
    options.optimizer =
        c.options.at("train.optimizer") != 0 ? attn::Optimizer::adam : attn::Optimizer::sgd;
    options.learning_rate = c.options.at("train.learningRate");
    attn::Model out;
    attn::TrainState state;
    std::vector<double> losses;
    const attn::Error err = attn::train_model(start, batches, options, &state, &out, &losses);
    INFO(c.name << ": " << err.message);
    REQUIRE(err.ok());
    require_close(c, "trainLosses", losses, 1e-9);
    require_parameters(c, "final.", out, 1e-9);
    require_parameters(c, "", start, 0.0);  // the start is not modified
    CHECK(difference(start.embed.data, copy.embed.data) == 0.0);
    CHECK(state.step == static_cast<long long>(batches.size()));

    // the same batches in two calls, the state carried: the bits of the one call
    const auto half = batches.begin() + static_cast<long long>(batches.size() / 2);
    attn::TrainState carried;
    attn::Model middle, end;
    std::vector<double> first, second;
    REQUIRE(
        attn::train_model(start, {batches.begin(), half}, options, &carried, &middle, &first).ok());
    REQUIRE(
        attn::train_model(middle, {half, batches.end()}, options, &carried, &end, &second).ok());
    first.insert(first.end(), second.begin(), second.end());
    CHECK(first == losses);
    std::vector<double> one_call, in_chunks;
    attn::model_parts::for_each_array(out, [&](const std::vector<double>& v) {
      one_call.insert(one_call.end(), v.begin(), v.end());
    });
    attn::model_parts::for_each_array(end, [&](const std::vector<double>& v) {
      in_chunks.insert(in_chunks.end(), v.begin(), v.end());
    });
    CHECK(in_chunks == one_call);
    CHECK(carried.step == state.step);
    CHECK(carried.m == state.m);
    CHECK(carried.v == state.v);
  }
  CHECK(trained >= 2);
}

TEST_CASE("gradients match finite differences of the loss on a tiny model", "[model]") {
  // the smallest case with every kind of parameter it can have
  const FixtureCase& c = model_cases()[0];
  attn::Model model = model_of(c);
  const std::vector<int> ids = ids_of(c, "ids");
  const std::vector<int> targets = ids_of(c, "targets");
  attn::ModelRun run;
  attn::Model g;
  double loss = 0.0;
  REQUIRE(attn::model_gradients(model, ids, targets, {}, &run, &loss, &g).ok());
  auto loss_at = [&](const attn::Model& m) {
    attn::ModelRun r;
    attn::Model unused;
    double value = 0.0;
    REQUIRE(attn::model_gradients(m, ids, targets, {}, &r, &value, &unused).ok());
    return value;
  };
  // central differences, h = 1e-5: truncation ~h², rounding ~1e-16 / h
  const double h = 1e-5;
  auto check = [&](std::vector<double>* values, const std::vector<double>& grad, const char* what) {
    for (size_t i = 0; i < values->size(); i++) {
      const double v = (*values)[i];
      (*values)[i] = v + h;
      const double up = loss_at(model);
      (*values)[i] = v - h;
      const double down = loss_at(model);
      (*values)[i] = v;
      INFO(what << "[" << i << "]");
      CHECK_THAT(grad[i], Catch::Matchers::WithinAbs((up - down) / (2 * h), 1e-8));
    }
  };
  check(&model.embed.data, g.embed.data, "embed");
  check(&model.layers[0].heads[0].wq.data, g.layers[0].heads[0].wq.data, "wq");
  check(&model.layers[0].heads[0].wv.data, g.layers[0].heads[0].wv.data, "wv");
  check(&model.layers[0].wo.data, g.layers[0].wo.data, "wo");
  if (model.layers[0].norm1.present()) {
    check(&model.layers[0].norm1.gain, g.layers[0].norm1.gain, "norm1.gain");
  }
  if (model.layers[0].has_mlp) {
    check(&model.layers[0].mlp.w1.data, g.layers[0].mlp.w1.data, "mlp.w1");
  }
}

TEST_CASE("a switched-off head adds nothing to the layer's output", "[model]") {
  const FixtureCase& c = model_cases()[1];  // one layer, two heads
  const attn::Model model = model_of(c);
  REQUIRE(model.layers[0].heads.size() == 2);
  attn::RunOptions off;
  off.heads_off = {{0, 1}};
  attn::ModelRun run;
  REQUIRE(attn::run_model(model, ids_of(c, "ids"), off, &run).ok());
  const attn::LayerRun& r = run.layers[0];
  const int d_v = model.layers[0].heads[0].wv.cols;
  // head 1's columns of the concatenation are 0; head 0's are its output
  for (int i = 0; i < r.attention.concat.rows; i++) {
    for (int j = 0; j < d_v; j++) {
      CHECK(r.attention.concat.at(i, j) == r.attention.heads[0].output.at(i, j));
      CHECK(r.attention.concat.at(i, d_v + j) == 0.0);
    }
  }
  attn::RunOptions bad;
  bad.heads_off = {{0, 1, 0}};
  const attn::Error err = attn::run_model(model, ids_of(c, "ids"), bad, &run);
  CHECK(err.code == ErrorCode::shape);
  CHECK(err.layer == 0);
}

TEST_CASE("a model's errors name the array by its path, with its layer and head", "[model]") {
  const FixtureCase& c = model_cases()[4];  // two layers, two heads
  const attn::Model good = model_of(c);
  attn::ModelRun run;
  const std::vector<int> ids = ids_of(c, "ids");

  SECTION("a head's matrix of the wrong height") {
    attn::Model m = good;
    m.layers[1].heads[0].wq = Matrix(good.d_model + 1, good.layers[1].heads[0].wq.cols);
    const attn::Error err = attn::run_model(m, ids, {}, &run);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.path == "layers[1].heads[0].wq");
    CHECK(err.operand == "wq");
    CHECK(err.layer == 1);
    CHECK(err.head == 0);
    CHECK(err.message == "layers[1].heads[0].wq has " + std::to_string(good.d_model + 1) +
                             " rows but dModel is " + std::to_string(good.d_model));
  }
  SECTION("a bias of the wrong length") {
    attn::Model m = good;
    m.layers[0].bo.assign(good.d_model + 2, 0.0);
    const attn::Error err = attn::run_model(m, ids, {}, &run);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.path == "layers[0].bo");
    CHECK(err.layer == 0);
    CHECK(err.head == -1);
  }
  SECTION("W_O that does not fit the heads") {
    attn::Model m = good;
    m.layers[0].wo = Matrix(1, good.d_model);
    const attn::Error err = attn::run_model(m, ids, {}, &run);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.path == "layers[0].wo");
  }
  SECTION("an id outside the vocabulary, or not whole") {
    std::vector<int> out;
    const double bad[] = {0, static_cast<double>(good.vocab)};
    attn::Error err = attn::ids_from_values(good, "ids", bad, 2, false, &out);
    CHECK(err.code == ErrorCode::range);
    CHECK(err.column == 1);
    const double half[] = {0.5};
    err = attn::ids_from_values(good, "ids", half, 1, false, &out);
    CHECK(err.code == ErrorCode::range);
    const double no_loss[] = {-1, 0};
    CHECK(attn::ids_from_values(good, "targets", no_loss, 2, true, &out).ok());
    CHECK(attn::ids_from_values(good, "ids", no_loss, 2, false, &out).code == ErrorCode::range);
  }
  SECTION("ids and targets given to run_model and model_gradients directly are checked too") {
    std::vector<int> bad = ids;
    bad.back() = good.vocab;
    attn::Error err = attn::run_model(good, bad, {}, &run);
    CHECK(err.code == ErrorCode::range);
    CHECK(err.column == static_cast<int>(ids.size()) - 1);
    attn::Model g;
    double loss = 0.0;
    err = attn::model_gradients(good, ids, bad, {}, &run, &loss, &g);
    CHECK(err.code == ErrorCode::range);
    CHECK(err.path == "targets");
    CHECK(attn::run_model(good, {}, {}, &run).code == ErrorCode::empty);
  }
  SECTION("more ids than maxTokens") {
    std::vector<double> many(good.max_tokens + 1, 0.0);
    std::vector<int> out;
    const attn::Error err =
        attn::ids_from_values(good, "ids", many.data(), static_cast<int>(many.size()), false, &out);
    CHECK(err.code == ErrorCode::limit);
  }
  SECTION("sizes past the limits") {
    attn::Model m = good;
    m.max_tokens = attn::kMaxTokens + 1;
    CHECK(attn::check_model(m).code == ErrorCode::limit);
  }
  SECTION("no target at all") {
    attn::Model g;
    double loss = 0.0;
    const std::vector<int> none(ids.size(), -1);
    const attn::Error err = attn::model_gradients(good, ids, none, {}, &run, &loss, &g);
    CHECK(err.code == ErrorCode::empty);
    CHECK(err.path == "targets");
  }
  // the engine works after every error
  CHECK(attn::run_model(good, ids, {}, &run).ok());
}

// The fuzzer's find: finite logits far apart (1e308 and -1e308) gave a loss of Infinity with no
// error; the loss is checked like every other step now.
TEST_CASE("a loss past float64 is an overflow, not Infinity", "[model]") {
  attn::Model m;
  m.vocab = 2;
  m.d_model = 1;
  m.max_tokens = 1;
  m.causal = true;
  m.embed = Matrix(2, 1);
  m.embed.at(0, 0) = 1.0;
  m.embed.at(1, 0) = 1.0;
  m.positions = Matrix(1, 1);
  m.unembed = Matrix(1, 2);
  m.unembed.at(0, 0) = 1e308;  // logits (1e308, -1e308): finite
  m.unembed.at(0, 1) = -1e308;
  attn::ModelRun run;
  attn::Model g;
  double loss = 0.0;
  REQUIRE(attn::run_model(m, {0}, {}, &run).ok());
  const attn::Error err = attn::model_gradients(m, {0}, {1}, {}, &run, &loss, &g);
  CHECK(err.code == ErrorCode::overflow);
  CHECK(err.operand == "loss");
  CHECK(err.message.find("the loss is not finite") != std::string::npos);
}
