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

using attn::ErrorCode;
using attn::Matrix;

namespace {

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

// Every case against torch; returns the worst relative difference of each case.
std::map<std::string, double> compare_with_torch() {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  REQUIRE(cases.size() >= 20);
  std::map<std::string, double> worst;
  for (const auto& c : cases) {
    INFO("case " << c.name);
    attn::MultiHeadResult forward;
    attn::Gradients g;
    const attn::Error err =
        attn::attention_backward(multi_head_input(c), c.matrices.at("G"), &forward, &g);
    INFO(err.message);
    REQUIRE(err.ok());
    const auto got = named(g);
    size_t checked = 0;
    for (const auto& [name, want] : c.matrices) {
      if (name.rfind("d.", 0) != 0) continue;  // an input
      INFO(name);
      double diff = 0.0;
      if (name == "d.temperature") {
        diff =
            std::fabs(g.input.temperature - want.data[0]) / std::max(1.0, std::fabs(want.data[0]));
      } else {
        REQUIRE(got.count(name) == 1);
        diff = relative_diff(*got.at(name), want);
        checked++;
      }
      INFO("max |engine - torch| / max(1, |torch|) = " << diff);
      CHECK(diff <= 1e-8);
      worst[c.name] = std::max(worst[c.name], diff);
    }
    CHECK(checked == got.size());  // nothing the engine returns is left unchecked
  }
  return worst;
}

// L = Σ G ⊙ Output, the loss whose gradient G is.
double loss(const attn::MultiHeadInput& in, const Matrix& g) {
  attn::MultiHeadResult r;
  const attn::Error err = attn::multi_head_attention(in, &r);
  REQUIRE(err.ok());
  double sum = 0.0;
  for (size_t i = 0; i < g.data.size(); i++) sum += g.data[i] * r.output.data[i];
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
  attn::MultiHeadInput in = multi_head_input(c);
  const Matrix& g = c.matrices.at("G");
  attn::MultiHeadResult forward;
  attn::Gradients grads;
  REQUIRE(attn::attention_backward(in, g, &forward, &grads).ok());

  // (L(θ + h) − L(θ − h)) / 2h: error ~h²·L''' + ε·|L|/h, about 1e-10 here
  auto central = [&](double* theta) {
    const double saved = *theta;
    const double h = 1e-5 * std::max(1.0, std::fabs(saved));
    *theta = saved + h;
    const double up = loss(in, g);
    *theta = saved - h;
    const double down = loss(in, g);
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
  CHECK(compared >= 18);  // the tutorial's x, W_Q, W_K, W_V
}

TEST_CASE("masked cells of scaled and scores get exactly 0, weights the true gradient",
          "[backward][mask]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  // causal, keys 0, 1 and 4 padded: rows 0 and 1 see no key at all
  const FixtureCase& c = fixture_case(cases, "causal_padding_first_two_rows_fully_masked");
  const attn::MultiHeadInput in = multi_head_input(c);
  attn::MultiHeadResult f;
  attn::Gradients g;
  REQUIRE(attn::attention_backward(in, c.matrices.at("G"), &f, &g).ok());
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
  REQUIRE(attn::attention_backward(multi_head_input(c), c.matrices.at("G"), &f, &g).ok());
  CHECK(g.result.concat.data == c.matrices.at("G").data);
  CHECK(g.input.wo.rows == 0);
  CHECK(g.result.x_with_pe.rows == 0);
}

TEST_CASE("the gradient of x passes through the positional encoding unchanged", "[backward][pe]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  const FixtureCase& c = fixture_case(cases, "cross_pe_heads2_wo");
  attn::MultiHeadResult f;
  attn::Gradients g;
  REQUIRE(attn::attention_backward(multi_head_input(c), c.matrices.at("G"), &f, &g).ok());
  CHECK(g.result.x_with_pe.data == g.input.x.data);
  CHECK(g.result.context_with_pe.data == g.input.context.data);
}

TEST_CASE("bad gradients and inputs are errors that name the operand", "[backward][errors]") {
  const auto cases = load_fixture_cases(BACKWARD_FIXTURE_FILE);
  attn::MultiHeadInput in = multi_head_input(fixture_case(cases, "heads2_n5_dm8_wo"));
  attn::MultiHeadResult f;
  attn::Gradients g;

  SECTION("G of another shape than the output (5 × 8)") {
    attn::Error err = attn::attention_backward(in, Matrix(4, 8), &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.operand == "output");
    CHECK(err.row == 4);  // the first missing row
    CHECK(err.column == -1);
    CHECK_THAT(err.message, Catch::Matchers::Equals(
                                "output is 4 × 8 but the gradient must have the output's shape "
                                "5 × 8 (n_q × d_model)"));
    err = attn::attention_backward(in, Matrix(5, 9), &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.row == -1);
    CHECK(err.column == 8);  // the first extra column
  }
  SECTION("an input the forward pass rejects, with the forward's error") {
    in.heads[1].wk = Matrix(3, 4);
    attn::MultiHeadResult r;
    const attn::Error want = attn::multi_head_attention(in, &r);
    const attn::Error err = attn::attention_backward(in, Matrix(5, 8), &f, &g);
    CHECK(err.code == ErrorCode::shape);
    CHECK(err.operand == "wk");
    CHECK(err.head == 1);
    CHECK(err.message == want.message);
  }
  SECTION("a gradient that overflows float64 names its step") {
    Matrix big(5, 8);
    std::fill(big.data.begin(), big.data.end(), 1e308);
    const attn::Error err = attn::attention_backward(in, big, &f, &g);
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "concat");  // G·W_Oᵀ, the first product
    CHECK_THAT(err.message, Catch::Matchers::StartsWith("the gradient of concat["));
    // the engine keeps working
    CHECK(attn::attention_backward(in, Matrix(5, 8), &f, &g).ok());
  }
  SECTION("an overflow inside a head names the head") {
    in.wo = Matrix{};
    for (auto& head : in.heads) {
      for (double& v : head.wv.data) v *= 1e150;  // V ~ 1e150: dWeights = G·Vᵀ ~ 1e308 · 1e150
    }
    Matrix big(5, 8);
    std::fill(big.data.begin(), big.data.end(), 1e300);
    const attn::Error err = attn::attention_backward(in, big, &f, &g);
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "weights");
    CHECK(err.head == 0);
    CHECK_THAT(err.message, Catch::Matchers::StartsWith("the gradient of heads[0].weights["));
  }
}
