#include "problem_spec.h"

#include <cctype>
#include <string>

namespace {

// Spatial dims in use: the trailing `spatialDims` of d, h, w.
int firstDim(const ProblemSpec& p) { return 3 - p.spatialDims; }

int64_t padBefore(const ProblemSpec& p, int dim) {
  if (p.fourValuePadding) return dim == 1 ? p.pad4[0] : p.pad4[2];
  return p.pad[dim];
}
int64_t padAfter(const ProblemSpec& p, int dim) {
  if (p.fourValuePadding) return dim == 1 ? p.pad4[1] : p.pad4[3];
  return p.pad[dim];
}

// The gradOutput extent of spatial dim `dim` (forward output size, or the
// transposed convolution's output size). False when the arithmetic overflows
// 64 bits; *extent is then meaningless. A stride below 1 (refused by the
// operator) gives 1, a negative extent 0.
bool inferExtent(const ProblemSpec& p, int dim, int64_t* extent) {
  int64_t span = 0, padded = 0, value = 0;
  // span = dilation * (kernel - 1) + 1
  if (__builtin_mul_overflow(p.dilation[dim], p.kernel[dim] - 1, &span) ||
      __builtin_add_overflow(span, 1, &span))
    return false;
  const int64_t stride = p.stride[dim];
  if (p.transposed) {
    // (size - 1) * stride - padBefore - padAfter + span + outputPadding
    if (__builtin_mul_overflow(p.size[dim] - 1, stride, &value) ||
        __builtin_sub_overflow(value, padBefore(p, dim), &value) ||
        __builtin_sub_overflow(value, padAfter(p, dim), &value) ||
        __builtin_add_overflow(value, span, &value) ||
        __builtin_add_overflow(value, p.outputPadding[dim], &value))
      return false;
  } else {
    // (size + padBefore + padAfter - span) / stride + 1, floor division
    if (__builtin_add_overflow(p.size[dim], padBefore(p, dim), &padded) ||
        __builtin_add_overflow(padded, padAfter(p, dim), &padded) ||
        __builtin_sub_overflow(padded, span, &padded))
      return false;
    if (stride < 1) {
      value = 1;
    } else if (padded < 0) {
      value = 0;
    } else {
      value = padded / stride + 1;
    }
  }
  *extent = value < 0 ? 0 : value;
  return true;
}

}  // namespace

std::vector<int64_t> ProblemSpec::inputShape() const {
  std::vector<int64_t> shape = {batch, inChannels};
  for (int d = firstDim(*this); d < 3; ++d) shape.push_back(size[d]);
  return shape;
}

std::vector<int64_t> ProblemSpec::weightShape() const {
  // groups < 1 is the operator's to refuse; it must not divide by zero here.
  const int64_t g = groups >= 1 ? groups : 1;
  std::vector<int64_t> shape;
  if (transposed)
    shape = {inChannels, outChannels / g};
  else
    shape = {outChannels, inChannels / g};
  for (int d = firstDim(*this); d < 3; ++d) shape.push_back(kernel[d]);
  return shape;
}

std::vector<int64_t> ProblemSpec::gradOutputShape() const {
  std::vector<int64_t> shape = {batch, outChannels};
  for (int d = firstDim(*this); d < 3; ++d) {
    int64_t extent = 0;
    inferExtent(*this, d, &extent);
    shape.push_back(extent);
  }
  return shape;
}

std::vector<int64_t> ProblemSpec::strideArray() const {
  return std::vector<int64_t>(stride + firstDim(*this), stride + 3);
}
std::vector<int64_t> ProblemSpec::paddingArray() const {
  if (fourValuePadding) return std::vector<int64_t>(pad4, pad4 + 4);
  return std::vector<int64_t>(pad + firstDim(*this), pad + 3);
}
std::vector<int64_t> ProblemSpec::dilationArray() const {
  return std::vector<int64_t>(dilation + firstDim(*this), dilation + 3);
}
std::vector<int64_t> ProblemSpec::outputPaddingArray() const {
  return std::vector<int64_t>(outputPadding + firstDim(*this), outputPadding + 3);
}

double ProblemSpec::macs() const {
  // Every (output position, output channel, input channel of its group, tap).
  const auto y = transposed ? inputShape() : gradOutputShape();
  double positions = 1;
  for (size_t i = 2; i < y.size(); ++i) positions *= static_cast<double>(y[i]);
  double taps = 1;
  for (int d = firstDim(*this); d < 3; ++d) taps *= static_cast<double>(kernel[d]);
  const double xChannels = static_cast<double>(transposed ? outChannels : inChannels);
  return static_cast<double>(batch) * static_cast<double>(y[1]) * positions *
         (xChannels / static_cast<double>(groups)) * taps;
}

