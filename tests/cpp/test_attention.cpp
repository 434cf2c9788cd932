// Engine tests. Expected values come from tests/REFERENCE.md and from numpy fixtures
// (tests/make_fixtures.py), never from the engine itself.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "attention.h"
#include "fixtures.h"

using attn::ErrorCode;
using attn::Matrix;
using Rows = std::vector<std::vector<double>>;
using Catch::Matchers::Contains;

namespace {

// Packs rows the way the JS binding does (flat values + row lengths) and validates them.
attn::Error from_rows(const std::string& name, const Rows& rows, Matrix* out) {
  std::vector<double> values;
  std::vector<int> lengths;
  for (const auto& row : rows) {
    values.insert(values.end(), row.begin(), row.end());
    lengths.push_back(static_cast<int>(row.size()));
  }
  return attn::matrix_from_rows(name, values.data(), lengths.data(), static_cast<int>(rows.size()),
                                out);
}

Matrix matrix(const Rows& rows) {
  Matrix m;
  attn::Error err = from_rows("m", rows, &m);
  REQUIRE(err.ok());
  return m;
}

attn::AttentionInput make_input(const Rows& x, const Rows& wq, const Rows& wk, const Rows& wv) {
  return attn::AttentionInput{matrix(x), matrix(wq), matrix(wk), matrix(wv)};
}

attn::AttentionInput tutorial_input() {
  return make_input({{1.0, 0.0}, {0.5, 0.5}, {0.0, 1.0}}, {{0.5, 0.2}, {0.1, 0.6}},
                    {{0.4, 0.3}, {0.2, 0.7}}, {{0.8, 0.1}, {0.3, 0.9}});
}

// Largest |a - b| over two matrices of the same shape.
double max_abs_diff(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  double d = 0.0;
  for (size_t i = 0; i < a.data.size(); i++) d = std::max(d, std::fabs(a.data[i] - b.data[i]));
  return d;
}

double max_abs(const Matrix& m) {
  double d = 0.0;
  for (double v : m.data) d = std::max(d, std::fabs(v));
  return d;
}

void check_close(const Matrix& got, const Rows& want, double tol) {
  Matrix expected = matrix(want);
  CHECK(max_abs_diff(got, expected) <= tol);
}

}  // namespace

TEST_CASE("the tutorial's worked example gives the true values, not its misprinted digits",
          "[example]") {
  attn::AttentionResult r;
  REQUIRE(attn::self_attention(tutorial_input(), &r).ok());

  // tests/REFERENCE.md: what the tutorial's own numpy code prints (float64 repr)
  const double tol = 1e-12;
  check_close(r.q, {{0.5, 0.2}, {0.3, 0.4}, {0.1, 0.6}}, tol);
  check_close(r.k, {{0.4, 0.3}, {0.30000000000000004, 0.5}, {0.2, 0.7}}, tol);
  check_close(r.v, {{0.8, 0.1}, {0.55, 0.5}, {0.3, 0.9}}, tol);
  check_close(
      r.scores,
      {{0.26, 0.25, 0.24}, {0.24, 0.29000000000000004, 0.33999999999999997}, {0.22, 0.33, 0.44}},
      tol);
  check_close(r.scaled,
              {{0.18384776310850234, 0.17677669529663687, 0.1697056274847714},
               {0.1697056274847714, 0.2050609665440988, 0.2404163056034261},
               {0.15556349186104046, 0.2333452377915607, 0.3111269837220809}},
              tol);
  check_close(r.weights,
              {{0.3356931140387022, 0.3333277778472214, 0.33097910811407644},
               {0.3216200976300485, 0.33319448783456673, 0.3451854145353847},
               {0.30776779723570424, 0.3326621264139182, 0.3595700763503775}},
              tol);
  check_close(r.output,
              {{0.5511785014811565, 0.49811439763014975},
               {0.544108670773666, 0.5094261267621345},
               {0.5370494302213317, 0.5207209116458693}},
              tol);

  SECTION(
      "the tutorial's printed step-3/4/5 digits are wrong, and the engine does not match them") {
    CHECK(std::fabs(r.scaled.at(1, 1) - 0.20506082) > 1e-7);
    CHECK(std::fabs(r.weights.at(0, 0) - 0.33614837) > 1e-4);
    CHECK(std::fabs(r.output.at(0, 0) - 0.55158713) > 1e-4);
  }
  SECTION("its three-decimal summary of the output is right") {
    const double summary[3][2] = {{0.551, 0.498}, {0.544, 0.509}, {0.537, 0.521}};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++) CHECK(std::fabs(r.output.at(i, j) - summary[i][j]) < 5e-4);
  }
}

