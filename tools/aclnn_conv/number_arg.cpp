#include "number_arg.h"

#include <cctype>

bool parseIntegerArg(const std::string& text, int64_t min, int64_t max, int64_t* value,
                     std::string* error) {
  const std::string expected = "expected an integer from " + std::to_string(min) + " to " +
                               std::to_string(max) + ", got '" + text + "'";
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) i = 1;
  if (i == text.size()) {
    *error = expected;
    return false;
  }
  // Accumulate towards the sign so that INT64_MIN is representable.
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      *error = expected;
      return false;
    }
    const int digit = text[i] - '0';
    if (__builtin_mul_overflow(v, 10, &v) ||
        (negative ? __builtin_sub_overflow(v, digit, &v) : __builtin_add_overflow(v, digit, &v))) {
      *error = expected;
      return false;
    }
  }
  if (v < min || v > max) {
    *error = expected;
    return false;
  }
  *value = v;
  return true;
}
