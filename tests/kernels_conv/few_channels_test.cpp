// The few-channel forward micro-kernel with streaming stores (the pass sets
// them for outputs of 4 MiB and more, larger than these tests): the bits of
// ordinary stores, for rows whose vectors fall anywhere relative to cache
// lines, and nothing written outside the rows.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/convert/convert.h"
#include "kernels/cpu/cpu_info.h"

namespace {

using namespace aclcpu::kernels;
using few_channels::f32_conv_fwd_rows_c6w64_avx512;
using few_channels::FewChannelRowJob;
using few_channels::kChannelGroup;

// Six taps reaching 40 positions past each output position, deterministic
// x, w and bias, and the row job over them (its outputs left to each test).
struct RowCase {
  static constexpr int64_t kTapCount = 6;
  const int64_t taps[kTapCount] = {0, 1, 2, 7, 9, 40};
  std::vector<float> x, w, bias;
  FewChannelRowJob job;

  RowCase(int64_t channels, int64_t count, float biasScale, float biasShift) {
    const int64_t groups = (channels + kChannelGroup - 1) / kChannelGroup;
    x.resize(static_cast<size_t>(count + 40 + 16));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 29) % 53) / 9.0f - 3.0f;
    w.resize(static_cast<size_t>(groups * kTapCount * kChannelGroup));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 11) * 0.125f - 0.7f;
    bias.resize(static_cast<size_t>(channels));
    for (size_t i = 0; i < bias.size(); ++i)
      bias[i] = biasScale * static_cast<float>(i) + biasShift;
    job.x = x.data();
    job.taps = taps;
    job.tapCount = kTapCount;
    job.weights = w.data();
    job.outChannels = channels;
    job.channelCount = channels;
    job.count = count;
    job.bias = bias.data();
  }
};

// Where rows written `offset` elements past the first 64-byte boundary of
// memory start (the streamed stores need whole aligned lines to stream).
template <typename T>
T* pastAlignedLine(std::vector<T>& memory, int64_t offset) {
  T* base = memory.data();
  while (reinterpret_cast<uintptr_t>(base) % 64) ++base;
  return base + offset;
}

// Whether element `rel` (from the first row's start) lies in one of
// `channels` rows `stride` apart of `count` elements each.
bool inRows(int64_t rel, int64_t channels, int64_t stride, int64_t count) {
  return rel >= 0 && rel < channels * stride && rel % stride < count;
}

TEST(FewChannelsForward, StreamedRowsAreTheStoredRows) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  for (int64_t channels : {int64_t{13}, int64_t{6}, int64_t{1}}) {
    for (int64_t count : {int64_t{112}, int64_t{64}, int64_t{37}, int64_t{5}}) {
      RowCase rc(channels, count, 0.5f, 0.0f);
      FewChannelRowJob& job = rc.job;
      const std::vector<float>& x = rc.x;
      const std::vector<float>& w = rc.w;
      const std::vector<float>& bias = rc.bias;
      const int64_t* taps = rc.taps;
      const int64_t tapCount = RowCase::kTapCount;
      // Channel rows 128 floats apart (whole lines) or 133 (every row's
      // vectors across lines), from a line's start or 16 / 3 floats in.
      for (int64_t stride : {int64_t{128}, int64_t{133}}) {
        for (int64_t offset : {int64_t{0}, int64_t{16}, int64_t{3}}) {
          SCOPED_TRACE(testing::Message() << channels << " channels, " << count << " positions, "
                                          << "stride " << stride << ", offset " << offset);
          const size_t floats = static_cast<size_t>(channels * stride + 64);
          std::vector<float> stored(floats, -7.5f), streamed(floats, -7.5f);
          auto run = [&](std::vector<float>& memory, bool stream) {
            job.out = pastAlignedLine(memory, offset);
            job.outChannelStride = stride;
            job.stream = stream;
            f32_conv_fwd_rows_c6w64_avx512(job);
            return job.out - memory.data();
          };
          const int64_t at = run(stored, false), streamedAt = run(streamed, true);
          const size_t rowsFloats = static_cast<size_t>(channels * stride);
          EXPECT_EQ(std::memcmp(stored.data() + at, streamed.data() + streamedAt,
                                rowsFloats * sizeof(float)),
                    0);
          // The ordinary stores' output is the sum itself (one hand-checked
          // element) and leaves everything between and around the rows.
          double expect = bias[0];
          for (int64_t k = 0; k < tapCount; ++k)
            expect += double{x[taps[k]]} * w[k * kChannelGroup];
          EXPECT_NEAR(stored[at], expect, 1e-4);
          for (int64_t i = 0; i < static_cast<int64_t>(floats); ++i) {
            const int64_t rel = i - streamedAt;
            if (!inRows(rel, channels, stride, count)) {
              ASSERT_EQ(streamed[i], -7.5f) << "float " << rel << " from the first row";
            }
          }
        }
      }
    }
  }
}

// The words form: rows of bf16 or half words (stored two vectors at a
// time, streamed where those are one aligned line) are each fp32 row value
// rounded once, streamed or not, and nothing outside the rows is written.
TEST(FewChannelsForward, StreamedWordRowsAreTheRoundedRows) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  const int64_t channels = 7;
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    for (int64_t count : {int64_t{112}, int64_t{64}, int64_t{48}, int64_t{37}, int64_t{5}}) {
      RowCase rc(channels, count, 0.25f, -0.3f);
      FewChannelRowJob& job = rc.job;
      const int64_t floatStride = 128;
      std::vector<float> values(static_cast<size_t>(channels * floatStride));
      job.out = values.data();
      job.outChannelStride = floatStride;
      f32_conv_fwd_rows_c6w64_avx512(job);
      job.out = nullptr;
      job.outWordType = type;
      // Rows 256 words apart (whole lines) or 261; from a line's start or
      // 32 / 5 words in.
      for (int64_t stride : {int64_t{256}, int64_t{261}}) {
        for (int64_t offset : {int64_t{0}, int64_t{32}, int64_t{5}}) {
          SCOPED_TRACE(testing::Message()
                       << static_cast<int>(type) << " words, " << count << " positions, stride "
                       << stride << ", offset " << offset);
          const size_t words = static_cast<size_t>(channels * stride + 128);
          for (bool stream : {false, true}) {
            std::vector<uint16_t> memory(words, 0xABCD);
            job.outWords = pastAlignedLine(memory, offset);
            job.outChannelStride = stride;
            job.stream = stream;
            f32_conv_fwd_rows_c6w64_avx512(job);
            const int64_t at = job.outWords - memory.data();
            for (int64_t i = 0; i < static_cast<int64_t>(words); ++i) {
              const int64_t rel = i - at;
              if (!inRows(rel, channels, stride, count)) {
                ASSERT_EQ(memory[i], 0xABCD) << "word " << rel << " from the first row";
                continue;
              }
              const float v = values[rel / stride * floatStride + rel % stride];
              ASSERT_EQ(memory[i], type == ElementType::F16 ? floatToHalf(v) : floatToBf16(v))
                  << "channel " << rel / stride << ", position " << rel % stride
                  << (stream ? ", streamed" : "");
            }
          }
        }
      }
    }
  }
}

}  // namespace