TEST_CASE("every step agrees with numpy on random shapes and magnitudes", "[numpy]") {
  const auto cases = load_fixture_cases(FIXTURE_FILE);
  REQUIRE(cases.size() >= 30);
  for (const auto& c : cases) {
    INFO("case " << c.name);
    const auto& m = c.matrices;
    attn::AttentionInput in{m.at("x"), m.at("wq"), m.at("wk"), m.at("wv")};
    attn::AttentionResult r;
    attn::Error err = attn::self_attention(in, &r);
    INFO(err.message);
    REQUIRE(err.ok());
    const std::pair<const char*, const Matrix*> results[] = {
        {"q", &r.q},           {"k", &r.k},           {"v", &r.v},
        {"scores", &r.scores}, {"scaled", &r.scaled}, {"weights", &r.weights},
        {"output", &r.output}};
    for (const auto& [name, got] : results) {
      const Matrix& want = m.at(name);
      // 1e-12 relative to the matrix's magnitude: numpy's BLAS sums in another order
      const double tol = 1e-12 * std::max(1.0, max_abs(want));
      const double diff = max_abs_diff(*got, want);
      INFO(name << ": max |engine - numpy| = " << diff << ", tolerance " << tol);
      CHECK(diff <= tol);
    }
  }
}

TEST_CASE("softmax rows sum to one and keep their order", "[softmax]") {
  Matrix w;
  attn::softmax_rows(matrix({{1.0, 2.0, 3.0}, {-5.0, 0.0, 5.0}, {0.25, 0.25, 0.25}}), &w);
  for (int i = 0; i < w.rows; i++) {
    double sum = 0.0;
    for (int j = 0; j < w.cols; j++) sum += w.at(i, j);
    CHECK_THAT(sum, Catch::Matchers::WithinAbs(1.0, 1e-15));
  }
  CHECK(w.at(0, 0) < w.at(0, 1));
  CHECK(w.at(0, 1) < w.at(0, 2));
  CHECK_THAT(w.at(2, 1), Catch::Matchers::WithinAbs(1.0 / 3.0, 1e-16));
}

TEST_CASE("softmax subtracts the row max, so scores beyond exp's range still work", "[softmax]") {
  // exp(1000) overflows float64; the stabilised softmax never evaluates it
  Matrix w;
  attn::softmax_rows(matrix({{1000.0, 1000.0 + std::log(3.0)}, {-1e300, 1e300}}), &w);
  CHECK_THAT(w.at(0, 0), Catch::Matchers::WithinAbs(0.25, 1e-12));
  CHECK_THAT(w.at(0, 1), Catch::Matchers::WithinAbs(0.75, 1e-12));
  CHECK(w.at(1, 0) == 0.0);
  CHECK(w.at(1, 1) == 1.0);
}

