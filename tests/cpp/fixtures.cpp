#include "fixtures.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace {

double parse_number(const std::string& word, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  if (word.empty() || *end != '\0') throw std::runtime_error("bad number " + word + " in " + where);
  return v;
}

}  // namespace

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
    } else if (cases.empty()) {
      throw std::runtime_error(word + " before the first case in " + path);
    } else if (word == "option") {
      std::string name, value;
      in >> name >> value;
      cases.back().options[name] = parse_number(value, "case " + cases.back().name);
    } else {
      int rows = 0, cols = 0;
      in >> rows >> cols;
      attn::Matrix m(rows, cols);
      std::string value;
      for (double& v : m.data) {
        in >> value;
        v = parse_number(value, word + " in case " + cases.back().name);
      }
      if (!in) throw std::runtime_error("bad matrix " + word + " in case " + cases.back().name);
      cases.back().matrices[word] = std::move(m);
    }
  }
  if (cases.empty()) throw std::runtime_error("no cases in " + path);
  return cases;
}
