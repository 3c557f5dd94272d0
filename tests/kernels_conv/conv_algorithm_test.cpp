// The tester of the convolution algorithm registry (XNNPACK's
// GemmMicrokernelTester idea): every entry of conv_registry.h that this CPU can
// run is called directly on a seeded set of shapes aimed at the geometry it
// claims and that it accepts, and each run is checked for
//   - every output element against the float64 reference (1e-5 * sum|terms|),
//   - outputs pre-filled with NaN fully overwritten, inputs untouched,
//   - scratch of exactly scratchBytes(shape) whose guard bytes survive, and
//     results that do not depend on what the scratch held before,
//   - bit-identical results for 1, 2 and 3 threads.
// Then the public passes are run under every ISA level the CPU supports
// (forceIsaForTesting), checking that they report and run the first entry of
// the registry that accepts the shape at that level. Entries and levels this
// CPU cannot run are skipped visibly.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/conv/scratch_slots.h"
#include "kernels/convert/convert.h"
#include "kernels/convert/scalar_convert_inl.h"
#include "kernels/cpu/cpu_info.h"
#include "kernels_conv/conv_test_support.h"

namespace aclcpu {
namespace kernels {
namespace {

using namespace conv_test;  // NOLINT: the shared reference and scratch helpers

constexpr Isa kAllIsas[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx};

const char* passName(ConvPass pass) {
  switch (pass) {
    case ConvPass::Forward:
      return "forward";
    case ConvPass::BackwardData:
      return "backwardData";
    case ConvPass::BackwardWeight:
      return "backwardWeight";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Shapes aimed at each geometry the algorithms claim.

// Channel structures: dense (any count 1..80, often just short of a multiple
// of 16), grouped with 16-multiples per group, block-diagonal 4 or 8 per group,
// depthwise, depthwise with a channel multiplier, small groups, groups large
// enough for the GEMM path, few input channels (stems: 1..4), and deep
// reductions (128..136 input channels per group, one to three groups).
enum class Channels {
  Dense,
  Grouped16,
  BlockDiagonal,
  Depthwise,
  Multiplier,
  SmallGroups,
  Wide,
  FewInputs,
  Deep
};
constexpr int kChannelKinds = 9;

class ShapeGenerator {
 public:
  explicit ShapeGenerator(uint32_t seed) : rng_(seed) {}
  std::mt19937& rng() { return rng_; }

  // A random non-empty shape (every extent positive) whose reference costs at
  // most `maxTerms` products.
  ConvShape next(int64_t maxTerms) {
    for (;;) {
      ConvShape s;
      s.batch = pick(1, 3);
      s.operands = operandValues();
      // Half the bf16 and fp16 shapes come from the caller's 16-bit tensors
      // (ConvShape::io), which some entries take only then.
      if (s.operands == OperandValues::BF16 || s.operands == OperandValues::F16) {
        if (chance(50))
          s.io = s.operands == OperandValues::BF16 ? ElementType::BF16 : ElementType::F16;
      }
      channels(static_cast<Channels>(pick(0, kChannelKinds - 1)), &s);
      if (!spatial(&s)) continue;
      const int64_t terms =
          s.batch * s.outChannels * (s.inChannels / s.groups) * volume(s.out) * volume(s.kernel);
      if (terms > maxTerms) continue;
      return s;
    }
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(0, 99) < percent; }

  // What the operands are (low-precision entries take only their own): fp32
  // 40%, each of bf16, fp16 and HF32 20%.
  OperandValues operandValues() {
    const int p = pick(0, 4);
    return p <= 1 ? OperandValues::F32 : static_cast<OperandValues>(p - 1);
  }

  // 1..80, half the time within 3 of a multiple of 16 (tails of one block).
  int64_t channelCount() { return chance(50) ? pick(1, 80) : 16 * pick(1, 5) - pick(0, 3); }

  void channels(Channels kind, ConvShape* s) {
    switch (kind) {
      case Channels::Dense:
        s->groups = 1;
        s->inChannels = channelCount();
        s->outChannels = chance(30) ? s->inChannels : channelCount();
        return;
      case Channels::Grouped16:
        s->groups = pick(2, 4);
        s->inChannels = s->groups * 16 * pick(1, s->groups == 2 ? 2 : 1);
        s->outChannels = s->groups * 16 * pick(1, s->groups == 2 ? 2 : 1);
        return;
      case Channels::BlockDiagonal: {
        s->groups = pick(2, 12);
        const int perGroup = chance(80) ? (chance(50) ? 4 : 8) : pick(2, 7);  // near misses too
        s->inChannels = s->groups * perGroup;
        s->outChannels = s->groups * (chance(85) ? perGroup : pick(2, 8));
        return;
      }
      case Channels::Depthwise:
        s->groups = chance(50) ? pick(2, 80) : 16 * pick(1, 4) + pick(-2, 1);
        s->inChannels = s->outChannels = s->groups;
        return;
      case Channels::Multiplier:
        s->groups = pick(2, 24);
        s->inChannels = s->groups;
        s->outChannels = s->groups * pick(2, 3);
        return;
      case Channels::SmallGroups:
        s->groups = pick(2, 8);
        s->inChannels = s->groups * pick(1, 8);
        s->outChannels = s->groups * pick(1, 8);
        return;
      case Channels::Wide:
        s->groups = pick(2, 4);
        s->inChannels = s->groups * pick(8, 20);
        s->outChannels = s->groups * pick(8, 20);
        return;
      case Channels::FewInputs:
        s->groups = 1;
        s->inChannels = pick(1, 4);
        s->outChannels = channelCount();
        return;
      case Channels::Deep:
        s->groups = chance(70) ? 1 : pick(2, 3);
        s->inChannels = s->groups * (128 + (chance(50) ? 0 : pick(1, 8)));
        s->outChannels = s->groups * pick(1, 24);
        return;
    }
  }

  // 1, 2 or 3 active dims (the rest lifted): kernels 1..5, strides 1..4,
  // dilation 1..3, padding 0..3 (sometimes larger than the kernel), tiny
  // sizes down to a single output, sometimes a long row (several work items),
  // and `out` sometimes short of the full extent; sometimes pointwise (1x1,
  // stride 1, no padding: the GEMM on the caller's memory).
  bool spatial(ConvShape* s) {
    const int dims = pick(1, 3);
    const bool longRow = chance(12);
    const bool pointwise = chance(8);
    for (int d = 3 - dims; d < 3; ++d) {
      int maxIn = dims == 3 ? 7 : dims == 2 ? 12 : 30;
      if (longRow && d == 2) maxIn = dims == 1 ? 300 : 130;
      s->in[d] = pick(1, maxIn);
      if (pointwise) {
        s->out[d] = s->in[d];
        continue;
      }
      s->kernel[d] = chance(30) ? 1 : pick(1, 5);
      s->stride[d] = chance(50) ? 1 : chance(45) ? 2 : pick(3, 4);
      s->dilation[d] = chance(65) ? 1 : pick(2, 3);
      s->padBefore[d] = chance(10) ? pick(4, 7) : pick(0, 3);
      const int64_t padAfter = chance(10) ? pick(4, 7) : pick(0, 3);
      const int64_t span = s->dilation[d] * (s->kernel[d] - 1) + 1;
      const int64_t padded = s->in[d] + s->padBefore[d] + padAfter;
      if (padded < span) return false;
      const int64_t full = (padded - span) / s->stride[d] + 1;
      s->out[d] = chance(25) ? pick(1, static_cast<int>(full)) : full;
    }
    return true;
  }

  std::mt19937 rng_;
};

// ---------------------------------------------------------------------------
// Operands, outputs and checks of one pass.

struct PassOperands {
  std::vector<float> a, b;  // (x, w), (dy, w) or (x, dy), as ConvAlgorithm::run takes them
  Reference reference;
  int64_t outputCount = 0;
};

// Random values in [-1, 1], rounded to what `values` promises.
std::vector<float> operandValues(int64_t count, OperandValues values, std::mt19937& rng) {
  std::vector<float> v = randomValues(count, rng);
  const Rounding rounding[4] = {Rounding::None, Rounding::BF16, Rounding::F16, Rounding::HF32};
  for (float& e : v) e = roundFloat(e, rounding[static_cast<int>(values)]);
  return v;
}

PassOperands makeOperands(ConvPass pass, const ConvShape& s, std::mt19937& rng) {
  PassOperands op;
  const auto randomValues = [&](int64_t count, std::mt19937& r) {
    return operandValues(count, s.operands, r);
  };
  switch (pass) {
    case ConvPass::Forward:
      op.a = randomValues(xCount(s), rng);
      op.b = randomValues(wCount(s), rng);
      op.reference = referenceForward(s, op.a, op.b);
      op.outputCount = yCount(s);
      break;
    case ConvPass::BackwardData:
      op.a = randomValues(yCount(s), rng);
      op.b = randomValues(wCount(s), rng);
      op.reference = referenceBackwardData(s, op.a, op.b);
      op.outputCount = xCount(s);
      break;
    case ConvPass::BackwardWeight:
      op.a = randomValues(xCount(s), rng);
      op.b = randomValues(yCount(s), rng);
      op.reference = referenceBackwardWeight(s, op.a, op.b);
      op.outputCount = wCount(s);
      break;
  }
  return op;
}

// Coordinates of output element `i` of `pass`, for failure messages.
std::string coordinates(ConvPass pass, const ConvShape& s, int64_t i) {
  int64_t extent[5];
  const char* names[5];
  if (pass == ConvPass::BackwardWeight) {
    const int64_t e[5] = {s.outChannels, s.inChannels / s.groups, s.kernel[0], s.kernel[1],
                          s.kernel[2]};
    const char* n[5] = {"oc", "icg", "kd", "kh", "kw"};
    for (int k = 0; k < 5; ++k) extent[k] = e[k], names[k] = n[k];
  } else {
    const bool dx = pass == ConvPass::BackwardData;
    const int64_t* sp = dx ? s.in : s.out;
    const int64_t e[5] = {s.batch, dx ? s.inChannels : s.outChannels, sp[0], sp[1], sp[2]};
    const char* n[5] = {"n", "c", "d", "h", "w"};
    for (int k = 0; k < 5; ++k) extent[k] = e[k], names[k] = n[k];
  }
  int64_t index[5];
  for (int k = 4; k >= 0; --k) {
    index[k] = i % extent[k];
    i /= extent[k];
  }
  std::ostringstream out;
  for (int k = 0; k < 5; ++k) out << (k ? " " : "") << names[k] << index[k];
  return out.str();
}

// The first element the pass left as NaN, or -1.
int64_t firstNaN(const std::vector<float>& got) {
  for (size_t i = 0; i < got.size(); ++i)
    if (std::isnan(got[i])) return static_cast<int64_t>(i);
  return -1;
}

constexpr double kRelative = 1e-5;
constexpr double kAbsolute = 1e-30;  // an all-zero sum must come out (almost) exactly zero

// Checks `got` in full and says where it first goes wrong: which pass, element
// and coordinates, expected vs got. `who` names the algorithm and the shape.
::testing::AssertionResult checkOutput(const std::string& who, ConvPass pass, const ConvShape& s,
                                       const PassOperands& op, const std::vector<float>& got) {
  const int64_t nan = firstNaN(got);
  if (nan >= 0) {
    return ::testing::AssertionFailure()
           << who << ": " << passName(pass) << " left element " << nan << " ("
           << coordinates(pass, s, nan) << ") unwritten (NaN; expected " << op.reference.value[nan]
           << ")";
  }
  int64_t wrong = 0, first = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tolerance = kRelative * op.reference.magnitude[i] + kAbsolute;
    if (!(std::fabs(static_cast<double>(got[i]) - op.reference.value[i]) <= tolerance)) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++wrong;
    }
  }
  if (first < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << who << ": " << passName(pass) << " element " << first << " ("
         << coordinates(pass, s, first) << "): got " << got[first] << " expected "
         << op.reference.value[first] << " (sum |terms| " << op.reference.magnitude[first] << "); "
         << wrong << " of " << got.size() << " elements wrong";
}

::testing::AssertionResult sameBits(const std::string& who, ConvPass pass, const ConvShape& s,
                                    const std::vector<float>& one, const std::vector<float>& other,
                                    int threads) {
  for (size_t i = 0; i < one.size(); ++i) {
    if (std::memcmp(&one[i], &other[i], sizeof(float)) != 0) {
      return ::testing::AssertionFailure()
             << who << ": " << passName(pass) << " differs between 1 and " << threads
             << " threads at element " << i << " (" << coordinates(pass, s, i) << "): " << one[i]
             << " vs " << other[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::string entryLabel(const char* algorithm, const ConvShape& s) {
  return std::string(algorithm) + " on " + describe(s);
}

// Runs `pass` (through `run`) on one shape with each thread count and checks
// everything the registry promises. The scratch is sized (`scratchBytes()`)
// after the thread count is set, as conv_passes.h asks. Returns false on a
// failure.
template <typename Bytes, typename Run>
bool checkRuns(const std::string& name, ConvPass pass, const ConvShape& s, Bytes&& scratchBytes,
               const PassOperands& op, const int* threadCounts, int threadCountCount, Run&& run) {
  const std::vector<float> a = op.a, b = op.b;
  // The scratch body is filled differently for each thread count: results
  // must not depend on what it held.
  const unsigned char fills[3] = {0xff, 0x00, 0xcd};
  std::vector<float> first;
  for (int t = 0; t < threadCountCount; ++t) {
    const int threads = threadCounts[t];
    setComputeThreadCount(threads);
    std::vector<float> out = poisoned(op.outputCount);
    const uint64_t bytes = scratchBytes();
    Scratch scratch(bytes, fills[t % 3]);
    run(a.data(), b.data(), out.data(), scratch.get());
    if (!scratch.guardsIntact()) {
      ADD_FAILURE() << name << ": " << passName(pass) << " wrote outside its " << bytes
                    << "-byte scratch with " << threads << " threads";
      return false;
    }
    if (a != op.a || b != op.b) {
      ADD_FAILURE() << name << ": " << passName(pass) << " modified an input";
      return false;
    }
    if (t == 0) {
      const ::testing::AssertionResult ok = checkOutput(name, pass, s, op, out);
      if (!ok) {
        ADD_FAILURE() << ok.message() << " [" << threads << " threads]";
        return false;
      }
      first = std::move(out);
    } else {
      const ::testing::AssertionResult same = sameBits(name, pass, s, first, out, threads);
      if (!same) {
        ADD_FAILURE() << same.message();
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Every registry entry, run directly.

// ACLNN_CPU_TEST_VERBOSE=1 prints every shape before it runs (to find the
// shape behind a crash). For a longer soak, ACLNN_CPU_TEST_SHAPES sets the
// accepted shapes per entry and ACLNN_CPU_TEST_SEED changes the seeds.
bool verbose() {
  static const bool on = std::getenv("ACLNN_CPU_TEST_VERBOSE") != nullptr;
  return on;
}

int64_t environmentNumber(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  if (!value || !*value) return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(value, &end, 10);
  return *end == '\0' && n > 0 ? n : fallback;
}

constexpr int kShapesPerEntry = 150;
constexpr int kMaxAttempts = 60000;
constexpr int64_t kMaxTerms = 1500000;

// What the accepted shapes of one entry covered, printed with its result so
// that a generator that drifts away from a geometry shows.
struct Coverage {
  int dims[4] = {0, 0, 0, 0};
  int strided = 0, strideWAbove2 = 0, dilated = 0, padAboveKernel = 0, cropped = 0, outOne = 0,
      longRow = 0, channelTail = 0, pointwiseStrided = 0;

  void add(const ConvShape& s) {
    int active = 0;
    bool st = false, dl = false, pk = false, cr = false, pw = false;
    for (int d = 0; d < 3; ++d) {
      if (s.in[d] > 1 || s.kernel[d] > 1 || s.out[d] > 1) active = 3 - d > active ? 3 - d : active;
      st = st || s.stride[d] > 1;
      dl = dl || s.dilation[d] > 1;
      pk = pk || s.padBefore[d] >= s.kernel[d] * s.dilation[d];
      pw = pw || (s.kernel[d] == 1 && s.stride[d] > 1);
      const int64_t full =
          (s.in[d] + 2 * s.padBefore[d] - s.dilation[d] * (s.kernel[d] - 1) - 1) / s.stride[d] + 1;
      cr = cr || s.out[d] < full;
    }
    ++dims[active];
    strided += st;
    strideWAbove2 += s.stride[2] > 2;
    dilated += dl;
    padAboveKernel += pk;
    cropped += cr;
    pointwiseStrided += pw;
    outOne += volume(s.out) == 1;
    longRow += s.out[2] > 112 || s.out[1] * s.in[2] > 112;
    channelTail += s.inChannels % 16 != 0 || s.outChannels % 16 != 0;
  }
  std::string str() const {
    std::ostringstream out;
    out << "0D/1D/2D/3D " << dims[0] << "/" << dims[1] << "/" << dims[2] << "/" << dims[3]
        << ", strided " << strided << " (w>2: " << strideWAbove2 << ", 1x1: " << pointwiseStrided
        << "), dilated " << dilated << ", pad>=span " << padAboveKernel << ", short out " << cropped
        << ", out 1 " << outOne << ", rows>112 " << longRow << ", channel tails " << channelTail;
    return out.str();
  }
};

class ConvAlgorithmEntry : public ::testing::TestWithParam<int> {};

// Why `algorithm` cannot run on this CPU (the skip message), or empty.
std::string missingIsa(const ConvAlgorithm& algorithm) {
  if (algorithm.minimumIsa <= detectedIsa()) return {};
  return std::string(algorithm.name) + " needs " + isaName(algorithm.minimumIsa) +
         ", this CPU has " + isaName(detectedIsa());
}

TEST_P(ConvAlgorithmEntry, MatchesReferenceOnAcceptedShapes) {
  const ConvAlgorithm& algorithm = convAlgorithmAt(GetParam());
  if (const std::string why = missingIsa(algorithm); !why.empty()) GTEST_SKIP() << why;
  Restore restore;
  const int64_t wanted = environmentNumber("ACLNN_CPU_TEST_SHAPES", kShapesPerEntry);
  const uint32_t seed = static_cast<uint32_t>(environmentNumber("ACLNN_CPU_TEST_SEED", 0x5eed0000));
  ShapeGenerator shapes(seed + static_cast<uint32_t>(GetParam()));
  const int threads[3] = {1, 2, 3};
  int accepted = 0, attempts = 0, failures = 0;
  Coverage coverage;
  while (accepted < wanted && attempts < kMaxAttempts * (wanted / kShapesPerEntry + 1)) {
    ++attempts;
    const ConvShape s = shapes.next(kMaxTerms);
    if (!algorithm.accepts(s)) continue;
    ++accepted;
    coverage.add(s);
    if (verbose()) std::fprintf(stderr, "%s: %s\n", algorithm.name, describe(s).c_str());
    const PassOperands op = makeOperands(algorithm.pass, s, shapes.rng());
    const bool ok = checkRuns(
        entryLabel(algorithm.name, s), algorithm.pass, s, [&] { return algorithm.scratchBytes(s); },
        op, threads, 3,
        [&](const float* a, const float* b, float* out, void* scratch) {
          algorithm.run(s, a, b, out, scratch);
        });
    if (!ok && ++failures >= 5) break;  // enough to go on; keep the log readable
  }
  std::printf("[ registry ] %-36s %3d accepted of %5d tried, %d failing\n[ registry ]   %s\n",
              algorithm.name, accepted, attempts, failures, coverage.str().c_str());
  if (failures < 5) {
    EXPECT_GE(accepted, wanted) << algorithm.name << " accepted only " << accepted << " of "
                                << attempts
                                << " generated shapes: the generator misses its geometry";
  }
}

// Hand-picked edges: row segments of the blocked kernels (112 positions)
// exactly full and one over, flattened 2D rows at the boundary, single
// outputs, windows entirely in the padding, odd block counts per group,
// partial channel blocks, every stride phase count up to 64, mixed reduced
// 1x1 strided dims, many weight-gradient rows.
struct DimSpec {
  int64_t in, kernel, stride, pad, dilation;
  int64_t out;  // 0: the full extent with padBefore == padAfter
};

ConvShape edgeShape(int64_t batch, int64_t cin, int64_t cout, int64_t groups, DimSpec d0,
                    DimSpec d1, DimSpec d2) {
  ConvShape s;
  s.batch = batch;
  s.inChannels = cin;
  s.outChannels = cout;
  s.groups = groups;
  const DimSpec dims[3] = {d0, d1, d2};
  for (int d = 0; d < 3; ++d) {
    const DimSpec& e = dims[d];
    s.in[d] = e.in;
    s.kernel[d] = e.kernel;
    s.stride[d] = e.stride;
    s.padBefore[d] = e.pad;
    s.dilation[d] = e.dilation;
    s.out[d] =
        e.out > 0 ? e.out : (e.in + 2 * e.pad - e.dilation * (e.kernel - 1) - 1) / e.stride + 1;
  }
  return s;
}

std::vector<ConvShape> edgeShapes() {
  const DimSpec unit{1, 1, 1, 0, 1, 0};
  std::vector<ConvShape> v;
  for (int64_t w : {110, 112, 113, 224, 225}) {  // row segments, stride 1 and 2
    v.push_back(edgeShape(1, 16, 16, 1, unit, unit, {w, 3, 1, 1, 1, 0}));
    v.push_back(edgeShape(1, 32, 17, 1, unit, unit, {2 * w, 3, 2, 1, 1, 0}));
    v.push_back(edgeShape(2, 17, 17, 17, unit, unit, {w, 3, 1, 1, 1, 0}));
    v.push_back(edgeShape(1, 33, 33, 33, unit, unit, {2 * w + 1, 5, 2, 2, 1, 0}));
  }
  for (int64_t h : {6, 7, 8}) {  // flattened rows of 7 * 16 = 112 staged columns
    v.push_back(edgeShape(1, 16, 32, 1, unit, {h, 3, 1, 1, 1, 0}, {14, 3, 1, 1, 1, 0}));
    v.push_back(edgeShape(1, 48, 48, 48, unit, {h, 3, 1, 1, 1, 0}, {14, 3, 1, 1, 1, 0}));
  }
  // Single outputs: kernel covering all of x, and 1x1x1 everything.
  v.push_back(edgeShape(2, 16, 16, 1, unit, {3, 3, 1, 0, 1, 0}, {3, 3, 1, 0, 1, 0}));
  v.push_back(edgeShape(3, 32, 32, 32, {2, 2, 1, 0, 1, 0}, {3, 3, 1, 0, 1, 0}, {3, 3, 1, 0, 1, 0}));
  v.push_back(edgeShape(1, 16, 16, 1, unit, unit, unit));
  v.push_back(edgeShape(1, 64, 64, 4, unit, unit, unit));
  // Windows entirely in the padding (rows and columns that read only zeros).
  v.push_back(edgeShape(1, 16, 16, 1, unit, {2, 1, 1, 3, 1, 8}, {3, 2, 1, 4, 1, 10}));
  v.push_back(edgeShape(2, 16, 16, 16, unit, {2, 1, 1, 3, 1, 8}, {3, 2, 2, 4, 1, 6}));
  v.push_back(edgeShape(1, 32, 16, 1, unit, {1, 3, 3, 5, 2, 0}, {2, 3, 2, 6, 3, 0}));
  // Odd output blocks per group, partial blocks, block-diagonal groups.
  v.push_back(edgeShape(2, 32, 96, 2, unit, {5, 3, 1, 1, 1, 0}, {6, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 48, 40, 1, unit, {5, 3, 2, 1, 1, 0}, {9, 3, 2, 1, 1, 0}));
  v.push_back(edgeShape(1, 15, 16, 1, unit, {4, 2, 1, 0, 1, 0}, {7, 2, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 12, 12, 3, unit, {5, 3, 1, 1, 1, 0}, {5, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(2, 40, 40, 5, unit, {5, 3, 2, 1, 1, 0}, {6, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 24, 24, 6, {3, 3, 1, 1, 1, 0}, {4, 3, 1, 1, 1, 0}, {4, 3, 2, 1, 1, 0}));
  v.push_back(edgeShape(1, 80, 80, 10, unit, {6, 3, 1, 1, 2, 0}, {6, 3, 1, 2, 2, 0}));
  // Backward-data stride phases: 64 (8 x 8, 4 x 4 x 4), stride above the
  // kernel, stride and dilation sharing a factor.
  v.push_back(edgeShape(1, 16, 16, 1, unit, {17, 3, 8, 1, 1, 0}, {18, 2, 8, 0, 1, 0}));
  v.push_back(edgeShape(1, 16, 16, 1, {9, 2, 4, 0, 1, 0}, {9, 3, 4, 1, 1, 0}, {10, 4, 4, 1, 1, 0}));
  v.push_back(edgeShape(1, 16, 32, 1, unit, {11, 2, 3, 0, 1, 0}, {12, 2, 4, 1, 1, 0}));
  v.push_back(edgeShape(1, 32, 16, 1, unit, {12, 3, 2, 2, 2, 0}, {13, 3, 4, 2, 2, 0}));
  v.push_back(edgeShape(1, 32, 32, 32, unit, {12, 3, 4, 2, 2, 0}, {13, 5, 2, 3, 3, 0}));
  // 1x1 strided dims (subsampled) mixed with ordinary ones.
  v.push_back(edgeShape(2, 32, 48, 1, unit, {13, 1, 3, 0, 1, 0}, {14, 3, 2, 1, 1, 0}));
  v.push_back(edgeShape(1, 16, 16, 1, {5, 1, 2, 1, 1, 0}, {7, 1, 3, 1, 1, 0}, {9, 1, 2, 0, 1, 0}));
  v.push_back(edgeShape(1, 16, 16, 16, unit, {9, 1, 4, 2, 1, 0}, {9, 3, 1, 1, 1, 0}));
  // 1x1x1 kernels whose data gradient col2im stores whole dx planes: padded
  // stride 2 with stacked images (25 positions) and one image's 285, a 3D
  // one with stride 3 along W and a short output, a padded stride 1.
  v.push_back(edgeShape(3, 16, 24, 1, unit, {9, 1, 2, 1, 1, 0}, {9, 1, 2, 1, 1, 0}));
  v.push_back(edgeShape(1, 16, 16, 1, unit, {30, 1, 2, 0, 1, 0}, {37, 1, 2, 0, 1, 0}));
  v.push_back(edgeShape(2, 8, 8, 1, {5, 1, 2, 1, 1, 0}, {7, 1, 3, 2, 1, 0}, {40, 1, 3, 1, 1, 12}));
  v.push_back(edgeShape(2, 8, 8, 1, unit, {20, 1, 1, 1, 1, 0}, {20, 1, 1, 2, 1, 0}));
  // One image whose 1x1 product spans several of sgemm's 480-column blocks
  // (its weights packed once for them): 576 positions, stride 1 and 2.
  v.push_back(edgeShape(1, 16, 24, 1, unit, {24, 1, 1, 0, 1, 0}, {24, 1, 1, 0, 1, 0}));
  v.push_back(edgeShape(1, 24, 16, 1, unit, {48, 1, 2, 0, 1, 0}, {48, 1, 2, 0, 1, 0}));
  // Weight-gradient blocks of at most 224 positions: 3 rows of 60 (and a
  // last block of 1 row), single stride-2 rows of 61 (2 x lines each).
  v.push_back(edgeShape(2, 16, 16, 1, unit, {10, 3, 1, 1, 1, 0}, {60, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 16, 16, 1, unit, {9, 3, 2, 1, 1, 0}, {121, 3, 2, 1, 1, 0}));
  // Weight-gradient staging in groups smaller than the batch (2.6 MB of
  // staged x and dy per image: one image per thread and group), chunks
  // across image boundaries.
  v.push_back(edgeShape(3, 16, 16, 1, unit, unit, {20000, 3, 1, 1, 1, 0}));
  // Many weight-gradient rows (every reduction chunk busy), batch 3.
  v.push_back(edgeShape(3, 16, 16, 1, unit, {150, 3, 1, 1, 1, 0}, {5, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(3, 32, 32, 32, unit, {150, 3, 1, 1, 1, 0}, {9, 3, 1, 1, 1, 0}));
  // Enough channel blocks (8 x 9 pairs) for a bf16 weight pass of one
  // chunk, whose items write their own weights; partial blocks both ways.
  v.push_back(edgeShape(1, 250, 272, 1, unit, {4, 3, 1, 1, 1, 0}, {5, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 32, 32, 1, {4, 3, 1, 1, 1, 0}, {6, 3, 1, 1, 1, 0}, {6, 3, 1, 1, 1, 0}));
  // Tiles of four output blocks (fp32 W-strided layers and rows of 48+
  // positions, in both row passes): 64 channels, a padded last block (50),
  // two groups of four blocks each (a W-strided data gradient's stride-phase
  // rows too), rows cut into tiles of 5 and 6 positions, a data gradient
  // onto 64 channels.
  v.push_back(edgeShape(2, 32, 64, 1, unit, {9, 3, 2, 1, 1, 0}, {30, 3, 2, 1, 1, 0}));
  v.push_back(edgeShape(1, 16, 50, 1, unit, {5, 3, 1, 1, 1, 0}, {61, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 128, 128, 2, unit, {4, 3, 2, 1, 1, 0}, {40, 3, 2, 1, 1, 0}));
  v.push_back(edgeShape(1, 64, 16, 1, unit, {4, 3, 1, 1, 1, 0}, {55, 3, 1, 1, 1, 0}));
  // W strides above 2 (the AMX row kernels step through x at any stride up
  // to 8): a 2D stride-5 layer with padding, a 1D stride-8 one whose last
  // tile reads far past its row, and stride 9 (past that: other entries).
  v.push_back(edgeShape(2, 32, 48, 1, unit, {5, 3, 1, 1, 1, 0}, {41, 7, 5, 2, 1, 0}));
  v.push_back(edgeShape(1, 16, 32, 1, unit, unit, {100, 10, 8, 3, 1, 0}));
  v.push_back(edgeShape(1, 32, 16, 1, unit, unit, {60, 9, 9, 0, 1, 0}));
  // Depthwise planes: rows that need several bands of the plane kernels'
  // buffer, dilated and H-strided windows, padding beyond the kernel's reach
  // (a negative pad in the data gradient's flipped correlation), row tails.
  v.push_back(edgeShape(2, 4, 4, 4, unit, {120, 5, 2, 4, 2, 0}, {500, 5, 1, 4, 2, 0}));
  v.push_back(edgeShape(1, 3, 3, 3, unit, {30, 3, 1, 1, 1, 0}, {1000, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(2, 5, 5, 5, unit, {40, 3, 1, 3, 1, 0}, {70, 3, 1, 4, 1, 0}));
  v.push_back(edgeShape(1, 2, 2, 2, unit, unit, {4000, 7, 1, 3, 1, 0}));
  // 3x3 depthwise planes (taps in registers): aligned rows with a dilated,
  // strided H, a dilated W, a row too wide for aligned rows in the band, and
  // rows of four vectors, the last one partial (MobileNet's 56).
  v.push_back(edgeShape(2, 6, 6, 6, unit, {13, 3, 2, 1, 2, 0}, {37, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 4, 4, 4, unit, {5, 3, 1, 1, 1, 0}, {56, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(1, 3, 3, 3, unit, {9, 3, 1, 2, 2, 0}, {50, 3, 1, 2, 2, 0}));
  v.push_back(edgeShape(1, 2, 2, 2, unit, {4, 3, 1, 1, 1, 0}, {2710, 3, 1, 1, 1, 0}));
  // NCHW planes: every channel tile size (7 = 4 + 2 + 1 per group), vectors
  // within rows (src and dst rows of different widths) and across them (rows
  // narrower than a vector), a channel multiplier, a dilated 1D reach wider
  // than a vector, a dense layer with a plane of exactly whole tiles.
  v.push_back(edgeShape(2, 12, 28, 4, unit, {9, 3, 1, 0, 1, 0}, {40, 3, 1, 0, 1, 0}));
  v.push_back(edgeShape(1, 8, 16, 8, unit, {11, 3, 1, 1, 1, 0}, {5, 3, 1, 1, 1, 0}));
  v.push_back(edgeShape(2, 5, 13, 1, unit, unit, {300, 7, 1, 9, 3, 0}));
  v.push_back(edgeShape(1, 16, 24, 1, unit, {12, 3, 1, 1, 1, 0}, {16, 3, 1, 1, 1, 0}));
  // Stride phases (space to depth): a 1-channel k10 s5 stem, a 3-channel
  // 7x7/2 stem (kernel not a multiple of the stride: w' has zeros), both
  // dims strided by different factors, one strided dim beside a dilated
  // padded one, windows that reach only padding, x columns no window
  // reaches, a stride above the kernel.
  v.push_back(edgeShape(2, 1, 40, 1, unit, unit, {523, 10, 5, 0, 1, 0}));
  v.push_back(edgeShape(1, 3, 20, 1, unit, {23, 7, 2, 3, 1, 0}, {29, 7, 2, 3, 1, 0}));
  v.push_back(edgeShape(2, 2, 9, 1, unit, {17, 4, 2, 1, 1, 0}, {19, 6, 3, 2, 1, 0}));
  v.push_back(edgeShape(1, 4, 13, 1, unit, {21, 3, 3, 1, 1, 0}, {30, 3, 1, 2, 2, 0}));
  v.push_back(edgeShape(1, 1, 8, 1, unit, unit, {9, 2, 2, 3, 1, 0}));
  v.push_back(edgeShape(2, 3, 17, 1, unit, unit, {22, 4, 4, 0, 1, 0}));
  v.push_back(edgeShape(1, 2, 16, 1, unit, {7, 1, 1, 0, 1, 0}, {19, 2, 4, 1, 1, 0}));
  // Few-channel weight gradient: a row longer than a block of positions
  // (segments of 1024, the last with a partial vector), rows in several
  // blocks with a partial last block, output channels in tiles of 4 within
  // groups of 8 (13 = 8 + 4 + 1), taps in tiles of 6 (3 * 9 = 27).
  v.push_back(edgeShape(2, 1, 13, 1, unit, unit, {5000, 10, 2, 3, 1, 0}));
  v.push_back(edgeShape(1, 3, 13, 1, unit, {60, 3, 1, 1, 1, 0}, {100, 3, 1, 1, 1, 0}));
  // A 3D layer whose every dim pads more than the kernel reaches on one side
  // (the bf16 data gradient once wrote past its scratch here).
  v.push_back(edgeShape(1, 31, 77, 1, {6, 2, 2, 3, 1, 6}, {2, 4, 2, 1, 1, 2}, {1, 2, 4, 2, 3, 1}));
  return v;
}

TEST_P(ConvAlgorithmEntry, MatchesReferenceOnEdgeShapes) {
  const ConvAlgorithm& algorithm = convAlgorithmAt(GetParam());
  if (const std::string why = missingIsa(algorithm); !why.empty()) GTEST_SKIP() << why;
  Restore restore;
  std::mt19937 rng(4242 + GetParam());
  const int threads[3] = {1, 2, 3};
  int accepted = 0, total = 0;
  for (const ConvShape& edge : edgeShapes()) {
    ++total;
    // fp32 entries run the fp32 shape; low-precision ones each operand kind
    // they take (the hi/lo entries fp16 and HF32 operands: their plans
    // differ, and HF32 ones once got the fp32 kernels' tiles of four blocks).
    bool any = false;
    for (OperandValues v :
         {OperandValues::F32, OperandValues::BF16, OperandValues::F16, OperandValues::HF32}) {
      ConvShape s = edge;
      s.operands = v;
      if (!algorithm.accepts(s)) continue;
      any = true;
      if (verbose()) std::fprintf(stderr, "%s: %s\n", algorithm.name, describe(s).c_str());
      const PassOperands op = makeOperands(algorithm.pass, s, rng);
      checkRuns(
          entryLabel(algorithm.name, s), algorithm.pass, s,
          [&] { return algorithm.scratchBytes(s); }, op, threads, 3,
          [&](const float* a, const float* b, float* out, void* scratch) {
            algorithm.run(s, a, b, out, scratch);
          });
      // An entry that takes fp32 operands takes the others as fp32 values.
      if (v == OperandValues::F32) break;
    }
    accepted += any ? 1 : 0;
  }
  std::printf("[ edges    ] %-36s %2d of %2d edge shapes accepted\n", algorithm.name, accepted,
              total);
}

// A bias added in an algorithm's store step (runWithBias) gives the bits
// of the algorithm's result plus the bias added afterwards; entries without
// a store step get the pass that runConvAlgorithm adds.
TEST_P(ConvAlgorithmEntry, BiasInTheStoreStepEqualsBiasAddedAfter) {
  const ConvAlgorithm& algorithm = convAlgorithmAt(GetParam());
  if (algorithm.pass == ConvPass::BackwardWeight) GTEST_SKIP() << "no bias in a weight gradient";
  if (const std::string why = missingIsa(algorithm); !why.empty()) GTEST_SKIP() << why;
  Restore restore;
  setComputeThreadCount(2);
  ShapeGenerator shapes(0xb1a50000u + static_cast<uint32_t>(GetParam()));
  int accepted = 0;
  for (int attempt = 0; attempt < kMaxAttempts && accepted < 25; ++attempt) {
    const ConvShape s = shapes.next(kMaxTerms / 4);
    if (!algorithm.accepts(s)) continue;
    ++accepted;
    const PassOperands op = makeOperands(algorithm.pass, s, shapes.rng());
    const int64_t channels = algorithm.pass == ConvPass::Forward ? s.outChannels : s.inChannels;
    const int64_t spatial = algorithm.pass == ConvPass::Forward ? volume(s.out) : volume(s.in);
    const std::vector<float> bias = randomValues(channels, shapes.rng());
    Scratch scratch(algorithm.scratchBytes(s));
    std::vector<float> plain = poisoned(op.outputCount), withBias = poisoned(op.outputCount);
    algorithm.run(s, op.a.data(), op.b.data(), plain.data(), scratch.get());
    runConvAlgorithm(algorithm, s, op.a.data(), op.b.data(), bias.data(), withBias.data(),
                     scratch.get());
    ASSERT_TRUE(scratch.guardsIntact()) << algorithm.name;
    for (int64_t i = 0; i < op.outputCount; ++i) {
      const float expected = plain[i] + bias[i / spatial % channels];
      ASSERT_EQ(std::memcmp(&expected, &withBias[i], sizeof(float)), 0)
          << entryLabel(algorithm.name, s) << ": element " << i << " ("
          << coordinates(algorithm.pass, s, i) << ") got " << withBias[i] << ", expected "
          << expected << (algorithm.runWithBias ? " (store step)" : " (pass after)");
    }
  }
  EXPECT_GT(accepted, 0) << algorithm.name;
  std::printf("[ bias     ] %-36s %2d shapes, %s\n", algorithm.name, accepted,
              algorithm.runWithBias ? "added in its store step" : "added by a pass after it");
}

// The words runs (the caller's bf16 or half tensors, read where they lie)
// give the fp32 run's bits on the same values: products of 16-bit values
// are exact in fp32, and each forward or data-gradient result is rounded to
// the words once. On the edge shapes, whose rows take whole vectors and
// partial ones.
TEST_P(ConvAlgorithmEntry, WordsRunsEqualFp32RunsOnTheSameValues) {
  const ConvAlgorithm& algorithm = convAlgorithmAt(GetParam());
  const bool weightPass = algorithm.pass == ConvPass::BackwardWeight;
  if (!algorithm.acceptsWords ||
      !(weightPass ? algorithm.runWeightWords != nullptr : algorithm.runWords != nullptr))
    GTEST_SKIP() << algorithm.name << " has no words run";
  if (const std::string why = missingIsa(algorithm); !why.empty()) GTEST_SKIP() << why;
  Restore restore;
  setComputeThreadCount(2);
  std::mt19937 rng(0x3d0000u + static_cast<uint32_t>(GetParam()));
  int checked = 0;
  for (const ConvShape& edge : edgeShapes()) {
    for (ElementType io : {ElementType::BF16, ElementType::F16}) {
      const bool bf16 = io == ElementType::BF16;
      ConvShape values = edge;  // the fp32 run on the same values
      values.operands = bf16 ? OperandValues::BF16 : OperandValues::F16;
      ConvShape words = values;
      words.io = io;
      if (!algorithm.accepts(values) || !algorithm.acceptsWords(words)) continue;
      ++checked;
      const PassOperands op = makeOperands(algorithm.pass, values, rng);
      auto toWords = [&](const std::vector<float>& v) {
        std::vector<uint16_t> w;
        for (float e : v)
          w.push_back(bf16 ? detail::floatToBf16Inline(e) : detail::floatToHalfInline(e));
        return w;
      };
      std::vector<float> expected = poisoned(op.outputCount);
      // One scratch for both runs: the larger of their sizes.
      Scratch scratch(std::max(algorithm.scratchBytes(words), algorithm.scratchBytes(values)));
      algorithm.run(values, op.a.data(), op.b.data(), expected.data(), scratch.get());
      scratch.repoison();  // the words run must not lean on the fp32 run's staging
      const std::vector<uint16_t> a = toWords(op.a);
      const std::string label = entryLabel(algorithm.name, words);
      if (weightPass) {
        const std::vector<uint16_t> b = toWords(op.b);
        std::vector<float> dw = poisoned(op.outputCount);
        ASSERT_TRUE(algorithm.runWeightWords(words, a.data(), b.data(), dw.data(), scratch.get()))
            << label;
        for (int64_t i = 0; i < op.outputCount; ++i)
          ASSERT_EQ(std::memcmp(&dw[i], &expected[i], sizeof(float)), 0)
              << label << ": dw element " << i << " got " << dw[i] << ", expected " << expected[i];
      } else {
        std::vector<uint16_t> out(static_cast<size_t>(op.outputCount), 0xffff);
        ASSERT_TRUE(
            algorithm.runWords(words, a.data(), op.b.data(), nullptr, out.data(), scratch.get()))
            << label;
        const std::vector<uint16_t> want = toWords(expected);
        for (int64_t i = 0; i < op.outputCount; ++i)
          ASSERT_EQ(out[i], want[i])
              << label << ": element " << i << " (" << coordinates(algorithm.pass, words, i) << ")";
      }
      ASSERT_TRUE(scratch.guardsIntact()) << label;
    }
  }
  std::printf("[ words    ] %-36s %2d edge shapes x word types checked\n", algorithm.name, checked);
}

// An entry that also sums dy per channel (gradBias in its weight pass)
// gives channelSums' bits for the sums and its plain run's bits for dw: on
// fp32 values, on raw values it rounds to HF32 as it reads them (the sums
// are of the raw values), and on bf16 and half words. Besides the edge
// shapes, runs of channels that are not whole groups of 8 over 3 images
// with planes that are not whole 16-lane vectors (each plane starts at
// another lane).
TEST_P(ConvAlgorithmEntry, SummingDyGivesChannelSumsAndTheSameDw) {
  const ConvAlgorithm& algorithm = convAlgorithmAt(GetParam());
  if (!algorithm.runSummingDy) GTEST_SKIP() << algorithm.name << " does not sum dy";
  ASSERT_NE(algorithm.runWeightWordsSummingDy, nullptr) << "both summing runs or neither";
  if (const std::string why = missingIsa(algorithm); !why.empty()) GTEST_SKIP() << why;
  Restore restore;
  setComputeThreadCount(2);
  std::mt19937 rng(0x5d0000u + static_cast<uint32_t>(GetParam()));
  const DimSpec unit{1, 1, 1, 0, 1, 0};
  std::vector<ConvShape> shapes = edgeShapes();
  shapes.push_back(edgeShape(3, 13, 13, 13, unit, {5, 3, 1, 1, 1, 0}, {7, 3, 1, 1, 1, 0}));
  shapes.push_back(edgeShape(3, 20, 20, 20, unit, {4, 3, 2, 1, 1, 0}, {45, 3, 1, 1, 1, 0}));
  enum Variant { kFp32, kRawHf32, kBf16, kHalf };
  int checked = 0;
  for (const ConvShape& edge : shapes) {
    for (Variant variant : {kFp32, kRawHf32, kBf16, kHalf}) {
      ConvShape s = edge;
      if (variant == kRawHf32) s.inputRounding = Rounding::HF32;
      if (variant == kBf16 || variant == kHalf) {
        s.operands = variant == kBf16 ? OperandValues::BF16 : OperandValues::F16;
        s.io = variant == kBf16 ? ElementType::BF16 : ElementType::F16;
      }
      const bool words = s.io != ElementType::F32;
      if (!algorithm.accepts(s) || (words && !algorithm.acceptsWords(s))) continue;
      if (variant == kRawHf32 && !algorithm.roundsHf32Inputs) continue;
      ++checked;
      const std::string label =
          entryLabel(algorithm.name, s) + " variant " + std::to_string(static_cast<int>(variant));
      PassOperands op = makeOperands(ConvPass::BackwardWeight, s, rng);
      // Magnitudes 2^-20..2^40 (half: scaled by 2^-26 into its range), so
      // that any other order of the additions changes the sums' bits.
      for (float& e : op.b) {
        e = std::ldexp(e, static_cast<int>(rng() % 61) - 20);
        if (variant == kBf16) e = roundFloat(e, Rounding::BF16);
        if (variant == kHalf) e = roundFloat(std::ldexp(e, -26), Rounding::F16);
      }
      std::vector<uint16_t> xWords, dyWords;
      auto toWords = [&](const std::vector<float>& v, std::vector<uint16_t>* w) {
        for (float e : v)
          w->push_back(variant == kBf16 ? detail::floatToBf16Inline(e)
                                        : detail::floatToHalfInline(e));
      };
      if (words) {
        toWords(op.a, &xWords);
        toWords(op.b, &dyWords);
      }
      View5 dyView;
      dyView.type = s.io;
      dyView.data = words ? static_cast<void*>(dyWords.data()) : static_cast<void*>(op.b.data());
      const int64_t extent[5] = {s.batch, s.outChannels, s.out[0], s.out[1], s.out[2]};
      int64_t stride = 1;
      for (int k = 4; k >= 0; --k) {
        dyView.shape[k] = extent[k];
        dyView.strides[k] = stride;
        stride *= extent[k];
      }
      std::vector<double> want(static_cast<size_t>(s.outChannels), -1.0);
      channelSums(dyView, want.data());
      Scratch scratch(algorithm.scratchBytes(s));
      std::vector<float> plain = poisoned(op.outputCount), dw = poisoned(op.outputCount);
      std::vector<double> sums(static_cast<size_t>(s.outChannels), -1.0);
      if (words) {
        ASSERT_TRUE(
            algorithm.runWeightWords(s, xWords.data(), dyWords.data(), plain.data(), scratch.get()))
            << label;
        ASSERT_TRUE(algorithm.runWeightWordsSummingDy(s, xWords.data(), dyWords.data(), dw.data(),
                                                      sums.data(), scratch.get()))
            << label;
      } else {
        algorithm.run(s, op.a.data(), op.b.data(), plain.data(), scratch.get());
        algorithm.runSummingDy(s, op.a.data(), op.b.data(), dw.data(), sums.data(), scratch.get());
      }
      for (int64_t i = 0; i < op.outputCount; ++i)
        ASSERT_EQ(std::memcmp(&dw[i], &plain[i], sizeof(float)), 0) << label << ": dw " << i;
      for (int64_t c = 0; c < s.outChannels; ++c)
        ASSERT_EQ(std::memcmp(&sums[c], &want[c], sizeof(double)), 0)
            << label << ": channel " << c << " sum " << sums[c] << ", channelSums " << want[c];
      ASSERT_TRUE(scratch.guardsIntact()) << label;
    }
  }
  EXPECT_GT(checked, 0) << algorithm.name << " accepted none of the shapes";
  std::printf("[ sums dy  ] %-36s %2d shapes x variants checked\n", algorithm.name, checked);
}

// Raw fp32 inputs that an entry rounds to HF32 as it reads them
// (ConvShape::inputRounding) give the bits of the same entry on copies
// rounded first, the copies the operator layer makes for the other entries.
// Every seventh value is an exact tie of the rounding (ties go away from
// zero), and a few are Inf or NaN, which the rounding passes through.
TEST_P(ConvAlgorithmEntry, RoundingRawInputsEqualsRunningOnRoundedCopies) {
  const ConvAlgorithm& algorithm = convAlgorithmAt(GetParam());
  if (!algorithm.roundsHf32Inputs)
    GTEST_SKIP() << algorithm.name << " reads operand values only (the caller rounds copies)";
  if (const std::string why = missingIsa(algorithm); !why.empty()) GTEST_SKIP() << why;
  Restore restore;
  setComputeThreadCount(2);
  ShapeGenerator shapes(0x4f320000u + static_cast<uint32_t>(GetParam()));
  const bool weightPass = algorithm.pass == ConvPass::BackwardWeight;
  auto rawValues = [&](int64_t count, bool specials) {
    std::vector<float> v = randomValues(count, shapes.rng());
    for (int64_t i = 0; i < count; i += 7) {
      uint32_t bits = 0;
      std::memcpy(&bits, &v[i], sizeof bits);
      bits = (bits & 0xfffff000u) | 0x800u;  // halfway between two HF32 values
      std::memcpy(&v[i], &bits, sizeof bits);
    }
    if (specials && count > 40) {
      v[count / 3] = std::numeric_limits<float>::infinity();
      v[count / 2] = std::numeric_limits<float>::quiet_NaN();
    }
    return v;
  };
  auto rounded = [](std::vector<float> v) {
    for (float& e : v) e = roundFloat(e, Rounding::HF32);
    return v;
  };
  // First the ways the plane correlations round: more than one group of 8
  // dst channels (the first keeps what it rounds; 13 = 8 + 5), one group
  // (items of several blocks rounded first, dilated rows around them), rows
  // of different widths (vectors within a row), 1D, 1x1.
  const DimSpec unit{1, 1, 1, 0, 1, 0};
  const std::vector<ConvShape> planeShapes = {
      edgeShape(2, 64, 24, 1, unit, {20, 1, 1, 0, 1, 0}, {23, 1, 1, 0, 1, 0}),
      edgeShape(1, 20, 13, 1, unit, {17, 3, 1, 1, 1, 0}, {19, 3, 1, 1, 1, 0}),
      edgeShape(1, 12, 20, 1, unit, {9, 3, 1, 0, 1, 0}, {48, 3, 1, 0, 1, 0}),
      edgeShape(2, 16, 16, 4, unit, {30, 3, 1, 2, 2, 0}, {30, 3, 1, 2, 2, 0}),
      edgeShape(1, 24, 10, 1, unit, unit, {300, 5, 1, 2, 1, 0}),
      // A depthwise 3x3 plane of whole vectors and a partial one (the
      // weight gradient rounds dy as its sweep loads each vector).
      edgeShape(1, 3, 3, 3, unit, {6, 3, 1, 1, 1, 0}, {40, 3, 1, 1, 1, 0}),
      // A data gradient of a short gradOutput (dx rows of 130 against dy
      // rows of 77): a dx row's last vectors start past the next row's
      // first in dy, and the rounded slot once missed the lower ones.
      edgeShape(1, 3, 78, 1, unit, {7, 1, 1, 0, 1, 9}, {130, 1, 1, 2, 1, 77}),
      edgeShape(1, 16, 24, 1, unit, {7, 1, 1, 0, 1, 9}, {130, 1, 1, 2, 1, 77}),
      // A few-channel data gradient whose dy rows fill a whole chunk of 64
      // positions and a short one (rounded in place, and as copied).
      edgeShape(2, 2, 12, 1, unit, unit, {150, 5, 2, 2, 1, 0}),
      // Few-channel weight gradients of 8 tap tiles or more (raw dy rounded
      // once per block into a buffer): blocks of whole rows, and segments of
      // a row longer than a block.
      edgeShape(1, 3, 10, 1, unit, {20, 5, 2, 2, 1, 0}, {40, 5, 2, 2, 1, 0}),
      edgeShape(1, 1, 6, 1, unit, unit, {3000, 48, 1, 0, 1, 0}),
  };
  int accepted = 0, attempts = 0, levelsRun = 0;
  for (; attempts < kMaxAttempts && accepted < 30; ++attempts) {
    const auto edge = static_cast<size_t>(attempts);
    ConvShape s = edge < planeShapes.size() ? planeShapes[edge] : shapes.next(kMaxTerms / 4);
    s.operands = OperandValues::HF32;
    s.io = ElementType::F32;
    if (!algorithm.accepts(s)) continue;
    ++accepted;
    const int64_t aCount = algorithm.pass == ConvPass::BackwardData ? yCount(s) : xCount(s);
    const int64_t bCount = weightPass ? yCount(s) : wCount(s);
    const int64_t outCount = algorithm.pass == ConvPass::Forward ? yCount(s)
                             : weightPass                        ? wCount(s)
                                                                 : xCount(s);
    // Specials in a third of the shapes: elsewhere a NaN would hide the
    // other outputs' bits behind NaN results.
    const std::vector<float> rawA = rawValues(aCount, accepted % 3 == 0);
    // The weights are operand values either way; dy is an input of dW.
    const std::vector<float> rawB =
        weightPass ? rawValues(bCount, false) : rounded(randomValues(bCount, shapes.rng()));
    const std::vector<float> copyA = rounded(rawA), copyB = rounded(rawB);
    ConvShape raw = s;
    raw.inputRounding = Rounding::HF32;
    // Under every ISA level the entry runs at (the GEMM's packers differ).
    for (Isa level : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx}) {
      if (level < algorithm.minimumIsa || level > detectedIsa()) continue;
      ++levelsRun;
      ASSERT_TRUE(forceIsaForTesting(level));
      std::vector<float> fromCopies = poisoned(outCount);
      {
        Scratch scratch(algorithm.scratchBytes(s));
        algorithm.run(s, copyA.data(), copyB.data(), fromCopies.data(), scratch.get());
        ASSERT_TRUE(scratch.guardsIntact()) << algorithm.name;
      }
      // The raw run's scratch is its own size (it may hold rounded slots
      // per thread), and its bits are the same for 1, 2 and 3 threads, and
      // when chunks find no scratch slot free (none, or one for 3 threads)
      // and round as they read.
      struct RawRun {
        int threads;
        int64_t slotLimit;  // -1: no limit
      };
      for (const RawRun run :
           {RawRun{2, -1}, RawRun{1, -1}, RawRun{3, -1}, RawRun{3, 0}, RawRun{3, 1}}) {
        setComputeThreadCount(run.threads);
        scratchSlotLimitForTesting().store(run.slotLimit);
        Scratch scratch(algorithm.scratchBytes(raw));
        std::vector<float> fromRaw = poisoned(outCount);
        algorithm.run(raw, rawA.data(), rawB.data(), fromRaw.data(), scratch.get());
        scratchSlotLimitForTesting().store(-1);
        ASSERT_TRUE(scratch.guardsIntact())
            << algorithm.name << ", " << run.threads << " threads, slot limit " << run.slotLimit;
        for (int64_t i = 0; i < outCount; ++i) {
          ASSERT_EQ(std::memcmp(&fromRaw[i], &fromCopies[i], sizeof(float)), 0)
              << entryLabel(algorithm.name, s) << " at " << isaName(level) << ", " << run.threads
              << " threads, slot limit " << run.slotLimit << ": element " << i << " ("
              << coordinates(algorithm.pass, s, i) << ") from raw inputs " << fromRaw[i]
              << ", from rounded copies " << fromCopies[i];
        }
      }
      setComputeThreadCount(2);
    }
  }
  EXPECT_GE(accepted, 10) << algorithm.name << " accepted " << accepted << " of " << attempts;
  EXPECT_GE(levelsRun, accepted) << algorithm.name << " never ran";
  std::printf("[ hf32     ] %-36s %2d shapes, raw inputs rounded as read\n", algorithm.name,
              accepted);
}

std::string entryName(const ::testing::TestParamInfo<int>& info) {
  std::string name = convAlgorithmAt(info.param).name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Registry, ConvAlgorithmEntry, ::testing::Range(0, convAlgorithmCount()),
                         entryName);

// The tester itself: each kind of wrong result must be reported.
TEST(ConvAlgorithmTester, ReportsEveryKindOfWrongResult) {
  Restore restore;
  std::mt19937 rng(5);
  const ConvShape s =
      edgeShape(1, 3, 4, 1, {1, 1, 1, 0, 1, 0}, {4, 3, 1, 1, 1, 0}, {5, 3, 2, 1, 1, 0});
  const PassOperands op = makeOperands(ConvPass::Forward, s, rng);
  const int threads[3] = {1, 2, 3};
  const auto bytes = [] { return uint64_t{64}; };
  const auto correct = [&](float* out) {
    for (int64_t i = 0; i < op.outputCount; ++i) out[i] = static_cast<float>(op.reference.value[i]);
  };
  const auto check = [&](auto&& run) {
    return checkRuns("fake", ConvPass::Forward, s, bytes, op, threads, 3, run);
  };
  EXPECT_TRUE(check([&](const float*, const float*, float* out, void*) { correct(out); }));
  EXPECT_NONFATAL_FAILURE(check([&](const float*, const float*, float* out, void*) {
                            correct(out);
                            out[7] = std::numeric_limits<float>::quiet_NaN();
                          }),
                          "unwritten");
  EXPECT_NONFATAL_FAILURE(check([&](const float*, const float*, float* out, void*) {
                            correct(out);
                            out[5] += 1e-3f;
                          }),
                          "element 5");
  EXPECT_NONFATAL_FAILURE(check([&](const float*, const float*, float* out, void* scratch) {
                            correct(out);
                            static_cast<unsigned char*>(scratch)[64] = 0;
                          }),
                          "wrote outside");
  EXPECT_NONFATAL_FAILURE(check([&](const float*, const float*, float* out, void* scratch) {
                            correct(out);
                            static_cast<unsigned char*>(scratch)[-1] = 0;
                          }),
                          "wrote outside");
  EXPECT_NONFATAL_FAILURE(check([&](const float*, const float*, float* out, void*) {
                            correct(out);
                            if (computeThreadCount() == 3) out[2] = std::nextafter(out[2], 10.0f);
                          }),
                          "differs between 1 and 3 threads");
  EXPECT_NONFATAL_FAILURE(check([&](const float* a, const float*, float* out, void*) {
                            correct(out);
                            const_cast<float*>(a)[0] = 0.5f;
                          }),
                          "modified an input");
}

TEST(ConvRegistry, EveryPassEndsWithAnEntryThatTakesEverything) {
  // The selection falls back on the last entry of each pass: it must need
  // nothing above scalar.
  for (ConvPass pass : {ConvPass::Forward, ConvPass::BackwardData, ConvPass::BackwardWeight}) {
    const ConvAlgorithm* last = nullptr;
    for (int i = 0; i < convAlgorithmCount(); ++i)
      if (convAlgorithmAt(i).pass == pass) last = &convAlgorithmAt(i);
    ASSERT_NE(last, nullptr) << passName(pass);
    EXPECT_EQ(last->minimumIsa, Isa::Scalar) << last->name;
    ShapeGenerator shapes(99);
    for (int i = 0; i < 200; ++i) {
      const ConvShape s = shapes.next(kMaxTerms);
      EXPECT_TRUE(last->accepts(s)) << last->name << " refuses " << describe(s);
    }
  }
}

TEST(ConvRegistry, NamesAreUniqueAndSayTheirPass) {
  const char* tags[3] = {"_fwd_", "_bwdd_", "_bwdw_"};
  for (int i = 0; i < convAlgorithmCount(); ++i) {
    const ConvAlgorithm& a = convAlgorithmAt(i);
    EXPECT_NE(std::strstr(a.name, tags[static_cast<int>(a.pass)]), nullptr) << a.name;
    for (int j = 0; j < i; ++j) EXPECT_STRNE(a.name, convAlgorithmAt(j).name);
  }
}

// ---------------------------------------------------------------------------
// The public passes under each ISA level.

const ConvAlgorithm* findAlgorithm(const char* name) {
  for (int i = 0; i < convAlgorithmCount(); ++i)
    if (std::strcmp(convAlgorithmAt(i).name, name) == 0) return &convAlgorithmAt(i);
  return nullptr;
}

// The registry's rule, restated: the first entry of the pass whose ISA the
// level covers and that accepts the shape.
const ConvAlgorithm* firstAccepting(ConvPass pass, const ConvShape& s, Isa level) {
  for (int i = 0; i < convAlgorithmCount(); ++i) {
    const ConvAlgorithm& a = convAlgorithmAt(i);
    if (a.pass == pass && a.minimumIsa <= level && a.accepts(s)) return &a;
  }
  return nullptr;
}

struct PublicPass {
  ConvPass pass;
  uint64_t (*scratchBytes)(const ConvShape&);
  const char* (*algorithmName)(const ConvShape&);
  void (*run)(const ConvShape&, const float*, const float*, float*, void*);
};

void forwardNoBias(const ConvShape& s, const float* x, const float* w, float* y, void* scratch) {
  convForward(s, x, w, y, scratch);
}
void backwardDataNoBias(const ConvShape& s, const float* dy, const float* w, float* dx,
                        void* scratch) {
  convBackwardData(s, dy, w, dx, scratch);
}
void backwardWeightNoSums(const ConvShape& s, const float* x, const float* dy, float* dw,
                          void* scratch) {
  convBackwardWeight(s, x, dy, dw, scratch);
}

const PublicPass kPublicPasses[] = {
    {ConvPass::Forward, forwardScratchBytes, forwardAlgorithmName, forwardNoBias},
    {ConvPass::BackwardData, backwardDataScratchBytes, backwardDataAlgorithmName,
     backwardDataNoBias},
    {ConvPass::BackwardWeight, backwardWeightScratchBytes, backwardWeightAlgorithmName,
     backwardWeightNoSums},
};

class ConvPassesUnderIsa : public ::testing::TestWithParam<Isa> {};

TEST_P(ConvPassesUnderIsa, RunTheFirstAcceptingEntryOfTheLevel) {
  const Isa level = GetParam();
  if (level > detectedIsa()) {
    GTEST_SKIP() << "ISA level " << isaName(level) << " is above what this CPU has ("
                 << isaName(detectedIsa()) << ")";
  }
  Restore restore;
  ASSERT_TRUE(forceIsaForTesting(level)) << isaName(level);
  ASSERT_EQ(activeIsa(), level);
  ShapeGenerator shapes(0x15a00000u + static_cast<uint32_t>(level));
  const int threads[2] = {1, 2};
  std::map<std::string, int> ran;
  int failures = 0;
  for (int i = 0; i < 90 && failures < 5; ++i) {
    const ConvShape s = shapes.next(kMaxTerms);
    for (const PublicPass& p : kPublicPasses) {
      const char* name = p.algorithmName(s);
      const ConvAlgorithm* reported = findAlgorithm(name);
      const ConvAlgorithm* expected = firstAccepting(p.pass, s, level);
      ASSERT_NE(reported, nullptr) << passName(p.pass) << " reports \"" << name
                                   << "\", not a registry entry, for " << describe(s);
      EXPECT_EQ(reported->pass, p.pass) << name;
      EXPECT_LE(reported->minimumIsa, level)
          << name << " reported under " << isaName(level) << " for " << describe(s);
      EXPECT_EQ(reported, expected)
          << "under " << isaName(level) << " for " << describe(s) << ": reports " << name
          << ", first accepting is " << (expected ? expected->name : "none");
      ++ran[name];
      const PassOperands op = makeOperands(p.pass, s, shapes.rng());
      const std::string label = std::string("public ") + passName(p.pass) + " (" + name +
                                ", forced " + isaName(level) + ") on " + describe(s);
      if (!checkRuns(
              label, p.pass, s, [&] { return p.scratchBytes(s); }, op, threads, 2,
              [&](const float* a, const float* b, float* out, void* scratch) {
                p.run(s, a, b, out, scratch);
              }))
        ++failures;
    }
  }
  std::printf("[ isa %-11s ]", isaName(level));
  for (const auto& entry : ran) std::printf(" %s:%d", entry.first.c_str(), entry.second);
  std::printf("\n");
}

std::string isaParamName(const ::testing::TestParamInfo<Isa>& info) { return isaName(info.param); }

INSTANTIATE_TEST_SUITE_P(Levels, ConvPassesUnderIsa, ::testing::ValuesIn(kAllIsas), isaParamName);

// The blocked direct convolution's plan claims these geometries; on a CPU
// with AVX-512 the registry must give them to an AVX-512 entry (the generic
// entries would be correct but slow, so the claims are checked here).
ConvShape claimShape(int64_t cin, int64_t cout, int64_t groups, int dims, int64_t size,
                     int64_t kernel, int64_t stride, int64_t pad, int64_t dilation = 1) {
  ConvShape s;
  s.batch = 2;
  s.inChannels = cin;
  s.outChannels = cout;
  s.groups = groups;
  for (int d = 3 - dims; d < 3; ++d) {
    s.in[d] = size;
    s.kernel[d] = kernel;
    s.stride[d] = stride;
    s.dilation[d] = dilation;
    s.padBefore[d] = pad;
    s.out[d] = (size + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
  }
  return s;
}

TEST(ConvRegistry, BlockedClaimsGoToAvx512Entries) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  Restore restore;
  ASSERT_TRUE(forceIsaForTesting(Isa::Avx512));
  struct Claim {
    const char* what;
    ConvShape shape;
    bool forward, backwardData, backwardWeight;
  };
  const Claim claims[] = {
      {"dense 64ch 3x3", claimShape(64, 64, 1, 2, 14, 3, 1, 1), true, true, true},
      {"dense 60->62ch (padded to 64)", claimShape(60, 62, 1, 2, 9, 3, 1, 1), true, true, true},
      {"dense 3x3 stride 2", claimShape(32, 32, 1, 2, 15, 3, 2, 1), true, true, true},
      // The data gradient of a strided pointwise layer is col2im's, and so is the
      // forward of one with fewer than 256 output positions (measured faster).
      {"dense 1x1 stride 2 (subsampled)", claimShape(32, 64, 1, 2, 14, 1, 2, 0), false, false,
       true},
      {"dense 1x1 stride 2, 16x16 outputs", claimShape(32, 64, 1, 2, 32, 1, 2, 0), true, false,
       true},
      {"dense 1D k3 dilation 2", claimShape(32, 32, 1, 1, 50, 3, 1, 2, 2), true, true, true},
      {"dense 3D 3x3x3", claimShape(16, 16, 1, 3, 6, 3, 1, 1), true, true, true},
      {"dense 4x4 stride 4 (data: 16 phases)", claimShape(16, 32, 1, 2, 16, 4, 4, 0), false, true,
       true},
      {"grouped 2 x 32ch", claimShape(64, 64, 2, 2, 10, 3, 1, 1), true, true, true},
      {"block-diagonal 8 per group", claimShape(64, 64, 8, 2, 10, 3, 1, 1), true, true, true},
      {"block-diagonal 4 per group", claimShape(32, 32, 8, 2, 10, 3, 1, 1), true, true, true},
      {"depthwise 3x3", claimShape(48, 48, 48, 2, 12, 3, 1, 1), true, true, true},
      {"depthwise 3x3 stride 2", claimShape(40, 40, 40, 2, 12, 3, 2, 1), true, true, true},
      {"depthwise 5x5 dilation 2", claimShape(32, 32, 32, 2, 13, 5, 1, 4, 2), true, true, true},
  };
  for (const Claim& c : claims) {
    const bool expect[3] = {c.forward, c.backwardData, c.backwardWeight};
    for (const PublicPass& p : kPublicPasses) {
      if (!expect[static_cast<int>(p.pass)]) continue;
      const ConvAlgorithm* a = findAlgorithm(p.algorithmName(c.shape));
      ASSERT_NE(a, nullptr);
      EXPECT_EQ(a->minimumIsa, Isa::Avx512) << c.what << " (" << describe(c.shape)
                                            << "): " << passName(p.pass) << " runs " << a->name;
    }
  }
}

// The blocked fp32 row passes run a row's taps in L1-sized slices across its
// tiles or every tap of a tile at once (rowTapSlices: by CPU vendor): both
// schedules must give the float64 reference's values and the same bits, at
// each fp32 blocked level the CPU has. Rows of several tiles with more taps
// than one slice: 64 channels 3x3 (36 taps of four blocks), a 1D k5 layer
// of 3 output blocks (rows of 301), a strided one and a dilated one.
TEST(ConvRegistry, BlockedRowSchedulesGiveTheSameBits) {
  if (detectedIsa() < Isa::Avx2) GTEST_SKIP() << "no AVX2 on this CPU: no blocked fp32 entry runs";
  const ConvShape shapes[] = {
      claimShape(64, 64, 1, 2, 30, 3, 1, 1), claimShape(40, 48, 1, 1, 301, 5, 1, 2),
      claimShape(32, 64, 1, 2, 37, 3, 2, 1), claimShape(48, 32, 1, 2, 29, 3, 1, 2, 2)};
  std::mt19937 rng(0x511ce5);
  int ran = 0;
  for (Isa isa : {Isa::Avx2, Isa::Avx512}) {
    if (detectedIsa() < isa) {
      std::printf("[ skipped  ] row schedules at %s: this CPU has %s\n", isaName(isa),
                  isaName(detectedIsa()));
      continue;
    }
    for (const ConvShape& s : shapes) {
      for (ConvPass pass : {ConvPass::Forward, ConvPass::BackwardData}) {
        const std::string name = std::string("f32_conv_") +
                                 (pass == ConvPass::Forward ? "fwd" : "bwdd") + "_direct_nc16_" +
                                 isaName(isa);
        const ConvAlgorithm* a = findAlgorithm(name.c_str());
        ASSERT_NE(a, nullptr) << name;
        if (!a->accepts(s)) continue;
        Restore restore;
        setComputeThreadCount(2);
        const PassOperands op = makeOperands(pass, s, rng);
        std::vector<float> out[2];
        for (int slices = 0; slices < 2; ++slices) {
          forceRowTapSlicesForTesting(slices == 1);
          Scratch scratch(a->scratchBytes(s));
          out[slices] = poisoned(op.outputCount);
          a->run(s, op.a.data(), op.b.data(), out[slices].data(), scratch.get());
          ASSERT_TRUE(scratch.guardsIntact()) << name;
          EXPECT_TRUE(checkOutput(entryLabel(a->name, s), pass, s, op, out[slices]))
              << (slices ? "in slices" : "whole tiles");
        }
        EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * sizeof(float)), 0)
            << entryLabel(a->name, s) << ": slices and whole tiles differ";
        ++ran;
      }
    }
  }
  EXPECT_GE(ran, 8);
}

// The dense NCHW plane entries run where they pay (AMD), the blocked direct
// entries elsewhere; forced, the plane entries take the layer on any
// AVX-512 CPU (how the registry tests reach them). Some weight gradients:
// blocked or stride phases where zmm FMAs are split in halves, else GEMM
// (or, for few input channels, the few-channel kernel).
TEST(ConvRegistry, DensePlaneEntriesRunOnlyWherePreferred) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  const bool planes = densePlanesPreferred();  // nothing forced yet
  const bool halves = zmmFmaInHalves();
  std::printf("[ dispatch ] dense plane kernels preferred: %s; zmm FMAs in two halves: %s\n",
              planes ? "yes" : "no", halves ? "yes" : "no");
  EXPECT_TRUE(planes || !halves);
  const ConvShape s = claimShape(64, 64, 1, 2, 56, 3, 1, 1);
  const struct {
    ConvPass pass;
    const char* plane;
    const char* blocked;
  } passes[] = {
      {ConvPass::Forward, "f32_conv_fwd_plane_w16_avx512", "f32_conv_fwd_direct_nc16_avx512"},
      {ConvPass::BackwardData, "f32_conv_bwdd_plane_w16_avx512",
       "f32_conv_bwdd_direct_nc16_avx512"}};
  for (const auto& p : passes)
    EXPECT_STREQ(selectConvAlgorithm(p.pass, s, Isa::Avx512).name, planes ? p.plane : p.blocked);
  // The weight gradient of a strided pointwise layer: the GEMM where zmm
  // FMAs run at full width.
  const ConvShape pointwise = claimShape(32, 64, 1, 2, 14, 1, 2, 0);
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, pointwise, Isa::Avx512).name,
               halves ? "f32_conv_bwdw_direct_nc16_avx512" : "f32_conv_bwdw_im2col_gemm");
  // Likewise an ungrouped 1D layer with 128 channels or more; the stride
  // phases' weight gradient only with halved FMAs.
  ConvShape wide = claimShape(128, 160, 1, 1, 300, 3, 1, 1);
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, wide, Isa::Avx512).name,
               halves ? "f32_conv_bwdw_direct_nc16_avx512" : "f32_conv_bwdw_im2col_gemm");
  // Elsewhere the stems' weight gradients, image or one-channel 1D, run the
  // few-channel kernel.
  const ConvShape stem = claimShape(3, 16, 1, 2, 40, 7, 2, 3);
  const ConvShape wav = claimShape(1, 32, 1, 1, 400, 10, 5, 0);
  for (const ConvShape& st : {stem, wav})
    EXPECT_STREQ(
        selectConvAlgorithm(ConvPass::BackwardWeight, st, Isa::Avx512).name,
        halves ? "f32_conv_bwdw_phase_plane_w16_avx512" : "f32_conv_bwdw_few_channels_o4t6_avx512");
  Restore restore;  // forces the AMD choices
  for (const auto& p : passes)
    EXPECT_STREQ(selectConvAlgorithm(p.pass, s, Isa::Avx512).name, p.plane);
  // Not 3D layers, whose forward and data gradient run the blocked
  // kernels, with any operands.
  ConvShape volume = claimShape(32, 32, 1, 3, 12, 3, 1, 1);
  for (const auto& p : passes)
    EXPECT_STREQ(selectConvAlgorithm(p.pass, volume, Isa::Avx512).name, p.blocked);
  volume.operands = OperandValues::HF32;
  for (const auto& p : passes)
    EXPECT_STREQ(selectConvAlgorithm(p.pass, volume, Isa::Avx512).name, p.blocked);
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, pointwise, Isa::Avx512).name,
               "f32_conv_bwdw_direct_nc16_avx512");
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, wide, Isa::Avx512).name,
               "f32_conv_bwdw_direct_nc16_avx512");
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, stem, Isa::Avx512).name,
               "f32_conv_bwdw_phase_plane_w16_avx512");
}

// Grouped weight gradients: the blocked pass from 8 channels per group on
// each side, the grouped plane entry below that.
TEST(ConvRegistry, GroupedWeightGradientsGoByChannelsPerGroup) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  const ConvShape wide = claimShape(256, 256, 32, 2, 28, 3, 1, 1);
  const ConvShape narrow = claimShape(128, 128, 32, 2, 28, 3, 1, 1);
  const ConvShape mixed = claimShape(128, 256, 32, 2, 28, 3, 1, 1);
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, wide, Isa::Avx512).name,
               "f32_conv_bwdw_direct_nc16_avx512");
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, narrow, Isa::Avx512).name,
               "f32_gconv_bwdw_plane_w16_avx512");
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, mixed, Isa::Avx512).name,
               "f32_gconv_bwdw_plane_w16_avx512");
}

// bf16 operands: a strided pointwise weight gradient leaves VDPBF16PS for
// the fp32 GEMM where zmm FMAs run at full width; an unstrided one keeps it.
TEST(ConvRegistry, Bf16StridedPointwiseWeightsGoToTheGemm) {
  if (detectedIsa() < Isa::Avx512Bf16) GTEST_SKIP() << "no AVX512-BF16 on this CPU";
  Restore restore;  // VDPBF16PS counted fast, zmm FMAs in halves
  ConvShape strided = claimShape(64, 128, 1, 2, 14, 1, 2, 0);
  strided.operands = OperandValues::BF16;
  ConvShape unit = claimShape(64, 128, 1, 2, 14, 1, 1, 0);
  unit.operands = OperandValues::BF16;
  const char* bf16 = "bf16_conv_bwdw_direct_nw16_avx512bf16";
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, strided, Isa::Avx512Bf16).name, bf16);
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, unit, Isa::Avx512Bf16).name, bf16);
  clearIsaForTesting();  // zmm FMAs as this CPU runs them
  forceBf16DotForTesting();
  if (zmmFmaInHalves()) GTEST_SKIP() << "this CPU runs zmm FMAs in two halves";
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, strided, Isa::Avx512Bf16).name,
               "f32_conv_bwdw_im2col_gemm");
  EXPECT_STREQ(selectConvAlgorithm(ConvPass::BackwardWeight, unit, Isa::Avx512Bf16).name, bf16);
}