TEST_CASE("softmax's vectorised exp agrees with std::exp over its whole range", "[softmax]") {
  // Each row takes one of the softmax's three ways to exp: spanning [-700, 0], every exp is
  // normal and nothing is tested per element; with -Infinity too (masked keys), those are
  // zeroed; spanning [-745, 0] with -Infinity, subnormal results go to std::exp. Each row's
  // max is 0, whose weight is 1 / sum, so weight / that weight is the exp itself, up to two
  // roundings of the divisions. The odd length runs the scalar tail too.
  const int n = 20001;
  const double eps = std::numeric_limits<double>::epsilon();
  struct Case {
    double low;
    bool masked;
  };
  for (const Case c : {Case{-700.0, false}, Case{-700.0, true}, Case{-745.0, true}}) {
    const double low = c.low;
    std::vector<double> row(n);
    for (int j = 0; j < n; j++) row[j] = low * std::fmod(j * 0.6180339887498949, 1.0);
    if (c.masked) {
      for (int j = 7; j < n; j += 97) row[j] = -std::numeric_limits<double>::infinity();
    }
    if (low < -708) {
      row[11] = -708.0;  // the edge between the two ways exp is computed
      row[12] = std::nextafter(-708.0, 0.0);
      row[13] = std::nextafter(-708.0, -1000.0);
    }
    REQUIRE(row[0] == 0.0);
    long double sum = 0;
    for (double x : row) sum += std::exp(static_cast<long double>(x));
    Matrix x(1, n);
    x.data = row;  // not through matrix(): input validation rejects -Infinity
    Matrix w;
    attn::softmax_rows(x, &w);
    double worst = 0;  // relative error of the exp, where it is a normal double
    for (int j = 0; j < n; j++) {
      const double want = std::exp(row[j]);
      if (want / static_cast<double>(sum) >= std::numeric_limits<double>::min()) {
        worst = std::max(worst, std::fabs(w.at(0, j) / w.at(0, 0) - want) / want);
      } else {  // a subnormal or zero weight: compared as a weight
        const double want_weight =
            static_cast<double>(std::exp(static_cast<long double>(row[j])) / sum);
        INFO("x = " << row[j] << ": weight " << w.at(0, j) << ", expected " << want_weight);
        CHECK(std::fabs(w.at(0, j) - want_weight) <= 2 * std::numeric_limits<double>::denorm_min());
      }
    }
    INFO("row down to " << low << (c.masked ? ", masked" : "") << ": worst relative error of exp "
                        << worst);
    CHECK(worst <= 3 * eps);
  }
}

TEST_CASE("matrix products have the expected shapes and values", "[matmul]") {
  Matrix a = matrix({{1, 2, 3}, {4, 5, 6}});    // (2, 3)
  Matrix b = matrix({{1, 0}, {0, 1}, {1, 1}});  // (3, 2)
  Matrix ab;
  attn::MatmulScratch scratch;
  attn::matmul(a, b, &ab, &scratch);
  REQUIRE(ab.rows == 2);
  REQUIRE(ab.cols == 2);
  check_close(ab, {{4, 5}, {10, 11}}, 0.0);

  Matrix aat;
  attn::matmul_transposed(a, a, &aat, &scratch);  // (2, 2) = a·aᵀ
  check_close(aat, {{14, 32}, {32, 77}}, 0.0);
}

TEST_CASE("d_k and d_v may differ from d_model and from each other", "[shapes]") {
  // n = 2, d_model = 3, d_k = 1, d_v = 4
  attn::AttentionInput in = make_input({{1, 0, 0}, {0, 1, 0}}, {{1}, {0}, {0}}, {{0}, {1}, {0}},
                                       {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}});
  attn::AttentionResult r;
  REQUIRE(attn::self_attention(in, &r).ok());
  CHECK(r.q.rows == 2);
  CHECK(r.q.cols == 1);
  CHECK(r.scores.rows == 2);
  CHECK(r.scores.cols == 2);
  CHECK(r.output.rows == 2);
  CHECK(r.output.cols == 4);
  // q = (1, 0), k = (0, 1): scores [[0, 1], [0, 0]], d_k = 1 so scaled == scores
  check_close(r.scaled, {{0, 1}, {0, 0}}, 0.0);
  const double e = std::exp(1.0);
  check_close(r.weights, {{1 / (1 + e), e / (1 + e)}, {0.5, 0.5}}, 1e-15);
}

