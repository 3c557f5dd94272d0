#pragma once
// A table of strings printed either as aligned plain text (first column
// left-aligned, the rest right-aligned) or as a markdown table.

#include <cstdio>
#include <string>
#include <vector>

namespace peers {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void addRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(FILE* out, bool markdown) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace peers
