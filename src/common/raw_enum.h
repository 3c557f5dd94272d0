#pragma once
// Reading an enum argument that a C caller may have filled with any int.
// Loading an out-of-range value through the enum type is undefined behaviour
// in C++ (UBSan's -fsanitize=enum flags it), so API entry points copy the
// bits into the underlying integer first and validate that.

#include <cstring>
#include <type_traits>

namespace aclcpu {

template <typename Enum>
std::underlying_type_t<Enum> rawEnumValue(const Enum& value) {
  std::underlying_type_t<Enum> raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
}

}  // namespace aclcpu
