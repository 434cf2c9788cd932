// The backward pass (backward.h): against PyTorch autograd in float64 (backward_cases.txt,
// written by tests/make_grad_fixtures.py), against central finite differences of the forward
// pass, the masks' exact zeros, and its errors. Never against the engine's own output.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "attention.h"
#include "backward.h"
#include "fixtures.h"
#include "training.h"

using attn::ErrorCode;
using attn::Matrix;

namespace {

// The seed of L = Σ G ⊙ Output.
attn::Seed output_seed(const Matrix& g) {
  attn::Seed s;
  s.output = g;
  return s;
}

// The agreement measure of issue 16: max over cells of |a − b| / max(1, |b|).
double relative_diff(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  double d = 0.0;
  for (size_t i = 0; i < a.data.size(); i++) {
    d = std::max(d, std::fabs(a.data[i] - b.data[i]) / std::max(1.0, std::fabs(b.data[i])));
  }
  return d;
}

// Every gradient the engine returns, under the fixture's names (d.x, d.h0.wq, d.h0.scores, …).
std::map<std::string, const Matrix*> named(const attn::Gradients& g) {
  std::map<std::string, const Matrix*> out = {
      {"d.x", &g.input.x}, {"d.concat", &g.result.concat}, {"d.output", &g.result.output}};
  if (g.input.context.rows > 0) out["d.context"] = &g.input.context;
  if (g.input.wo.rows > 0) out["d.wo"] = &g.input.wo;
  if (g.result.x_with_pe.rows > 0) out["d.xWithPe"] = &g.result.x_with_pe;
  if (g.result.context_with_pe.rows > 0) out["d.contextWithPe"] = &g.result.context_with_pe;
  for (size_t h = 0; h < g.input.heads.size(); h++) {
    const std::string p = "d.h" + std::to_string(h) + ".";
    out[p + "wq"] = &g.input.heads[h].wq;
    out[p + "wk"] = &g.input.heads[h].wk;
    out[p + "wv"] = &g.input.heads[h].wv;
    const attn::AttentionResult& r = g.result.heads[h];
    out[p + "q"] = &r.q;
    out[p + "k"] = &r.k;
    out[p + "v"] = &r.v;
    out[p + "scores"] = &r.scores;
    out[p + "scaled"] = &r.scaled;
    out[p + "weights"] = &r.weights;
    out[p + "output"] = &r.output;
  }
  return out;
}

// g against torch's d.<name> of case c; returns the worst relative difference.
double compare_case(const FixtureCase& c, const attn::Gradients& g) {
  const auto got = named(g);
  size_t checked = 0;
  double worst = 0.0;
  for (const auto& [name, want] : c.matrices) {
    if (name.rfind("d.", 0) != 0) continue;  // an input
    INFO(name);
    double diff = 0.0;
    if (name == "d.temperature") {
      diff = std::fabs(g.input.temperature - want.data[0]) / std::max(1.0, std::fabs(want.data[0]));
    } else {
      REQUIRE(got.count(name) == 1);
      diff = relative_diff(*got.at(name), want);
      checked++;
    }
    INFO("max |engine - torch| / max(1, |torch|) = " << diff);
    CHECK(diff <= 1e-8);
    worst = std::max(worst, diff);
  }
  CHECK(checked == got.size());  // nothing the engine returns is left unchecked
  return worst;
}

// Every case against torch; returns the worst relative difference of each case.
std::map<std::string, double> compare_with_torch() {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  REQUIRE(cases.size() >= 20);
  std::map<std::string, double> worst;
  for (const auto& c : cases) {
    INFO("case " << c.name);
    attn::MultiHeadResult forward;
    attn::Gradients g;
    const attn::Error err = attn::attention_backward(multi_head_input(c),
                                                     output_seed(c.matrices.at("G")), &forward, &g);
    INFO(err.message);
    REQUIRE(err.ok());
    worst[c.name] = compare_case(c, g);
  }
  return worst;
}

// A case of backward_seed_cases.txt: its seed (option seed 0 or 1: S.h<i>, and G for 1), or,
// for option seed 2, its loss as train() takes it (target, target.h<i>).
attn::Seed seed_of(const FixtureCase& c) {
  attn::Seed s;
  if (c.matrices.count("G")) s.output = c.matrices.at("G");
  const int n_heads = static_cast<int>(c.options.at("heads"));
  s.weights.resize(n_heads);
  for (int h = 0; h < n_heads; h++) {
    const auto it = c.matrices.find("S.h" + std::to_string(h));
    if (it != c.matrices.end()) s.weights[h] = it->second;
  }
  return s;
}

attn::TrainOptions loss_of(const FixtureCase& c) {
  attn::TrainOptions o;
  o.loss = c.options.at("loss") == 1 ? attn::Loss::weights_cross_entropy : attn::Loss::output_mse;
  if (o.loss == attn::Loss::output_mse) {
    o.target = c.matrices.at("target");
  } else {
    o.target_weights.resize(static_cast<int>(c.options.at("heads")));
    for (size_t h = 0; h < o.target_weights.size(); h++) {
      const auto it = c.matrices.find("target.h" + std::to_string(h));
      if (it != c.matrices.end()) o.target_weights[h] = it->second;
    }
  }
  return o;
}

// L = Σ G ⊙ Output + Σ_h Σ S_h ⊙ Weights_h, the loss whose seed (G, S) is.
double loss(const attn::MultiHeadInput& in, const attn::Seed& seed) {
  attn::MultiHeadResult r;
  const attn::Error err = attn::multi_head_attention(in, &r);
  REQUIRE(err.ok());
  double sum = 0.0;
  for (size_t i = 0; i < seed.output.data.size(); i++)
    sum += seed.output.data[i] * r.output.data[i];
  for (size_t h = 0; h < seed.weights.size(); h++) {
    const Matrix& s = seed.weights[h];
    for (size_t i = 0; i < s.data.size(); i++) sum += s.data[i] * r.heads[h].weights.data[i];
  }
  return sum;
}

// Every input matrix of `in`, with its gradient in `g`, and a name for messages.
struct Parameter {
  std::string name;
  Matrix* value;
  const Matrix* gradient;
};

std::vector<Parameter> parameters(attn::MultiHeadInput* in, const attn::InputGradients& g) {
  std::vector<Parameter> out = {{"x", &in->x, &g.x}};
  if (in->context.rows > 0) out.push_back({"context", &in->context, &g.context});
  if (in->wo.rows > 0) out.push_back({"wo", &in->wo, &g.wo});
  for (size_t h = 0; h < in->heads.size(); h++) {
    const std::string p = "heads[" + std::to_string(h) + "].";
    out.push_back({p + "wq", &in->heads[h].wq, &g.heads[h].wq});
    out.push_back({p + "wk", &in->heads[h].wk, &g.heads[h].wk});
    out.push_back({p + "wv", &in->heads[h].wv, &g.heads[h].wv});
  }
  return out;
}

const FixtureCase& fixture_case(const std::vector<FixtureCase>& cases, const std::string& name) {
  const auto it = std::find_if(cases.begin(), cases.end(),
                               [&](const FixtureCase& c) { return c.name == name; });
  REQUIRE(it != cases.end());
  return *it;
}

}  // namespace