std::string ProblemSpec::compact() const {
  std::string s = "n" + std::to_string(batch) + "c" + std::to_string(inChannels) + "o" +
                  std::to_string(outChannels);
  if (groups != 1) s += "g" + std::to_string(groups);
  const char* sizeKeys[] = {"d", "h", "w"};
  const char* dims[] = {"d", "h", "w"};
  for (int d = firstDim(*this); d < 3; ++d) s += sizeKeys[d] + std::to_string(size[d]);
  auto perDim = [&](const char* key, const int64_t* values, int64_t neutral) {
    bool same = true;
    for (int d = firstDim(*this); d < 3; ++d) same = same && values[d] == values[2];
    if (same) {
      if (values[2] != neutral) s += key + std::to_string(values[2]);
      return;
    }
    for (int d = firstDim(*this); d < 3; ++d)
      s += std::string(key) + dims[d] + std::to_string(values[d]);
  };
  perDim("k", kernel, -1);
  perDim("s", stride, 1);
  if (fourValuePadding) {
    s += "pt" + std::to_string(pad4[0]) + "pb" + std::to_string(pad4[1]) + "pl" +
         std::to_string(pad4[2]) + "pr" + std::to_string(pad4[3]);
  } else {
    perDim("p", pad, 0);
  }
  perDim("dl", dilation, 1);
  if (transposed) s += "t";
  // Shown without t too: the operator refuses it there, and the row says so.
  perDim("op", outputPadding, 0);
  return s;
}

namespace {

// Reads the digits at text[*i...] as a non-negative int64; false (with
// *error set) when there are none or they overflow.
bool readNumber(const std::string& text, size_t* i, const std::string& key, int64_t* value,
                std::string* error) {
  const size_t start = *i;
  int64_t v = 0;
  while (*i < text.size() && std::isdigit(static_cast<unsigned char>(text[*i]))) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text[*i] - '0', &v)) {
      size_t end = *i;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      *error = "the number of key '" + key + "' (" + text.substr(start, end - start) +
               ") does not fit in 64 bits";
      return false;
    }
    ++*i;
  }
  if (*i == start) {
    *error = "key '" + key + "' needs a number";
    return false;
  }
  *value = v;
  return true;
}

bool isFourValuePadKey(const std::string& k) {
  return k == "pt" || k == "pb" || k == "pl" || k == "pr";
}
bool isSymmetricPadKey(const std::string& k) {
  return k == "p" || k == "pd" || k == "ph" || k == "pw";
}

}  // namespace