// On AMX the hi/lo entries (fp16, HF32 operands) leave the weight gradient
// of strided pointwise layers to the GEMM where zmm FMAs run at full width;
// bf16 pairs keep it.
TEST(ConvRegistry, HiLoStridedPointwiseWeightsGoToTheGemmOnAmx) {
  if (detectedIsa() < Isa::Amx) GTEST_SKIP() << "no AMX on this CPU";
  if (zmmFmaInHalves()) GTEST_SKIP() << "this CPU runs zmm FMAs in two halves";
  for (OperandValues v : {OperandValues::F16, OperandValues::HF32, OperandValues::BF16}) {
    ConvShape strided = claimShape(64, 128, 1, 2, 14, 1, 2, 0);
    strided.operands = v;
    EXPECT_STREQ(
        selectConvAlgorithm(ConvPass::BackwardWeight, strided, Isa::Amx).name,
        v == OperandValues::BF16 ? "bf16_conv_bwdw_direct_nw16_amx" : "f32_conv_bwdw_im2col_gemm");
  }
}

// ---------------------------------------------------------------------------
// The ISA names and the override.

TEST(CpuIsa, NamesRoundTripAndJunkIsRejected) {
  for (Isa isa : kAllIsas) {
    Isa parsed = isa == Isa::Scalar ? Isa::Amx : Isa::Scalar;
    ASSERT_TRUE(parseIsa(isaName(isa), &parsed)) << isaName(isa);
    EXPECT_EQ(parsed, isa) << isaName(isa);
  }
  EXPECT_STREQ(isaName(Isa::Scalar), "scalar");
  EXPECT_STREQ(isaName(Isa::Avx2), "avx2");
  EXPECT_STREQ(isaName(Isa::Avx512), "avx512");
  EXPECT_STREQ(isaName(Isa::Avx512Bf16), "avx512_bf16");
  EXPECT_STREQ(isaName(Isa::Amx), "amx");
  const char* junk[] = {"",     "avx",     "avx5",     "avx512f", "avx512bf16", "avx2 ", " avx2",
                        "sse4", "scalar2", "amx_bf16", "avx512_", "none",       "-1",    "2"};
  for (const char* j : junk) {
    Isa parsed = Isa::Avx2;
    EXPECT_FALSE(parseIsa(j, &parsed)) << "\"" << j << "\"";
  }
  Isa parsed = Isa::Avx2;
  EXPECT_FALSE(parseIsa(nullptr, &parsed));
}