TEST_CASE("the backward pass agrees with PyTorch autograd within 1e-8", "[backward][torch]") {
  compare_with_torch();
}

// Not run by default: `attention_tests [backward-report]` prints the worst difference per case.
TEST_CASE("report the worst difference from torch per case", "[.][backward-report]") {
  for (const auto& [name, worst] : compare_with_torch()) {
    std::printf("%-48s worst |engine - torch| / max(1, |torch|) = %.2g\n", name.c_str(), worst);
  }
}

// Every parameter's gradient, and temperature's, against (L(θ + h) − L(θ − h)) / 2h for the
// loss of `seed`; returns the number of values compared.
int check_finite_differences(attn::MultiHeadInput in, const attn::Seed& seed) {
  attn::MultiHeadResult forward;
  attn::Gradients grads;
  const attn::Error err = attn::attention_backward(in, seed, &forward, &grads);
  INFO(err.message);
  REQUIRE(err.ok());
  // error ~h²·L‴ + ε·|L|/h, about 1e-10 here
  auto central = [&](double* theta) {
    const double saved = *theta;
    const double h = 1e-5 * std::max(1.0, std::fabs(saved));
    *theta = saved + h;
    const double up = loss(in, seed);
    *theta = saved - h;
    const double down = loss(in, seed);
    *theta = saved;
    return (up - down) / (2 * h);
  };
  int compared = 0;
  for (const Parameter& p : parameters(&in, grads.input)) {
    for (size_t i = 0; i < p.value->data.size(); i++) {
      const double fd = central(&p.value->data[i]);
      const double analytic = p.gradient->data[i];
      INFO(p.name << " value " << i << ": finite differences " << fd << ", backward " << analytic);
      CHECK(std::fabs(fd - analytic) <= 1e-6 * std::max(1.0, std::fabs(analytic)));
      compared++;
    }
  }
  const double fd = central(&in.options.temperature);
  INFO("temperature: finite differences " << fd << ", backward " << grads.input.temperature);
  CHECK(std::fabs(fd - grads.input.temperature) <=
        1e-6 * std::max(1.0, std::fabs(grads.input.temperature)));
  return compared;
}

