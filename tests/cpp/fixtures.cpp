#include "fixtures.h"

#include <fstream>
#include <stdexcept>

std::vector<FixtureCase> load_fixture_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open fixture file " + path);
  std::vector<FixtureCase> cases;
  std::string word;
  while (in >> word) {
    if (word == "#") {
      std::getline(in, word);  // comment line
    } else if (word == "case") {
      cases.emplace_back();
      in >> cases.back().name;
    } else if (word == "end") {
      continue;
    } else {
      if (cases.empty()) throw std::runtime_error("matrix before the first case in " + path);
      int rows = 0, cols = 0;
      in >> rows >> cols;
      attn::Matrix m(rows, cols);
      for (double& v : m.data) in >> v;
      if (!in) throw std::runtime_error("bad matrix " + word + " in case " + cases.back().name);
      cases.back().matrices[word] = std::move(m);
    }
  }
  if (cases.empty()) throw std::runtime_error("no cases in " + path);
  return cases;
}
