// gatherToFloat / scatterFromFloat / fillZero / channelSums through permuted,
// offset, broadcast and negative-stride views of every dtype, checked element
// by element against explicit index arithmetic.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/convert/convert.h"

namespace aclcpu {
namespace kernels {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A storage buffer of raw elements with a view placed somewhere inside it.
struct ViewCase {
  const char* name;
  int64_t shape[5];
  // Permutation of a dense layout: dims listed from outermost to innermost in
  // memory; negative entries (~d) mean dim d runs backwards.
  int layoutOrder[5];
  int64_t padding;  // extra elements in front of / between storage rows
  bool broadcastChannel;
};

struct BuiltView {
  View5 view;
  int64_t offset;  // of element [0,0,0,0,0] in storage
  int64_t storageElements;
};

int64_t elementBytes(ElementType type) { return type == ElementType::F32 ? 4 : 2; }

// Builds strides for shape laid out in `order`, with a gap of `padding`
// elements per innermost row, plus an offset so that negative strides stay
// inside the storage.
BuiltView buildView(const ViewCase& c, ElementType type, std::vector<unsigned char>& storage) {
  BuiltView built;
  int64_t strides[5];
  int64_t step = 1;
  for (int i = 4; i >= 0; --i) {
    const int encoded = c.layoutOrder[i];
    const int d = encoded < 0 ? ~encoded : encoded;
    strides[d] = encoded < 0 ? -step : step;
    step *= c.shape[d] + (i == 4 ? c.padding : 0);
  }
  if (c.broadcastChannel) strides[1] = 0;
  int64_t offset = c.padding;
  for (int d = 0; d < 5; ++d) {
    if (strides[d] < 0) offset += -strides[d] * (c.shape[d] - 1);
  }
  built.offset = offset;
  built.storageElements = offset + step + c.padding + 1;
  storage.assign(static_cast<size_t>(built.storageElements * elementBytes(type)), 0);
  built.view.type = type;
  built.view.data = storage.data() + offset * elementBytes(type);
  for (int d = 0; d < 5; ++d) {
    built.view.shape[d] = c.shape[d];
    built.view.strides[d] = strides[d];
  }
  return built;
}

int64_t elementOffset(const View5& v, const int64_t idx[5]) {
  int64_t offset = 0;
  for (int d = 0; d < 5; ++d) offset += idx[d] * v.strides[d];
  return offset;
}

template <typename Fn>
void forEachIndex(const int64_t shape[5], Fn&& fn) {
  int64_t idx[5];
  int64_t flat = 0;
  for (idx[0] = 0; idx[0] < shape[0]; ++idx[0])
    for (idx[1] = 0; idx[1] < shape[1]; ++idx[1])
      for (idx[2] = 0; idx[2] < shape[2]; ++idx[2])
        for (idx[3] = 0; idx[3] < shape[3]; ++idx[3])
          for (idx[4] = 0; idx[4] < shape[4]; ++idx[4]) fn(idx, flat++);
}

float loadElement(const unsigned char* base, ElementType type, int64_t index) {
  if (type == ElementType::F32) {
    float v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, base + index * 2, 2);
  return type == ElementType::F16 ? halfToFloat(h) : bf16ToFloat(h);
}

uint32_t rawElement(const unsigned char* base, ElementType type, int64_t index) {
  if (type == ElementType::F32) {
    uint32_t v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, base + index * 2, 2);
  return h;
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

void fillRandomStorage(std::vector<unsigned char>& storage, ElementType type, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  const int64_t bytes = elementBytes(type);
  for (size_t i = 0; i + bytes <= storage.size(); i += bytes) {
    const uint32_t raw = encode(dist(rng), type);
    std::memcpy(storage.data() + i, &raw, static_cast<size_t>(bytes));
  }
}

const ViewCase kCases[] = {
    {"contiguous", {2, 3, 4, 5, 6}, {0, 1, 2, 3, 4}, 0, false},
    {"channels_last", {2, 3, 1, 5, 6}, {0, 2, 3, 4, 1}, 0, false},
    {"permuted_padded", {3, 4, 2, 3, 5}, {4, 2, 0, 3, 1}, 3, false},
    {"negative_w", {2, 3, 1, 4, 7}, {0, 1, 2, 3, ~4}, 2, false},
    {"negative_mixed", {2, 2, 3, 4, 5}, {~1, 0, 2, ~3, 4}, 1, false},
    {"broadcast_c", {2, 4, 1, 3, 5}, {0, 1, 2, 3, 4}, 0, true},
    {"lifted_1d", {3, 2, 1, 1, 9}, {0, 1, 2, 3, 4}, 5, false},
    {"large_strided", {4, 40, 1, 30, 31}, {0, 3, 4, 1, 2}, 1, false},  // > parallel threshold
    {"large_contiguous", {2, 64, 1, 20, 30}, {0, 1, 2, 3, 4}, 0, false},
    {"empty", {2, 0, 1, 3, 4}, {0, 1, 2, 3, 4}, 0, false},
};

const ElementType kTypes[] = {ElementType::F32, ElementType::F16, ElementType::BF16};
const Rounding kRoundings[] = {Rounding::None, Rounding::HF32, Rounding::F16, Rounding::BF16};

TEST(GatherToFloat, EveryViewDtypeAndRounding) {
  std::mt19937 rng(3);
  for (const ViewCase& c : kCases) {
    for (ElementType type : kTypes) {
      std::vector<unsigned char> storage;
      BuiltView built = buildView(c, type, storage);
      fillRandomStorage(storage, type, rng);
      const auto* base = static_cast<const unsigned char*>(built.view.data);
      for (Rounding rounding : kRoundings) {
        int64_t total = 1;
        for (int d = 0; d < 5; ++d) total *= c.shape[d];
        std::vector<float> dense(static_cast<size_t>(total) + 1, -777.0f);
        gatherToFloat(built.view, rounding, dense.data());
        int mismatches = 0;
        forEachIndex(c.shape, [&](const int64_t* idx, int64_t flat) {
          const float expected =
              roundFloat(loadElement(base, type, elementOffset(built.view, idx)), rounding);
          if (bitsOf(dense[flat]) != bitsOf(expected) && ++mismatches < 5) {
            ADD_FAILURE() << c.name << " type " << int(type) << " rounding " << int(rounding)
                          << " flat " << flat;
          }
        });
        EXPECT_EQ(mismatches, 0);
        EXPECT_EQ(dense[static_cast<size_t>(total)], -777.0f) << "wrote past the end";
      }
    }
  }
}

TEST(ScatterFromFloat, WritesOnlyTheViewWithRounding) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (const ViewCase& c : kCases) {
    if (c.broadcastChannel) continue;  // overlapping outputs are checked separately
    for (ElementType type : kTypes) {
      for (Rounding rounding : kRoundings) {
        std::vector<unsigned char> storage;
        BuiltView built = buildView(c, type, storage);
        const unsigned char sentinel = 0x5a;
        std::memset(storage.data(), sentinel, storage.size());
        int64_t total = 1;
        for (int d = 0; d < 5; ++d) total *= c.shape[d];
        std::vector<float> dense(static_cast<size_t>(total));
        for (float& v : dense) v = dist(rng);
        scatterFromFloat(dense.data(), rounding, built.view);
        std::vector<bool> inView(static_cast<size_t>(built.storageElements), false);
        const auto* base = static_cast<const unsigned char*>(built.view.data);
        int mismatches = 0;
        forEachIndex(c.shape, [&](const int64_t* idx, int64_t flat) {
          const int64_t offset = elementOffset(built.view, idx);
          inView[static_cast<size_t>(built.offset + offset)] = true;
          const uint32_t expected = encode(roundFloat(dense[flat], rounding), type);
          if (rawElement(base, type, offset) != expected && ++mismatches < 5) {
            ADD_FAILURE() << c.name << " type " << int(type) << " flat " << flat;
          }
        });
        EXPECT_EQ(mismatches, 0);
        const int64_t bytes = elementBytes(type);
        for (int64_t e = 0; e < built.storageElements; ++e) {
          if (inView[static_cast<size_t>(e)]) continue;
          for (int64_t b = 0; b < bytes; ++b) {
            ASSERT_EQ(storage[static_cast<size_t>(e * bytes + b)], sentinel)
                << c.name << " touched element " << e << " outside the view";
          }
        }
      }
    }
  }
}

TEST(ScatterFromFloat, OverlappingViewKeepsTheLastElementWritten) {
  // Channel stride 0: every channel writes the same addresses; row-major order
  // means the last channel's values remain.
  const ViewCase c = {"broadcast", {2, 3, 1, 2, 4}, {0, 1, 2, 3, 4}, 0, true};
  std::vector<unsigned char> storage;
  BuiltView built = buildView(c, ElementType::F32, storage);
  std::vector<float> dense(2 * 3 * 2 * 4);
  for (size_t i = 0; i < dense.size(); ++i) dense[i] = static_cast<float>(i);
  scatterFromFloat(dense.data(), Rounding::None, built.view);
  const auto* out = static_cast<const float*>(built.view.data);
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 4; ++w) {
        const int64_t idx[5] = {n, 2, 0, h, w};
        EXPECT_EQ(out[elementOffset(built.view, idx)], dense[((n * 3 + 2) * 2 + h) * 4 + w]);
      }
}

TEST(FillZero, ZeroesOnlyTheView) {
  for (const ViewCase& c : kCases) {
    for (ElementType type : kTypes) {
      std::vector<unsigned char> storage;
      BuiltView built = buildView(c, type, storage);
      std::memset(storage.data(), 0xa5, storage.size());
      fillZero(built.view);
      std::vector<bool> inView(static_cast<size_t>(built.storageElements), false);
      forEachIndex(c.shape, [&](const int64_t* idx, int64_t) {
        inView[static_cast<size_t>(built.offset + elementOffset(built.view, idx))] = true;
      });
      const int64_t bytes = elementBytes(type);
      for (int64_t e = 0; e < built.storageElements; ++e) {
        const unsigned char expected = inView[static_cast<size_t>(e)] ? 0x00 : 0xa5;
        for (int64_t b = 0; b < bytes; ++b) {
          ASSERT_EQ(storage[static_cast<size_t>(e * bytes + b)], expected)
              << c.name << " element " << e;
        }
      }
    }
  }
}

TEST(ChannelSums, MatchesFloat64SumsAndIsThreadIndependent) {
  std::mt19937 rng(9);
  for (const ViewCase& c : kCases) {
    for (ElementType type : kTypes) {
      std::vector<unsigned char> storage;
      BuiltView built = buildView(c, type, storage);
      fillRandomStorage(storage, type, rng);
      const auto* base = static_cast<const unsigned char*>(built.view.data);
      const int64_t channels = c.shape[1];
      std::vector<double> expected(static_cast<size_t>(channels), 0.0);
      forEachIndex(c.shape, [&](const int64_t* idx, int64_t) {
        expected[static_cast<size_t>(idx[1])] +=
            loadElement(base, type, elementOffset(built.view, idx));
      });
      std::vector<double> sums1(static_cast<size_t>(channels), -1.0);
      std::vector<double> sums2(static_cast<size_t>(channels), -2.0);
      setComputeThreadCount(1);
      channelSums(built.view, sums1.data());
      setComputeThreadCount(2);
      channelSums(built.view, sums2.data());
      setComputeThreadCount(0);
      for (int64_t ch = 0; ch < channels; ++ch) {
        // Same order of float64 additions of the same values: exact.
        EXPECT_EQ(sums1[ch], expected[ch]) << c.name << " channel " << ch;
        EXPECT_EQ(std::memcmp(&sums1[ch], &sums2[ch], sizeof(double)), 0);
      }
    }
  }
}

TEST(ChannelSums, EmptyReductionGivesZero) {
  int64_t dummy = 0;
  View5 view;
  view.data = &dummy;
  view.type = ElementType::F32;
  const int64_t shape[5] = {0, 3, 1, 2, 2};
  const int64_t strides[5] = {12, 4, 4, 2, 1};
  for (int d = 0; d < 5; ++d) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  double sums[3] = {5, 5, 5};
  channelSums(view, sums);
  EXPECT_EQ(sums[0], 0.0);
  EXPECT_EQ(sums[2], 0.0);
}

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