TEST_CASE("every gradient matches central finite differences of the forward pass",
          "[backward][finite-differences]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  // masks, fully masked rows, W_O, cross-attention, PE, temperature, no √d_k, odd sizes
  const std::string name =
      GENERATE(as<std::string>{}, "tutorial_causal_padding_first",
               "causal_padding_first_two_rows_fully_masked", "heads3_dk7_dv2_wo_causal",
               "cross_pe_heads2_wo", "tutorial_no_scaling_temperature3", "everything_cross_heads4");
  INFO("case " << name);
  const FixtureCase& c = fixture_case(cases, name);
  CHECK(check_finite_differences(multi_head_input(c), output_seed(c.matrices.at("G"))) >= 18);
}

TEST_CASE("a seed on the weights agrees with PyTorch autograd within 1e-8",
          "[backward][torch][seed]") {
  const auto cases = load_fixture_cases(BACKWARD_SEED_FIXTURE_FILE);
  REQUIRE(cases.size() >= 15);
  int seeds = 0;
  for (const auto& c : cases) {
    if (c.options.at("seed") == 2) continue;  // a loss of train(): below
    INFO("case " << c.name);
    attn::MultiHeadResult forward;
    attn::Gradients g;
    const attn::Error err = attn::attention_backward(multi_head_input(c), seed_of(c), &forward, &g);
    INFO(err.message);
    REQUIRE(err.ok());
    compare_case(c, g);
    seeds++;
  }
  CHECK(seeds >= 10);
}

TEST_CASE("a seed on the weights matches central finite differences",
          "[backward][finite-differences][seed]") {
  const auto cases = load_fixture_cases(BACKWARD_SEED_FIXTURE_FILE);
  // S alone and with G; masks and fully masked rows, heads left out, PE, cross-attention, T
  const std::string name = GENERATE(
      as<std::string>{}, "tutorial_causal_padding_weights", "tutorial_temperature3_weights",
      "tutorial_pe_weights_and_output", "heads3_weights_heads_0_2", "fully_masked_rows_weights",
      "cross_pe_weights_and_output", "everything_weights_heads_1_3");
  INFO("case " << name);
  const FixtureCase& c = fixture_case(cases, name);
  CHECK(check_finite_differences(multi_head_input(c), seed_of(c)) >= 18);
}

