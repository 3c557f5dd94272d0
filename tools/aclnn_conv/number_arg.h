#pragma once
// Strict integer option values: decimal digits with an optional leading '-',
// nothing else (no spaces, no '+', no hex, no exponent), within [min, max].

#include <cstdint>
#include <string>

// On failure returns false and sets *error to "expected an integer from
// <min> to <max>, got '<text>'".
bool parseIntegerArg(const std::string& text, int64_t min, int64_t max, int64_t* value,
                     std::string* error);