TEST_CASE("bad values are reported with the operand, row and column", "[validation]") {
  Matrix m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();

  SECTION("no rows") {
    attn::Error err = from_rows("x", {}, &m);
    CHECK(err.code == ErrorCode::empty);
    CHECK(err.operand == "x");
    CHECK_THAT(err.message, Contains("x is empty"));
  }
  SECTION("an empty row") {
    attn::Error err = from_rows("wq", {{1, 2}, {}}, &m);
    CHECK(err.code == ErrorCode::empty_row);
    CHECK(err.row == 1);
    CHECK_THAT(err.message, Contains("wq[1] is empty"));
  }
  SECTION("a ragged row") {
    attn::Error err = from_rows("x", {{1, 2}, {3, 4}, {5, 6, 7}}, &m);
    CHECK(err.code == ErrorCode::ragged);
    CHECK(err.operand == "x");
    CHECK(err.row == 2);
    CHECK(err.column == -1);
    CHECK_THAT(err.message, Contains("x[2] has 3 values but x[0] has 2"));
  }
  SECTION("NaN, Infinity and -Infinity") {
    auto [value, word] = GENERATE_COPY(
        table<double, std::string>({{nan, "NaN"}, {inf, "Infinity"}, {-inf, "-Infinity"}}));
    attn::Error err = from_rows("wv", {{1, 2}, {3, value}}, &m);
    CHECK(err.code == ErrorCode::not_finite);
    CHECK(err.operand == "wv");
    CHECK(err.row == 1);
    CHECK(err.column == 1);
    CHECK_THAT(err.message, Contains("wv[1][1] is " + word + ":"));
  }
}

TEST_CASE("mismatched shapes name the operand and both shapes", "[validation]") {
  const Rows x = {{1, 0}, {0, 1}, {1, 1}};  // (3, 2): d_model = 2
  const Rows w22 = {{1, 0}, {0, 1}};
  const Rows w32 = {{1, 0}, {0, 1}, {1, 1}};
  const Rows w23 = {{1, 0, 0}, {0, 1, 0}};
  attn::AttentionResult r;

  auto [wq, wk, wv, operand, text] =
      GENERATE_COPY(table<Rows, Rows, Rows, std::string, std::string>({
          {w32, w22, w22, "wq",
           "wq has 3 rows but x has 2 columns: wq must be d_model × d_k with d_model = 2 "
           "(x is 3 × 2, wq is 3 × 2)"},
          {w22, w32, w22, "wk",
           "wk has 3 rows but x has 2 columns: wk must be d_model × d_k with d_model = 2 "
           "(x is 3 × 2, wk is 3 × 2)"},
          {w22, w22, w32, "wv",
           "wv has 3 rows but x has 2 columns: wv must be d_model × d_v with d_model = 2 "
           "(x is 3 × 2, wv is 3 × 2)"},
          {w22, w23, w22, "wk",
           "wk has 3 columns but wq has 2: queries and keys must have the same length d_k "
           "(wq is 2 × 2, wk is 2 × 3)"},
      }));
  attn::Error err = attn::self_attention(make_input(x, wq, wk, wv), &r);
  CHECK(err.code == ErrorCode::shape);
  CHECK(err.operand == operand);
  CHECK_THAT(err.message, Catch::Matchers::Equals(text));
}

TEST_CASE("finite inputs whose products overflow are reported, not returned as Infinity",
          "[validation]") {
  attn::AttentionResult r;
  SECTION("in a projection") {
    attn::Error err = attn::self_attention(
        make_input({{1e200, 1e200}}, {{1e200, 1}, {1, 1}}, {{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}), &r);
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "q");
    CHECK(err.row == 0);
    CHECK(err.column == 0);
    CHECK_THAT(err.message, Contains("q[0][0] is Infinity"));
  }
  SECTION("in the scores") {
    attn::Error err =
        attn::self_attention(make_input({{1e160}}, {{1}}, {{1}}, {{1}}), &r);  // Q·Kᵀ = 1e320
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "scores");
  }
  SECTION("and the engine computes correctly right after") {
    attn::self_attention(make_input({{1e160}}, {{1}}, {{1}}, {{1}}), &r);
    REQUIRE(attn::self_attention(tutorial_input(), &r).ok());
    CHECK_THAT(r.output.at(0, 0), Catch::Matchers::WithinAbs(0.5511785014811565, 1e-12));
  }
}