TEST_CASE("the loss of train() and its gradients agree with PyTorch autograd",
          "[backward][torch][loss]") {
  const auto cases = load_fixture_cases(BACKWARD_SEED_FIXTURE_FILE);
  int losses = 0;
  attn::Workspace w;  // one for every case, as the bindings keep one
  for (const auto& c : cases) {
    if (c.options.at("seed") != 2) continue;
    INFO("case " << c.name);
    double value = 0.0;
    const attn::Error err = attn::loss_backward(multi_head_input(c), loss_of(c), &value, &w);
    INFO(err.message);
    REQUIRE(err.ok());
    const double want = c.matrices.at("loss").data[0];
    CHECK(std::fabs(value - want) <= 1e-8 * std::max(1.0, std::fabs(want)));
    compare_case(c, w.gradients);
    losses++;
  }
  CHECK(losses >= 5);
}

TEST_CASE("the cross-entropy's gradients match central finite differences of the loss",
          "[backward][finite-differences][loss]") {
  const auto cases = load_fixture_cases(BACKWARD_SEED_FIXTURE_FILE);
  const std::string name =
      GENERATE(as<std::string>{}, "tutorial_causal_loss_weights", "fully_masked_rows_loss_weights",
               "cross_pe_loss_weights_head1");
  INFO("case " << name);
  const FixtureCase& c = fixture_case(cases, name);
  attn::MultiHeadInput in = multi_head_input(c);
  const attn::TrainOptions o = loss_of(c);
  attn::Workspace w;
  double value = 0.0;
  REQUIRE(attn::loss_backward(in, o, &value, &w).ok());
  const attn::Gradients g = w.gradients;
  // L = −Σ_h Σ_i Σ_(j unmasked, T ≠ 0) T·log Weights / (|H|·n_q), from the forward pass here
  auto cross_entropy = [&]() {
    attn::MultiHeadResult r;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    double sum = 0.0;
    int n_targets = 0;
    for (size_t h = 0; h < o.target_weights.size(); h++) {
      const Matrix& t = o.target_weights[h];
      if (t.rows == 0) continue;
      n_targets++;
      for (int i = 0; i < t.rows; i++) {
        for (int j = 0; j < t.cols; j++) {
          if (t.at(i, j) != 0 && !r.mask.at(i, j)) {
            sum -= t.at(i, j) * std::log(r.heads[h].weights.at(i, j));
          }
        }
      }
    }
    return sum / (n_targets * in.x.rows);
  };
  CHECK(std::fabs(cross_entropy() - value) <= 1e-12);
  int compared = 0;
  for (const Parameter& p : parameters(&in, g.input)) {
    for (size_t i = 0; i < p.value->data.size(); i++) {
      double& theta = p.value->data[i];
      const double saved = theta;
      const double h = 1e-5 * std::max(1.0, std::fabs(saved));
      theta = saved + h;
      const double up = cross_entropy();
      theta = saved - h;
      const double down = cross_entropy();
      theta = saved;
      const double fd = (up - down) / (2 * h);
      INFO(p.name << " value " << i << ": finite differences " << fd << ", backward "
                  << p.gradient->data[i]);
      CHECK(std::fabs(fd - p.gradient->data[i]) <= 1e-6 * std::max(1.0, std::fabs(fd)));
      compared++;
    }
  }
  CHECK(compared >= 12);
}

