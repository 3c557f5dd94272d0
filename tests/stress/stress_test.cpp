// Stress: host threads submit small verified problems to shared, private
// and default streams, destroy their private stream with work still queued,
// and run init/finalize cycles with work pending. Every submission must give
// exactly the reference result once: gradInput is written over gradOutput's
// memory, so a lost run leaves the sentinel, a corrupted one wrong bits, and
// a duplicated one (which would read the overwritten gradOutput) different
// bits too. Bounded in time by STRESS_SECONDS (default 3 per test).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "reference/reference_conv.h"

namespace {

using Clock = std::chrono::steady_clock;

double stressSeconds() {
  const char* env = std::getenv("STRESS_SECONDS");
  const double value = env ? std::atof(env) : 0.0;
  return value > 0 ? value : 3.0;
}

// A 3x3, pad-1 2D convolution with as many input as output channels, so
// that gradInput has gradOutput's shape and can overwrite it.
struct Problem {
  std::vector<int64_t> act, weight, bias;
  std::vector<float> gradOutput, input, weightValues;
  std::vector<float> gradInput, gradWeight, gradBias;  // expected (exact in fp32)
};

std::vector<float> randomQuarters(std::mt19937& rng, int64_t count) {
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 9) - 4) / 4;
  return v;
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

std::vector<Problem> makeProblems() {
  std::mt19937 rng(7);
  std::vector<Problem> problems;
  for (int k = 0; k < 6; ++k) {
    Problem p;
    const int64_t n = 1 + k % 2, c = 2 + k % 3, h = 4 + k % 4, w = 5 + k % 3;
    p.act = {n, c, h, w};
    p.weight = {c, c, 3, 3};
    p.bias = {c};
    p.gradOutput = randomQuarters(rng, product(p.act));
    p.input = randomQuarters(rng, product(p.act));
    p.weightValues = randomQuarters(rng, product(p.weight));
    aclcpu::reference::ConvParams params;
    params.spatialDims = 2;
    params.inputShape = p.act;
    params.weightShape = p.weight;
    params.gradOutputShape = p.act;
    params.stride = params.dilation = params.padBefore = params.padAfter = {1, 1};
    const auto toDouble = [](const std::vector<float>& v) {
      return std::vector<double>(v.begin(), v.end());
    };
    const auto g = aclcpu::reference::convolutionBackward(
        params, toDouble(p.gradOutput), toDouble(p.input), toDouble(p.weightValues));
    p.gradInput.assign(g.gradInput.begin(), g.gradInput.end());
    p.gradWeight.assign(g.gradWeight.begin(), g.gradWeight.end());
    p.gradBias.assign(g.gradBias.begin(), g.gradBias.end());
    problems.push_back(std::move(p));
  }
  return problems;
}

const std::vector<Problem>& problems() {
  static const std::vector<Problem> all = makeProblems();
  return all;
}

