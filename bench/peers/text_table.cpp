#include "text_table.h"

#include <algorithm>
#include <cctype>

namespace peers {

namespace {

// Numbers ("12.5", "1.3e-06", "-" for none) are right-aligned, text left.
bool looksNumeric(const std::string& cell) {
  return cell == "-" || (!cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) ||
                                           (cell[0] == '-' && cell.size() > 1 &&
                                            std::isdigit(static_cast<unsigned char>(cell[1])))));
}

}  // namespace

void TextTable::print(FILE* out, bool markdown) const {
  const size_t columns = header_.size();
  auto cellOf = [](const std::vector<std::string>& row, size_t c) {
    return c < row.size() ? row[c] : std::string();
  };
  std::vector<bool> right(columns, false);
  for (size_t c = 1; c < columns; ++c) {
    right[c] = true;
    for (const auto& row : rows_) right[c] = right[c] && looksNumeric(cellOf(row, c));
  }
  if (markdown) {
    auto line = [&](const std::vector<std::string>& row) {
      std::fputs("|", out);
      for (size_t c = 0; c < columns; ++c) std::fprintf(out, " %s |", cellOf(row, c).c_str());
      std::fputs("\n", out);
    };
    line(header_);
    std::fputs("|", out);
    for (size_t c = 0; c < columns; ++c) std::fputs(right[c] ? "---:|" : "---|", out);
    std::fputs("\n", out);
    for (const auto& row : rows_) line(row);
    return;
  }
  std::vector<size_t> width(columns, 0);
  for (size_t c = 0; c < columns; ++c) {
    width[c] = header_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], cellOf(row, c).size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (size_t c = 0; c < columns; ++c) {
      const std::string cell = cellOf(row, c);
      const std::string pad(width[c] - cell.size(), ' ');
      text += (c ? " " : "") + (right[c] ? pad + cell : cell + pad);
    }
    text.erase(text.find_last_not_of(' ') + 1);
    std::fprintf(out, "%s\n", text.c_str());
  };
  line(header_);
  for (const auto& row : rows_) line(row);
}

}  // namespace peers