TEST_CASE("masked cells of scaled and scores get exactly 0, weights the true gradient",
          "[backward][mask]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  // causal, keys 0, 1 and 4 padded: rows 0 and 1 see no key at all
  const FixtureCase& c = fixture_case(cases, "causal_padding_first_two_rows_fully_masked");
  const attn::MultiHeadInput in = multi_head_input(c);
  attn::MultiHeadResult f;
  attn::Gradients g;
  REQUIRE(attn::attention_backward(in, output_seed(c.matrices.at("G")), &f, &g).ok());
  REQUIRE(f.mask.fully_masked == std::vector<unsigned char>{1, 1, 0, 0, 0});
  int nonzero_masked_weights = 0;
  for (size_t h = 0; h < in.heads.size(); h++) {
    const attn::AttentionResult& r = g.result.heads[h];
    for (int i = 0; i < f.mask.n_q; i++) {
      for (int j = 0; j < f.mask.n_k; j++) {
        // dWeights[i][j] = Σ_d dOutput_h[i][d]·V_h[j][d], summed here in the same order
        double want = 0.0;
        for (int d = 0; d < r.output.cols; d++) want += r.output.at(i, d) * f.heads[h].v.at(j, d);
        CHECK(r.weights.at(i, j) == want);
        if (!f.mask.at(i, j)) continue;
        CHECK(r.scaled.at(i, j) == 0.0);
        CHECK(r.scores.at(i, j) == 0.0);
        nonzero_masked_weights += want != 0.0;
      }
    }
  }
  CHECK(nonzero_masked_weights > 0);  // masked weights do have a gradient; it just goes nowhere
  CHECK(g.result.output.data == c.matrices.at("G").data);
}

TEST_CASE("without W_O the gradient of concat is the gradient of the output", "[backward]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  const FixtureCase& c = fixture_case(cases, "heads3_n4_dm6_causal_nowo");
  attn::MultiHeadResult f;
  attn::Gradients g;
  REQUIRE(
      attn::attention_backward(multi_head_input(c), output_seed(c.matrices.at("G")), &f, &g).ok());
  CHECK(g.result.concat.data == c.matrices.at("G").data);
  CHECK(g.input.wo.rows == 0);
  CHECK(g.result.x_with_pe.rows == 0);
}

TEST_CASE("the gradient of x passes through the positional encoding unchanged", "[backward][pe]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  const FixtureCase& c = fixture_case(cases, "cross_pe_heads2_wo");
  attn::MultiHeadResult f;
  attn::Gradients g;
  REQUIRE(
      attn::attention_backward(multi_head_input(c), output_seed(c.matrices.at("G")), &f, &g).ok());
  CHECK(g.result.x_with_pe.data == g.input.x.data);
  CHECK(g.result.context_with_pe.data == g.input.context.data);
}

