// The vector conversion loops (AVX2 + F16C, AVX-512) against the scalar
// conversions, bit for bit, at every ISA level this CPU runs: every fp16 and
// bf16 word through the loads, a large structured set of fp32 patterns (every
// exponent, ties at each rounding position, NaN payloads, infinities,
// subnormals, fp16/bf16 overflow) through the stores and operand roundings,
// with odd run lengths, unaligned starts and strided views.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/convert/convert.h"
#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace {

const ElementType kTypes[] = {ElementType::F32, ElementType::F16, ElementType::BF16};
const Rounding kRoundings[] = {Rounding::None, Rounding::HF32, Rounding::F16, Rounding::BF16};
const Isa kIsas[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx};

// Lowers the ISA for one scope; always restored.
class ForcedIsa {
 public:
  explicit ForcedIsa(Isa isa) : ok_(forceIsaForTesting(isa)) {}
  ~ForcedIsa() { clearIsaForTesting(); }
  ForcedIsa(const ForcedIsa&) = delete;
  ForcedIsa& operator=(const ForcedIsa&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

std::vector<Isa> supportedIsas() {
  std::vector<Isa> isas;
  for (Isa isa : kIsas) {
    if (isa <= detectedIsa()) isas.push_back(isa);
  }
  return isas;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

size_t bytesOf(ElementType type) { return type == ElementType::F32 ? 4 : 2; }

// Source element `word` (an fp32 bit pattern or a 16-bit word) as fp32.
float decode(uint32_t word, ElementType type) {
  switch (type) {
    case ElementType::F32:
      return fromBits(word);
    case ElementType::F16:
      return halfToFloat(static_cast<uint16_t>(word));
    case ElementType::BF16:
      return bf16ToFloat(static_cast<uint16_t>(word));
  }
  return 0.0f;
}

uint32_t encode(float value, ElementType type) {
  switch (type) {
    case ElementType::F32:
      return bitsOf(value);
    case ElementType::F16:
      return floatToHalf(value);
    case ElementType::BF16:
      return floatToBf16(value);
  }
  return 0;
}

// The scalar contract for one gathered / scattered element.
uint32_t expectedGather(uint32_t word, ElementType type, Rounding rounding) {
  return bitsOf(roundFloat(decode(word, type), rounding));
}
uint32_t expectedScatter(uint32_t bits, ElementType type, Rounding rounding) {
  return encode(roundFloat(fromBits(bits), rounding), type);
}

// Raw storage holding words of one dtype.
std::vector<unsigned char> pack(const std::vector<uint32_t>& words, ElementType type) {
  std::vector<unsigned char> storage(words.size() * bytesOf(type));
  for (size_t i = 0; i < words.size(); ++i) {
    if (type == ElementType::F32) {
      std::memcpy(storage.data() + 4 * i, &words[i], 4);
    } else {
      const uint16_t half = static_cast<uint16_t>(words[i]);
      std::memcpy(storage.data() + 2 * i, &half, 2);
    }
  }
  return storage;
}

uint32_t wordAt(const unsigned char* storage, ElementType type, int64_t index) {
  if (type == ElementType::F32) {
    uint32_t word;
    std::memcpy(&word, storage + 4 * index, 4);
    return word;
  }
  uint16_t half;
  std::memcpy(&half, storage + 2 * index, 2);
  return half;
}

View5 denseRun(void* data, ElementType type, int64_t length) {
  View5 view;
  view.data = data;
  view.type = type;
  const int64_t shape[5] = {1, 1, 1, 1, length};
  const int64_t strides[5] = {length, length, length, length, 1};
  for (int d = 0; d < 5; ++d) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  return view;
}

std::vector<uint32_t> allSixteenBitWords() {
  std::vector<uint32_t> words(65536);
  for (uint32_t w = 0; w < 65536; ++w) words[w] = w;
  return words;
}

// fp32 patterns that exercise every rule: each sign and exponent (0 =
// subnormal, 255 = Inf/NaN payloads) with mantissas at, just below and just
// above the halfway point of every rounding position (fp16 normal: bit 12,
// fp16 subnormal: bits 13..23, bf16: bit 15, HF32: bit 11) with odd and even
// kept bits; dense sweeps across the fp16 overflow threshold and the fp16
// subnormal range; and a scrambled sample of the whole 32-bit space.
std::vector<uint32_t> fp32Patterns() {
  std::vector<uint32_t> mantissas = {0u, 0x7fffffu, 0x7ffffeu, 0x400000u, 0x3fffffu, 0x400001u};
  for (int b = 0; b < 23; ++b) {
    const uint32_t bit = 1u << b;
    for (uint32_t m : {bit, bit - 1u, bit + 1u, bit | (bit << 1), (bit << 1) - 1u, bit * 3u + 1u,
                       0x7fffffu & ~(bit - 1u), 0x7fffffu & ~bit, 0x555555u ^ bit}) {
      mantissas.push_back(m & 0x7fffffu);
    }
  }
  std::vector<uint32_t> patterns;
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exponent = 0; exponent < 256; ++exponent) {
      for (uint32_t m : mantissas) patterns.push_back((sign << 31) | (exponent << 23) | m);
    }
    // Every pattern from just below 65504 to past 65536 (fp16 overflow).
    for (uint32_t bits = 0x477fd000u; bits <= 0x47801000u; ++bits)
      patterns.push_back((sign << 31) | bits);
    // The fp16 subnormal and smallest-normal range, at 1/256 of the finest step.
    for (uint32_t bits = 0x33000000u - 0x100u; bits <= 0x38800100u; bits += 0x100u) {
      patterns.push_back((sign << 31) | bits);
    }
  }
  uint32_t state = 12345u;
  for (int i = 0; i < (1 << 19); ++i) {
    state = state * 1664525u + 1013904223u;
    patterns.push_back(state ^ (state >> 13));
  }
  return patterns;
}

std::vector<uint32_t> gatherExpectations(const std::vector<uint32_t>& words, ElementType type,
                                         Rounding rounding) {
  std::vector<uint32_t> expected(words.size());
  for (size_t i = 0; i < words.size(); ++i) expected[i] = expectedGather(words[i], type, rounding);
  return expected;
}

std::vector<uint32_t> scatterExpectations(const std::vector<uint32_t>& values, ElementType type,
                                          Rounding rounding) {
  std::vector<uint32_t> expected(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    expected[i] = expectedScatter(values[i], type, rounding);
  return expected;
}

// Gathers words[start, start + length) as one dense run and compares with
// the scalar results `want` (computed once, shared by every ISA level).
void checkDenseGather(const std::vector<uint32_t>& words, const std::vector<uint32_t>& want,
                      ElementType type, Rounding rounding, int64_t start, int64_t length,
                      const char* what) {
  std::vector<unsigned char> storage = pack(words, type);
  std::vector<float> out(static_cast<size_t>(length) + 1, -777.0f);
  gatherToFloat(denseRun(storage.data() + start * bytesOf(type), type, length), rounding,
                out.data());
  int mismatches = 0;
  for (int64_t i = 0; i < length; ++i) {
    const uint32_t word = words[static_cast<size_t>(start + i)];
    const uint32_t expected = want[static_cast<size_t>(start + i)];
    if (bitsOf(out[static_cast<size_t>(i)]) != expected && ++mismatches <= 5) {
      ADD_FAILURE() << what << ": isa " << isaName(activeIsa()) << " type " << int(type)
                    << " rounding " << int(rounding) << " word 0x" << std::hex << word << " got 0x"
                    << bitsOf(out[static_cast<size_t>(i)]) << " want 0x" << expected;
    }
  }
  EXPECT_EQ(mismatches, 0) << what;
  EXPECT_EQ(out[static_cast<size_t>(length)], -777.0f) << what << ": wrote past the run";
}

// Scatters values[start, start + length) as one dense run and compares; the
// words around the run must keep their sentinel.
void checkDenseScatter(const std::vector<uint32_t>& values, const std::vector<uint32_t>& want,
                       ElementType type, Rounding rounding, int64_t start, int64_t length,
                       int64_t outStart, const char* what) {
  std::vector<float> in(values.size());
  for (size_t i = 0; i < values.size(); ++i) in[i] = fromBits(values[i]);
  const size_t bytes = bytesOf(type);
  std::vector<unsigned char> storage(static_cast<size_t>(outStart + length + 1) * bytes, 0x5a);
  scatterFromFloat(in.data() + start, rounding,
                   denseRun(storage.data() + outStart * bytes, type, length));
  int mismatches = 0;
  for (int64_t i = 0; i < length; ++i) {
    const uint32_t value = values[static_cast<size_t>(start + i)];
    const uint32_t expected = want[static_cast<size_t>(start + i)];
    const uint32_t got = wordAt(storage.data(), type, outStart + i);
    if (got != expected && ++mismatches <= 5) {
      ADD_FAILURE() << what << ": isa " << isaName(activeIsa()) << " type " << int(type)
                    << " rounding " << int(rounding) << " value 0x" << std::hex << value
                    << " got 0x" << got << " want 0x" << expected;
    }
  }
  EXPECT_EQ(mismatches, 0) << what;
  for (size_t b = 0; b < static_cast<size_t>(outStart) * bytes; ++b) {
    ASSERT_EQ(storage[b], 0x5a) << what << ": wrote before the run";
  }
  for (size_t b = static_cast<size_t>(outStart + length) * bytes; b < storage.size(); ++b) {
    ASSERT_EQ(storage[b], 0x5a) << what << ": wrote past the run";
  }
}

TEST(ConvertSimd, LoadsEverySixteenBitWord) {
  const std::vector<uint32_t> words = allSixteenBitWords();
  for (ElementType type : {ElementType::F16, ElementType::BF16}) {
    for (Rounding rounding : kRoundings) {
      const std::vector<uint32_t> want = gatherExpectations(words, type, rounding);
      for (Isa isa : supportedIsas()) {
        ForcedIsa forced(isa);
        ASSERT_TRUE(forced.ok());
        checkDenseGather(words, want, type, rounding, 0, 65536, "aligned");
        checkDenseGather(words, want, type, rounding, 1, 65535 - 2, "unaligned");
      }
    }
  }
}

TEST(ConvertSimd, Fp32OperandRoundingsOnEveryRule) {
  const std::vector<uint32_t> patterns = fp32Patterns();
  const int64_t count = static_cast<int64_t>(patterns.size());
  for (Rounding rounding : kRoundings) {
    const std::vector<uint32_t> want = gatherExpectations(patterns, ElementType::F32, rounding);
    for (Isa isa : supportedIsas()) {
      ForcedIsa forced(isa);
      ASSERT_TRUE(forced.ok());
      checkDenseGather(patterns, want, ElementType::F32, rounding, 0, count, "aligned");
      checkDenseGather(patterns, want, ElementType::F32, rounding, 3, count - 8, "unaligned");
    }
  }
}

TEST(ConvertSimd, StoresEveryRuleToEveryDtype) {
  const std::vector<uint32_t> patterns = fp32Patterns();
  const int64_t count = static_cast<int64_t>(patterns.size());
  for (ElementType type : kTypes) {
    for (Rounding rounding : kRoundings) {
      const std::vector<uint32_t> want = scatterExpectations(patterns, type, rounding);
      for (Isa isa : supportedIsas()) {
        ForcedIsa forced(isa);
        ASSERT_TRUE(forced.ok());
        checkDenseScatter(patterns, want, type, rounding, 0, count, 0, "aligned");
        checkDenseScatter(patterns, want, type, rounding, 5, count - 9, 3, "unaligned");
      }
    }
  }
}

// Every run length around the vector widths (8, 16) at every start offset
// within a vector, on special values, so tails and heads are both covered.
TEST(ConvertSimd, ShortRunsAndUnalignedStarts) {
  std::vector<uint32_t> halves = {0x0000u, 0x8000u, 0x0001u, 0x83ffu, 0x0400u, 0x7bffu, 0xfbffu,
                                  0x7c00u, 0xfc00u, 0x7c01u, 0x7e00u, 0xfdffu, 0x3c00u, 0x3555u};
  std::vector<uint32_t> floats = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u,
                                  0xff800000u, 0x7f800001u, 0xffc00000u, 0x477ff000u, 0x477fefffu,
                                  0xc77ff001u, 0x33000000u, 0x33000001u, 0x3f800800u, 0xbf801800u,
                                  0x3f808000u, 0x3f818000u, 0x7f7fffffu, 0xff7f8000u, 0x387fe000u};
  while (halves.size() < 64) halves.push_back(halves[halves.size() % 14] ^ 0x0155u);
  while (floats.size() < 64) floats.push_back(floats[floats.size() % 20] + 0x1001u);
  for (Rounding rounding : kRoundings) {
    const std::vector<uint32_t> wantF16 = gatherExpectations(halves, ElementType::F16, rounding);
    const std::vector<uint32_t> wantBf16 = gatherExpectations(halves, ElementType::BF16, rounding);
    const std::vector<uint32_t> wantF32 = gatherExpectations(floats, ElementType::F32, rounding);
    for (Isa isa : supportedIsas()) {
      ForcedIsa forced(isa);
      ASSERT_TRUE(forced.ok());
      for (int64_t start = 0; start < 17; ++start) {
        for (int64_t length = 1; length <= 40; ++length) {
          checkDenseGather(halves, wantF16, ElementType::F16, rounding, start, length, "short f16");
          checkDenseGather(halves, wantBf16, ElementType::BF16, rounding, start, length,
                           "short bf16");
          checkDenseGather(floats, wantF32, ElementType::F32, rounding, start, length, "short f32");
          for (ElementType type : kTypes) {
            checkDenseScatter(floats, scatterExpectations(floats, type, rounding), type, rounding,
                              start, length, (start * 7) % 5, "short");
          }
        }
      }
    }
  }
}

// A 5-D view into padded storage; `innerStride` is the W stride (1, 2 or -1),
// rows of W are `rowPitch` elements apart, the rest follows densely.
struct StridedView {
  View5 view;
  std::vector<unsigned char> storage;
  int64_t origin = 0;  // element index of [0,0,0,0,0] in storage
};

StridedView makeStrided(ElementType type, const int64_t shape[5], int64_t innerStride,
                        int64_t rowPitch, int64_t lead) {
  StridedView s;
  int64_t strides[5];
  strides[4] = innerStride;
  strides[3] = rowPitch;
  strides[2] = rowPitch * shape[3];
  strides[1] = strides[2] * shape[2] + 3;  // a gap between channels too
  strides[0] = strides[1] * shape[1];
  s.origin = lead + (innerStride < 0 ? -innerStride * (shape[4] - 1) : 0);
  const int64_t elements = s.origin + strides[0] * shape[0] + lead;
  s.storage.assign(static_cast<size_t>(elements) * bytesOf(type), 0);
  s.view.type = type;
  s.view.data = s.storage.data() + s.origin * bytesOf(type);
  for (int d = 0; d < 5; ++d) {
    s.view.shape[d] = shape[d];
    s.view.strides[d] = strides[d];
  }
  return s;
}

template <typename Fn>
void forEachElement(const View5& view, Fn&& fn) {
  int64_t i[5];
  int64_t flat = 0;
  for (i[0] = 0; i[0] < view.shape[0]; ++i[0])
    for (i[1] = 0; i[1] < view.shape[1]; ++i[1])
      for (i[2] = 0; i[2] < view.shape[2]; ++i[2])
        for (i[3] = 0; i[3] < view.shape[3]; ++i[3])
          for (i[4] = 0; i[4] < view.shape[4]; ++i[4]) {
            int64_t offset = 0;
            for (int d = 0; d < 5; ++d) offset += i[d] * view.strides[d];
            fn(flat++, offset);
          }
}

TEST(ConvertSimd, StridedViewsThroughGatherAndScatter) {
  const std::vector<uint32_t> patterns = fp32Patterns();
  const int64_t shapes[][5] = {
      {2, 3, 2, 3, 37}, {1, 5, 1, 4, 16}, {3, 2, 1, 2, 7}, {2, 4, 3, 8, 253}};
  for (Isa isa : supportedIsas()) {
    ForcedIsa forced(isa);
    ASSERT_TRUE(forced.ok());
    size_t cursor = 0;
    for (const auto& shape : shapes) {
      for (int64_t innerStride : {int64_t{1}, int64_t{2}, int64_t{-1}}) {
        const int64_t pitch = shape[4] * (innerStride < 0 ? 1 : innerStride) + 5;
        for (ElementType type : kTypes) {
          for (Rounding rounding : kRoundings) {
            StridedView s = makeStrided(type, shape, innerStride, pitch, 3);
            const int64_t storageWords = static_cast<int64_t>(s.storage.size() / bytesOf(type));
            // Fill every storage word with patterns (16-bit types take the
            // low and high halves of fp32 patterns in turn).
            std::vector<uint32_t> words(static_cast<size_t>(storageWords));
            for (int64_t w = 0; w < storageWords; ++w, ++cursor) {
              const uint32_t p = patterns[cursor % patterns.size()];
              words[static_cast<size_t>(w)] =
                  type == ElementType::F32 ? p : (w & 1 ? p >> 16 : p & 0xffffu);
            }
            s.storage = pack(words, type);
            s.view.data = s.storage.data() + s.origin * bytesOf(type);
            const auto* base = static_cast<const unsigned char*>(s.view.data);

            int64_t total = 1;
            for (int d = 0; d < 5; ++d) total *= shape[d];
            std::vector<float> dense(static_cast<size_t>(total));
            gatherToFloat(s.view, rounding, dense.data());
            int mismatches = 0;
            forEachElement(s.view, [&](int64_t flat, int64_t offset) {
              const uint32_t want = expectedGather(wordAt(base, type, offset), type, rounding);
              if (bitsOf(dense[static_cast<size_t>(flat)]) != want) ++mismatches;
            });
            EXPECT_EQ(mismatches, 0) << "gather isa " << isaName(isa) << " stride " << innerStride
                                     << " type " << int(type) << " rounding " << int(rounding);

            // Scatter fresh fp32 patterns through the same view; storage
            // outside the view keeps its sentinel bytes.
            std::vector<float> values(static_cast<size_t>(total));
            for (float& v : values) v = fromBits(patterns[cursor++ % patterns.size()]);
            std::fill(s.storage.begin(), s.storage.end(), 0xa5);
            std::vector<bool> touched(static_cast<size_t>(storageWords), false);
            scatterFromFloat(values.data(), rounding, s.view);
            mismatches = 0;
            forEachElement(s.view, [&](int64_t flat, int64_t offset) {
              touched[static_cast<size_t>(s.origin + offset)] = true;
              const uint32_t want =
                  expectedScatter(bitsOf(values[static_cast<size_t>(flat)]), type, rounding);
              if (wordAt(base, type, offset) != want) ++mismatches;
            });
            const uint32_t sentinel = type == ElementType::F32 ? 0xa5a5a5a5u : 0xa5a5u;
            for (int64_t w = 0; w < storageWords; ++w) {
              if (!touched[static_cast<size_t>(w)] &&
                  wordAt(s.storage.data(), type, w) != sentinel) {
                ++mismatches;
              }
            }
            EXPECT_EQ(mismatches, 0) << "scatter isa " << isaName(isa) << " stride " << innerStride
                                     << " type " << int(type) << " rounding " << int(rounding);
          }
        }
      }
    }
  }
}

// channelSums adds each channel's row-major elements into 16 double lanes
// (element e into lane e % 16) with the vector loops, widening 16-bit runs
// first; every ISA, thread count and view of the values must still give
// the bits of that order. The values mix magnitudes 2^-30..2^60 with both signs
// so that any reordering changes the bits, plus Inf/NaN (a NaN sum is only
// compared as NaN: which payload an add propagates is the compiler's choice).
TEST(ConvertSimd, ChannelSumsKeepEveryLanesAdditionOrder) {
  struct SumCase {
    int64_t shape[5];
    int64_t innerStride;  // W stride: 1, 2 or -1
    bool channelsLast;    // C innermost in memory (W stride = C)
  };
  const SumCase cases[] = {{{2, 64, 1, 3, 300}, 1, false}, {{3, 13, 1, 2, 37}, 1, false},
                           {{1, 5, 2, 3, 17}, 2, false},   {{2, 9, 1, 4, 33}, -1, false},
                           {{2, 20, 1, 5, 7}, 1, true},    {{1, 1, 1, 1, 1000}, 1, false},
                           {{4, 3, 1, 1, 515}, 1, false},  {{2, 8, 1, 1, 16}, 1, false}};
  uint32_t state = 777u;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (const SumCase& c : cases) {
    for (ElementType type : kTypes) {
      const int64_t n = c.shape[0], ch = c.shape[1], d = c.shape[2], h = c.shape[3], w = c.shape[4];
      int64_t strides[5];
      int64_t step = std::abs(c.innerStride);
      if (c.channelsLast) {
        strides[1] = 1;
        strides[4] = ch;
        strides[3] = ch * w;
        strides[2] = ch * w * h;
        strides[0] = ch * w * h * d;
      } else {
        strides[4] = c.innerStride;
        strides[3] = step * w + 3;
        strides[2] = strides[3] * h;
        strides[1] = strides[2] * d + 1;
        strides[0] = strides[1] * ch;
      }
      const int64_t origin = c.innerStride < 0 ? w - 1 : 0;
      const int64_t elements = origin + strides[0] * n + 4;
      std::vector<uint32_t> words(static_cast<size_t>(elements));
      for (uint32_t& word : words) {
        const uint32_t r = next();
        float value = std::ldexp(1.0f + static_cast<float>(r & 0xffff) / 65536.0f,
                                 static_cast<int>((r >> 16) % 91) - 30);
        if (r & 0x8000u) value = -value;
        if ((r & 0x3ff) == 7) value = INFINITY;
        if ((r & 0x7ff) == 9) value = NAN;
        word = encode(value, type);
      }
      std::vector<unsigned char> storage = pack(words, type);
      View5 view;
      view.type = type;
      view.data = storage.data() + origin * bytesOf(type);
      for (int k = 0; k < 5; ++k) {
        view.shape[k] = c.shape[k];
        view.strides[k] = strides[k];
      }
      // Element e of a channel (row-major n, d, h, w) into lane e % 16,
      // then the lanes in a pairwise tree: the same bits for every view of
      // the same values.
      const int64_t plane = d * h * w;
      std::vector<std::array<double, 16>> lanes(static_cast<size_t>(ch));
      for (auto& l : lanes) l.fill(0.0);
      // And, independently of any order, the sum in long double and the sum
      // of magnitudes: the lanes' error must stay within a double's rounding
      // of a few hundred adds.
      std::vector<long double> exact(static_cast<size_t>(ch), 0.0L), magnitude(exact);
      const auto* base = static_cast<const unsigned char*>(view.data);
      forEachElement(view, [&](int64_t flat, int64_t offset) {
        const int64_t channel = (flat / plane) % ch;
        const int64_t e = flat / (plane * ch) * plane + flat % plane;
        const double value = decode(wordAt(base, type, offset), type);
        lanes[static_cast<size_t>(channel)][static_cast<size_t>(e % 16)] += value;
        exact[static_cast<size_t>(channel)] += value;
        magnitude[static_cast<size_t>(channel)] += std::fabs(value);
      });
      std::vector<double> want(static_cast<size_t>(ch), 0.0);
      for (int64_t k = 0; k < ch; ++k) {
        std::array<double, 16> l = lanes[static_cast<size_t>(k)];
        for (size_t width = 8; width >= 1; width /= 2)
          for (size_t i = 0; i < width; ++i) l[i] = l[2 * i] + l[2 * i + 1];
        want[static_cast<size_t>(k)] = l[0];
      }
      for (Isa isa : supportedIsas()) {
        ForcedIsa forced(isa);
        ASSERT_TRUE(forced.ok());
        for (int threads : {1, 2, 3}) {
          setComputeThreadCount(threads);
          std::vector<double> got(static_cast<size_t>(ch), -1.0);
          channelSums(view, got.data());
          for (int64_t k = 0; k < ch; ++k) {
            const double g = got[static_cast<size_t>(k)], e = want[static_cast<size_t>(k)];
            const long double m = magnitude[static_cast<size_t>(k)];
            if (std::isfinite(g) && std::isfinite(static_cast<double>(m))) {
              EXPECT_LE(std::fabs(static_cast<long double>(g) - exact[static_cast<size_t>(k)]),
                        1e-12L * m)
                  << "channel " << k;
            }
            if (std::isnan(e)) {
              EXPECT_TRUE(std::isnan(g)) << "channel " << k;
            } else {
              EXPECT_EQ(std::memcmp(&g, &e, sizeof g), 0)
                  << "isa " << isaName(isa) << " threads " << threads << " type " << int(type)
                  << " shape C " << ch << " W " << w << " channel " << k << ": " << g << " vs "
                  << e;
            }
          }
        }
        setComputeThreadCount(0);
      }
    }
  }
}

// addChannelRuns is channelSums' arithmetic for passes that read the
// channels themselves: fed each image's planes of several channels at once,
// in pieces that start at any lane (the vector loop's masked head and tail,
// groups of 4 planes and single ones), it gives channelSums' bits on every
// ISA for every element type.
TEST(ConvertSimd, AddChannelRunsGivesChannelSumsBits) {
  uint32_t state = 4242u;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const int64_t n = 3, ch = 9;
  for (int64_t plane : {1, 7, 16, 35, 100}) {
    for (ElementType type : kTypes) {
      std::vector<uint32_t> words(static_cast<size_t>(n * ch * plane));
      for (uint32_t& word : words) {
        const uint32_t r = next();
        float value = std::ldexp(1.0f + static_cast<float>(r & 0xffff) / 65536.0f,
                                 static_cast<int>((r >> 16) % 37) - 20);
        if (r & 0x8000u) value = -value;
        word = encode(value, type);
      }
      std::vector<unsigned char> storage = pack(words, type);
      View5 view;
      view.type = type;
      view.data = storage.data();
      const int64_t extent[5] = {n, ch, 1, 1, plane};
      for (int k = 4, stride = 1; k >= 0; --k) {
        view.shape[k] = extent[k];
        view.strides[k] = stride;
        stride *= static_cast<int>(extent[k]);
      }
      std::vector<double> want(static_cast<size_t>(ch));
      channelSums(view, want.data());
      const int64_t bytes = type == ElementType::F32 ? 4 : 2;
      for (Isa isa : supportedIsas()) {
        ForcedIsa forced(isa);
        ASSERT_TRUE(forced.ok());
        std::vector<double> lanes(static_cast<size_t>(ch * kChannelSumLanes), 0.0);
        for (int64_t image = 0; image < n; ++image) {
          // Channels 0-4 in one call, 5-8 in another; each plane in pieces
          // of 13 elements (then the rest), so pieces start at any lane.
          for (int64_t c0 : {int64_t{0}, int64_t{5}}) {
            const int planes = c0 == 0 ? 5 : 4;
            for (int64_t start = 0; start < plane; start += 13) {
              const int64_t length = std::min<int64_t>(13, plane - start);
              addChannelRuns(type, storage.data() + ((image * ch + c0) * plane + start) * bytes,
                             plane, planes, length, image * plane + start,
                             lanes.data() + c0 * kChannelSumLanes);
            }
          }
        }
        for (int64_t c = 0; c < ch; ++c) {
          const double got = channelLaneTotal(lanes.data() + c * kChannelSumLanes);
          EXPECT_EQ(std::memcmp(&got, &want[static_cast<size_t>(c)], sizeof got), 0)
              << "isa " << isaName(isa) << " type " << int(type) << " plane " << plane
              << " channel " << c << ": " << got << " vs " << want[static_cast<size_t>(c)];
        }
      }
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