void* deviceCopy(const std::vector<float>& values) {
  void* block = nullptr;
  if (aclrtMalloc(&block, values.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    return nullptr;
  std::memcpy(block, values.data(), values.size() * 4);
  return block;
}

void* sentinelBlock(size_t count) {
  void* block = nullptr;
  if (aclrtMalloc(&block, count * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return nullptr;
  std::memset(block, 0xA5, count * 4);
  return block;
}

// One submitted problem: its buffers live until verify().
class Submission {
 public:
  explicit Submission(const Problem& p) : p_(p) {
    act_ = deviceCopy(p.gradOutput);  // gradOutput, then gradInput over it
    input_ = deviceCopy(p.input);
    weight_ = deviceCopy(p.weightValues);
    gradWeight_ = sentinelBlock(p.gradWeight.size());
    gradBias_ = sentinelBlock(p.gradBias.size());
  }
  ~Submission() {
    for (void* b : {act_, input_, weight_, gradWeight_, gradBias_})
      if (b) aclrtFree(b);
  }
  Submission(const Submission&) = delete;
  Submission& operator=(const Submission&) = delete;

  // Phase 1 and 2 on `stream`; false (with the reason) if either failed.
  bool submit(aclrtStream stream, std::string* why) {
    auto make = [](const std::vector<int64_t>& shape, void* data, aclFormat format) {
      return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, format,
                             shape.data(), shape.size(), data);
    };
    aclTensor* gradOutput = make(p_.act, act_, ACL_FORMAT_NCHW);
    aclTensor* input = make(p_.act, input_, ACL_FORMAT_NCHW);
    aclTensor* weight = make(p_.weight, weight_, ACL_FORMAT_NCHW);
    aclTensor* gradInput = make(p_.act, act_, ACL_FORMAT_NCHW);
    aclTensor* gradWeight = make(p_.weight, gradWeight_, ACL_FORMAT_NCHW);
    aclTensor* gradBias = make(p_.bias, gradBias_, ACL_FORMAT_ND);
    const int64_t ones[] = {1, 1}, zeros[] = {0, 0};
    aclIntArray* unit = aclCreateIntArray(ones, 2);
    aclIntArray* none = aclCreateIntArray(zeros, 2);
    aclIntArray* biasSizes = aclCreateIntArray(p_.bias.data(), 1);
    const bool maskValues[] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(maskValues, 3);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
        gradOutput, input, weight, biasSizes, unit, unit, unit, false, none, 1, mask, 0, gradInput,
        gradWeight, gradBias, &workspaceSize, &executor);
    if (status == 0 && workspaceSize != 0 &&
        aclrtMalloc(&workspace_, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
      status = -1;
    if (status == 0) status = aclnnConvolutionBackward(workspace_, workspaceSize, executor, stream);
    if (status != 0) {
      const char* message = aclGetRecentErrMsg();
      *why = "status " + std::to_string(status) + ": " + (message ? message : "");
      if (executor) aclDestroyAclOpExecutor(executor);
    }
    for (aclTensor* t : {gradOutput, input, weight, gradInput, gradWeight, gradBias})
      aclDestroyTensor(t);
    for (aclIntArray* a : {unit, none, biasSizes}) aclDestroyIntArray(a);
    aclDestroyBoolArray(mask);
    return status == 0;
  }

  // After the run finished: every output bit-identical to the reference.
  bool verify(std::string* why) const {
    const struct {
      const void* data;
      const std::vector<float>* expected;
      const char* name;
    } outputs[] = {{act_, &p_.gradInput, "gradInput"},
                   {gradWeight_, &p_.gradWeight, "gradWeight"},
                   {gradBias_, &p_.gradBias, "gradBias"}};
    for (const auto& o : outputs) {
      if (std::memcmp(o.data, o.expected->data(), o.expected->size() * 4) != 0) {
        *why = std::string(o.name) + " differs from the reference (lost, duplicated or corrupted)";
        return false;
      }
    }
    return true;
  }
  void releaseWorkspace() {
    if (workspace_) aclrtFree(workspace_);
    workspace_ = nullptr;
  }

 private:
  const Problem& p_;
  void* act_ = nullptr;
  void* input_ = nullptr;
  void* weight_ = nullptr;
  void* gradWeight_ = nullptr;
  void* gradBias_ = nullptr;
  void* workspace_ = nullptr;
};

struct Tally {
  std::atomic<int64_t> submitted{0}, verified{0};
  std::mutex mutex;
  std::vector<std::string> failures;
  void fail(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failures.size() < 10) failures.push_back(why);
  }
};

// One host thread: batches to random streams, then sync (or destroy its
// private stream with the batch still queued) and verify.
void hostThread(int id, const std::vector<aclrtStream>& shared, Clock::time_point deadline,
                Tally* tally) {
  aclrtSetDevice(0);
  std::mt19937 rng(1000 + id);
  aclrtStream own = nullptr;
  if (aclrtCreateStream(&own) != ACL_SUCCESS) return tally->fail("create stream");
  while (Clock::now() < deadline) {
    std::vector<std::unique_ptr<Submission>> batch;
    for (int k = 0; k < 8; ++k) {
      const Problem& p = problems()[rng() % problems().size()];
      const int which = static_cast<int>(rng() % (shared.size() + 2));
      aclrtStream stream = which < static_cast<int>(shared.size())    ? shared[which]
                           : which == static_cast<int>(shared.size()) ? own
                                                                      : nullptr;
      auto s = std::make_unique<Submission>(p);
      std::string why;
      if (!s->submit(stream, &why)) {
        tally->fail("submit: " + why);
        continue;
      }
      ++tally->submitted;
      batch.push_back(std::move(s));
    }
    if (rng() % 3 == 0) {  // destroy the private stream with its work queued
      if (aclrtDestroyStream(own) != ACL_SUCCESS) tally->fail("destroy stream");
      if (aclrtCreateStream(&own) != ACL_SUCCESS) return tally->fail("create stream");
    } else if (aclrtSynchronizeStream(own) != ACL_SUCCESS) {
      tally->fail("synchronize own stream");
    }
    for (aclrtStream s : shared)
      if (aclrtSynchronizeStream(s) != ACL_SUCCESS) tally->fail("synchronize shared stream");
    if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) tally->fail("synchronize default stream");
    for (auto& s : batch) {
      std::string why;
      if (s->verify(&why))
        ++tally->verified;
      else
        tally->fail(why);
      s->releaseWorkspace();
    }
  }
  aclrtDestroyStream(own);
  aclrtResetDevice(0);
}

void expectClean(const Tally& tally) {
  for (const std::string& f : tally.failures) ADD_FAILURE() << f;
  EXPECT_GT(tally.submitted.load(), 0);
  EXPECT_EQ(tally.verified.load(), tally.submitted.load()) << "lost or corrupted results";
}

TEST(Stress, HostThreadsTimesStreamsGiveEveryResultExactlyOnce) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  std::vector<aclrtStream> shared(3);
  for (aclrtStream& s : shared) ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  Tally tally;
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(stressSeconds() * 1000));
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; ++id)
    threads.emplace_back(hostThread, id, std::cref(shared), deadline, &tally);
  for (std::thread& t : threads) t.join();
  for (aclrtStream s : shared) EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  expectClean(tally);
  std::printf("stress: %lld problems verified\n", static_cast<long long>(tally.verified.load()));
}