TEST_CASE("bad gradients and inputs are errors that name the operand", "[backward][errors]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  attn::MultiHeadInput in = multi_head_input(fixture_case(cases, "heads2_n5_dm8_wo"));
  attn::MultiHeadResult f;
  attn::Gradients g;

  SECTION("G of another shape than the output (5 × 8)") {
    attn::Error err = attn::attention_backward(in, output_seed(Matrix(4, 8)), &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.operand == "output");
    CHECK(err.row == 4);  // the first missing row
    CHECK(err.column == -1);
    CHECK_THAT(err.message, Catch::Matchers::Equals(
                                "output is 4 × 8 but the gradient must have the output's shape "
                                "5 × 8 (n_q × d_model)"));
    err = attn::attention_backward(in, output_seed(Matrix(5, 9)), &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.row == -1);
    CHECK(err.column == 8);  // the first extra column
  }
  SECTION("an input the forward pass rejects, with the forward's error") {
    in.heads[1].wk = Matrix(3, 4);
    attn::MultiHeadResult r;
    const attn::Error want = attn::multi_head_attention(in, &r);
    const attn::Error err = attn::attention_backward(in, output_seed(Matrix(5, 8)), &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.operand == "wk");
    CHECK(err.head == 1);
    CHECK(err.message == want.message);
  }
  SECTION("a gradient that overflows float64 names its step") {
    Matrix big(5, 8);
    std::fill(big.data.begin(), big.data.end(), 1e308);
    const attn::Error err = attn::attention_backward(in, output_seed(big), &f, &g);
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "concat");  // G·W_Oᵀ, the first product
    CHECK_THAT(err.message, Catch::Matchers::StartsWith("the gradient of concat["));
    // the engine keeps working
    CHECK(attn::attention_backward(in, output_seed(Matrix(5, 8)), &f, &g).ok());
  }
  SECTION("a seed with neither G nor S") {
    attn::Seed none;
    none.weights.resize(2);  // both heads left out
    const attn::Error err = attn::attention_backward(in, none, &f, &g);
    CHECK(err.code == ErrorCode::empty);
    CHECK(err.operand == "output");
  }
  SECTION("S for another number of heads, of another shape, or not finite") {
    attn::Seed s;
    s.weights = {Matrix(5, 5), Matrix{}, Matrix{}};
    attn::Error err = attn::attention_backward(in, s, &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.operand == "weights");
    CHECK_THAT(err.message, Catch::Matchers::StartsWith("weights has 3 matrices but there are 2"));
    s.weights = {Matrix{}, Matrix(5, 4)};
    err = attn::attention_backward(in, s, &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.operand == "weights");
    CHECK(err.head == 1);
    CHECK(err.row == -1);
    CHECK(err.column == 4);
    CHECK_THAT(err.message, Catch::Matchers::Equals("weights[1] is 5 × 4 but the gradient must "
                                                    "have the weights' shape 5 × 5 (n_q × n_k)"));
    s.weights[1] = Matrix(5, 5);
    s.weights[1].at(3, 2) = std::nan("");
    err = attn::attention_backward(in, s, &f, &g);
    CHECK(err.code == ErrorCode::not_finite);
    CHECK(err.operand == "weights");
    CHECK(err.head == 1);
    CHECK(err.row == 3);
    CHECK(err.column == 2);
    s.weights[1].at(3, 2) = 0.0;
    s.output = Matrix(5, 8);
    s.output.at(4, 7) = -INFINITY;
    err = attn::attention_backward(in, s, &f, &g);
    CHECK(err.code == ErrorCode::not_finite);
    CHECK(err.operand == "output");
    CHECK(err.row == 4);
    CHECK(err.column == 7);
    CHECK_THAT(err.message, Catch::Matchers::Equals(
                                "output[4][7] is -Infinity: every value must be a finite number"));
  }
  SECTION("the cross-entropy on a weight that underflowed to 0 is an overflow") {
    in.wo = Matrix{};
    for (double& v : in.heads[0].wq.data) v *= 1e3;  // scores ~1e4: some weights exactly 0
    attn::MultiHeadResult r;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    int zero = -1;
    for (int k = 0; k < 25 && zero < 0; k++) zero = r.heads[0].weights.data[k] == 0.0 ? k : -1;
    REQUIRE(zero >= 0);
    attn::TrainOptions o;
    o.loss = attn::Loss::weights_cross_entropy;
    o.target_weights = {Matrix(5, 5), Matrix{}};
    o.target_weights[0].data[zero] = 1.0;
    attn::Workspace w;
    double value = 0.0;
    const attn::Error err = attn::loss_backward(in, o, &value, &w);
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "weights");
    CHECK(err.row == zero / 5);
    CHECK(err.column == zero % 5);
  }
  SECTION("an overflow inside a head names the head") {
    in.wo = Matrix{};
    for (auto& head : in.heads) {
      for (double& v : head.wv.data) v *= 1e150;  // V ~ 1e150: dWeights = G·Vᵀ ~ 1e308 · 1e150
    }
    Matrix big(5, 8);
    std::fill(big.data.begin(), big.data.end(), 1e300);
    const attn::Error err = attn::attention_backward(in, output_seed(big), &f, &g);
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "weights");
    CHECK(err.head == 0);
    CHECK_THAT(err.message, Catch::Matchers::StartsWith("the gradient of heads[0].weights["));
  }
}