TEST(CpuIsa, ForcingOnlyLowersAndClearRestores) {
  Restore restore;
  const Isa before = activeIsa();
  EXPECT_LE(before, detectedIsa());
  for (Isa isa : kAllIsas) {
    if (isa > detectedIsa()) {
      EXPECT_FALSE(forceIsaForTesting(isa)) << isaName(isa);
      EXPECT_EQ(activeIsa(), before) << "a refused force changed the active ISA";
    } else {
      EXPECT_TRUE(forceIsaForTesting(isa)) << isaName(isa);
      EXPECT_EQ(activeIsa(), isa);
      clearIsaForTesting();
      EXPECT_EQ(activeIsa(), before);
    }
  }
}

// Prints once which ISA levels the tests above run and which they skip.
class IsaSummary : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string tested, skipped;
    for (Isa isa : kAllIsas) {
      std::string& list = isa <= detectedIsa() ? tested : skipped;
      list += list.empty() ? "" : " ";
      list += isaName(isa);
    }
    int runnable = 0;
    std::string skippedEntries;
    for (int i = 0; i < convAlgorithmCount(); ++i) {
      if (convAlgorithmAt(i).minimumIsa <= detectedIsa()) {
        ++runnable;
      } else {
        skippedEntries += std::string(" ") + convAlgorithmAt(i).name;
      }
    }
    std::printf(
        "[ isa ] detected %s, active %s; levels tested: %s; skipped: %s\n"
        "[ isa ] registry entries runnable here: %d of %d; skipped:%s\n",
        isaName(detectedIsa()), isaName(activeIsa()), tested.c_str(),
        skipped.empty() ? "none" : skipped.c_str(), runnable, convAlgorithmCount(),
        skippedEntries.empty() ? " none" : skippedEntries.c_str());
  }
};

[[maybe_unused]] const ::testing::Environment* const kIsaSummary =
    ::testing::AddGlobalTestEnvironment(new IsaSummary);

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