TEST(Stress, InitFinalizeCyclesWithWorkQueued) {
  Tally tally;
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(stressSeconds() * 1000));
  int cycles = 0;
  while (cycles < 3 || (Clock::now() < deadline && cycles < 200)) {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    std::vector<std::unique_ptr<Submission>> batch;
    std::mutex batchMutex;
    std::vector<std::thread> threads;
    for (int id = 0; id < 2; ++id) {
      threads.emplace_back([&, id] {
        aclrtSetDevice(0);
        aclrtStream stream = nullptr;
        if (aclrtCreateStream(&stream) != ACL_SUCCESS) return tally.fail("create stream");
        for (int k = 0; k < 4; ++k) {
          auto s = std::make_unique<Submission>(problems()[(cycles + id + k) % problems().size()]);
          std::string why;
          if (!s->submit(k % 2 ? stream : nullptr, &why)) {
            tally.fail("submit: " + why);
            continue;
          }
          ++tally.submitted;
          std::lock_guard<std::mutex> lock(batchMutex);
          batch.push_back(std::move(s));
        }
        // The stream is left to aclFinalize, with its work queued.
      });
    }
    for (std::thread& t : threads) t.join();
    if (cycles % 2 == 0) {
      EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    }
    // aclFinalize runs whatever is still queued before it stops the streams.
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    for (auto& s : batch) {
      std::string why;
      if (s->verify(&why))
        ++tally.verified;
      else
        tally.fail(why);
      s->releaseWorkspace();
    }
    ++cycles;
  }
  expectClean(tally);
  std::printf("stress: %d init/finalize cycles, %lld problems verified\n", cycles,
              static_cast<long long>(tally.verified.load()));
}

}  // namespace