bool parseProblem(const std::string& text, ProblemSpec* spec, std::string* error) {
  ProblemSpec p;
  bool haveD = false, haveH = false, haveW = false;
  // Longest keys first so that "dl" is not read as "d" followed by "l".
  static const char* const keys[] = {"dld", "dlh", "dlw", "op", "dl", "pt", "pb", "pl", "pr", "kd",
                                     "kh",  "kw",  "sd",  "sh", "sw", "pd", "ph", "pw", "n",  "c",
                                     "o",   "g",   "d",   "h",  "w",  "l",  "k",  "s",  "p",  "t"};
  struct Setting {
    std::string key;
    int64_t value;
  };
  std::vector<Setting> settings;
  if (text.empty()) {
    *error = "the descriptor is empty";
    return false;
  }
  size_t i = 0;
  while (i < text.size()) {
    const char* matched = nullptr;
    for (const char* key : keys) {
      if (text.compare(i, std::char_traits<char>::length(key), key) == 0) {
        matched = key;
        break;
      }
    }
    if (!matched) {
      *error = "unknown key at '" + text.substr(i) + "'";
      return false;
    }
    const std::string key = matched;
    i += key.size();
    for (const auto& s : settings) {
      // "w" and "l" name the same size.
      const bool same =
          s.key == key || ((s.key == "w" || s.key == "l") && (key == "w" || key == "l"));
      if (same) {
        *error = "key '" + key + "' is given twice";
        return false;
      }
    }
    int64_t value = 1;
    if (key == "t") {
      // "t" alone, or t0 / t1.
      if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        if (!readNumber(text, &i, key, &value, error)) return false;
        if (value > 1) {
          *error = "key 't' takes no number, 0 or 1, got " + std::to_string(value);
          return false;
        }
      }
    } else if (!readNumber(text, &i, key, &value, error)) {
      return false;
    }
    settings.push_back({key, value});
  }
  // Sizes first: they decide the dimensionality that "k", "s" etc. apply to.
  bool symmetricPad = false;
  for (const auto& s : settings) {
    if (s.key == "d") p.size[0] = s.value, haveD = true;
    if (s.key == "h") p.size[1] = s.value, haveH = true;
    if (s.key == "w" || s.key == "l") p.size[2] = s.value, haveW = true;
    if (isSymmetricPadKey(s.key)) symmetricPad = true;
    if (isFourValuePadKey(s.key)) p.fourValuePadding = true;
  }
  if (!haveW || (haveD && !haveH)) {
    *error = "give w (1D), h and w (2D) or d, h and w (3D)";
    return false;
  }
  if (symmetricPad && p.fourValuePadding) {
    *error = "give the padding either as p/pd/ph/pw or as pt/pb/pl/pr, not both";
    return false;
  }
  p.spatialDims = haveD ? 3 : haveH ? 2 : 1;
  if (p.fourValuePadding && p.spatialDims != 2) {
    *error = "pt/pb/pl/pr need a 2D problem";
    return false;
  }
  const int first = 3 - p.spatialDims;
  auto all = [&](int64_t* values, int64_t v) {
    for (int d = first; d < 3; ++d) values[d] = v;
  };
  // Whole-problem keys before per-dim ones, so that k3kh5 means 5x3.
  for (const auto& s : settings) {
    const std::string& k = s.key;
    const int64_t v = s.value;
    if (k == "n")
      p.batch = v;
    else if (k == "c")
      p.inChannels = v;
    else if (k == "o")
      p.outChannels = v;
    else if (k == "g")
      p.groups = v;
    else if (k == "k")
      all(p.kernel, v);
    else if (k == "s")
      all(p.stride, v);
    else if (k == "p")
      all(p.pad, v);
    else if (k == "dl")
      all(p.dilation, v);
    else if (k == "op")
      all(p.outputPadding, v);
    else if (k == "t")
      p.transposed = v != 0;
  }
  for (const auto& s : settings) {
    const std::string& k = s.key;
    const int64_t v = s.value;
    if (isFourValuePadKey(k)) {
      p.pad4[k == "pt" ? 0 : k == "pb" ? 1 : k == "pl" ? 2 : 3] = v;
      continue;
    }
    const bool perDim = k.size() >= 2 && k != "dl" && k != "op" &&
                        (k[0] == 'k' || k[0] == 's' || k[0] == 'p' || k.rfind("dl", 0) == 0);
    if (!perDim) continue;
    const char axis = k.back();
    const int dim = axis == 'd' ? 0 : axis == 'h' ? 1 : 2;
    if (dim < first) {
      *error = "key '" + k + "' names a dim the problem does not have";
      return false;
    }
    int64_t* target = k[0] == 'k'   ? p.kernel
                      : k[0] == 's' ? p.stride
                      : k[0] == 'p' ? p.pad
                                    : p.dilation;
    target[dim] = v;
  }
  // The API takes groups as an int.
  if (p.groups > 2147483647) {
    *error = "g must fit the API's int (at most 2147483647), got " + std::to_string(p.groups);
    return false;
  }
  static const char* const dimNames[] = {"d", "h", "w"};
  for (int d = first; d < 3; ++d) {
    int64_t extent = 0;
    if (!inferExtent(p, d, &extent)) {
      *error = std::string("the gradOutput extent of dim ") + dimNames[d] +
               " overflows 64-bit arithmetic";
      return false;
    }
  }
  p.name = text;
  *spec = p;
  return true;
}

std::vector<ProblemSpec> defaultProblems() {
  const struct {
    const char* name;
    const char* spec;
  } table[] = {
      {"resnet50 conv1 7x7/2", "n4c3o64h224w224k7s2p3"},
      {"resnet50 res2 1x1", "n8c256o64h56w56k1"},
      {"resnet50 res2 3x3", "n8c64o64h56w56k3p1"},
      {"resnet50 res3 3x3/2", "n8c128o128h56w56k3s2p1"},
      {"resnet50 res4 3x3", "n8c256o256h14w14k3p1"},
      {"resnet50 res5 1x1/2 proj", "n8c1024o2048h14w14k1s2"},
      {"mobilenet depthwise 3x3", "n8c128o128g128h56w56k3p1"},
      {"resnext grouped 3x3 g32", "n8c256o256g32h28w28k3p1"},
      {"dilated 3x3 d2", "n8c64o64h56w56k3p2dl2"},
      {"transposed 4x4/2", "n8c128o64h28w28k4s2p1t"},
      {"1D audio k5", "n8c64o128l2048k5p2"},
      {"3D video 3x3x3", "n2c32o32d16h28w28k3p1"},
  };
  std::vector<ProblemSpec> problems;
  for (const auto& entry : table) {
    ProblemSpec spec;
    std::string error;
    parseProblem(entry.spec, &spec, &error);
    spec.name = entry.name;
    problems.push_back(spec);
  }
  return problems;
}
