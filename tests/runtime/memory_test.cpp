// aclrtMalloc / Free / MallocHost / FreeHost / Memcpy / Memset (+ Async).

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/memory_registry.h"
#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

using MemoryTest = RuntimeTest;

std::vector<uint8_t> pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed + i * 7);
  return bytes;
}

TEST_F(MemoryTest, MallocIs64ByteAlignedAndUsable) {
  const size_t live = aclcpu::AllocationRegistry::instance().liveCount();
  std::vector<void*> blocks;
  for (size_t size : {1, 31, 32, 33, 64, 1000, 4096, 1 << 20}) {
    void* block = nullptr;
    ASSERT_EQ(aclrtMalloc(&block, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << size;
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u) << size;
    std::memset(block, 0xA5, size);  // the whole range is writable
    blocks.push_back(block);
  }
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 100), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u);
  EXPECT_EQ(aclcpu::AllocationRegistry::instance().liveCount(), live + blocks.size() + 1);
  for (void* block : blocks) EXPECT_EQ(aclrtFree(block), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclcpu::AllocationRegistry::instance().liveCount(), live);
}

TEST_F(MemoryTest, EveryPolicyIsAccepted) {
  for (int policy : {0, 1, 2, 3, 6, 0x1000, 0x0100 | 2}) {
    void* block = nullptr;
    ASSERT_EQ(aclrtMalloc(&block, 8, static_cast<aclrtMemMallocPolicy>(policy)), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(block), ACL_SUCCESS);
  }
}

TEST_F(MemoryTest, BadMallocArguments) {
  void* block = reinterpret_cast<void*>(0x1234);
  EXPECT_EQ(aclrtMalloc(&block, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(block, reinterpret_cast<void*>(0x1234)) << "untouched on failure";
  EXPECT_NE(takeErrors().find("size is 0"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("devPtr"), std::string::npos);
  EXPECT_EQ(aclrtMallocHost(&block, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(nullptr, 16), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("hostPtr"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(&block, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(aclrtMalloc(&block, SIZE_MAX / 2, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(takeErrors().find("could not allocate"), std::string::npos);
}

TEST_F(MemoryTest, BadFreesAreReportedNotFatal) {
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
  takeErrors();

  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(static_cast<char*>(block) + 16), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("16 bytes into"), std::string::npos);
  EXPECT_EQ(aclrtFreeHost(block), ACL_ERROR_INVALID_PARAM) << "wrong family";
  EXPECT_NE(takeErrors().find("aclrtFree"), std::string::npos);
  ASSERT_EQ(aclrtFree(block), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(block), ACL_ERROR_INVALID_PARAM) << "double free";
  EXPECT_NE(takeErrors().find("not a live allocation"), std::string::npos);

  int onStack = 0;
  EXPECT_EQ(aclrtFree(&onStack), ACL_ERROR_INVALID_PARAM);
  std::vector<int> onHeap(10);
  EXPECT_EQ(aclrtFreeHost(onHeap.data()), ACL_ERROR_INVALID_PARAM);

  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 64), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("aclrtFreeHost"), std::string::npos);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyAcceptsEveryKind) {
  const std::vector<uint8_t> source = pattern(300, 3);
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, source.size(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  for (int kind = 0; kind <= 7; ++kind) {
    std::memset(device, 0, source.size());
    ASSERT_EQ(aclrtMemcpy(device, source.size(), source.data(), source.size(),
                          static_cast<aclrtMemcpyKind>(kind)),
              ACL_SUCCESS)
        << kind;
    EXPECT_EQ(std::memcmp(device, source.data(), source.size()), 0) << kind;
    std::vector<uint8_t> back(source.size(), 0);
    ASSERT_EQ(
        aclrtMemcpy(back.data(), back.size(), device, source.size(), ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_SUCCESS);
    EXPECT_EQ(back, source);
  }
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyCopiesExactlyCountBytes) {
  std::vector<uint8_t> destination(64, 0xEE);
  const std::vector<uint8_t> source = pattern(64, 9);
  ASSERT_EQ(aclrtMemcpy(destination.data(), 64, source.data(), 10, ACL_MEMCPY_HOST_TO_HOST),
            ACL_SUCCESS);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(destination[i], i < 10 ? source[i] : 0xEE) << i;
  EXPECT_EQ(aclrtMemcpy(destination.data(), 64, source.data(), 0, ACL_MEMCPY_HOST_TO_HOST),
            ACL_SUCCESS)
      << "zero bytes is a valid no-op";
}

TEST_F(MemoryTest, MemcpyOverlappingRangesBehaveLikeMemmove) {
  std::vector<uint8_t> bytes = pattern(32, 1);
  const std::vector<uint8_t> original = bytes;
  ASSERT_EQ(aclrtMemcpy(bytes.data() + 4, 28, bytes.data(), 20, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_SUCCESS);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(bytes[4 + i], original[i]) << i;
}

TEST_F(MemoryTest, BadMemcpyArgumentsWriteNothing) {
  std::vector<uint8_t> destination(16, 0xEE);
  const std::vector<uint8_t> source = pattern(64, 5);
  EXPECT_EQ(aclrtMemcpy(destination.data(), 16, source.data(), 17, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  std::string message = takeErrors();
  EXPECT_NE(message.find("count (17) exceeds destMax (16)"), std::string::npos) << message;
  EXPECT_EQ(aclrtMemcpy(nullptr, 16, source.data(), 4, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("dst is null"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(destination.data(), 16, nullptr, 4, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("src is null"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(destination.data(), 16, nullptr, 0, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  for (int kind : {8, -1, 100}) {
    EXPECT_EQ(
        aclrtMemcpy(destination.data(), 16, source.data(), 4, static_cast<aclrtMemcpyKind>(kind)),
        ACL_ERROR_INVALID_PARAM)
        << kind;
    EXPECT_NE(takeErrors().find("kind is " + std::to_string(kind)), std::string::npos);
  }
  for (uint8_t byte : destination) EXPECT_EQ(byte, 0xEE);
}

TEST_F(MemoryTest, CopiesMayNotRunPastAKnownAllocation) {
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 40, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::memset(block, 0x11, 40);
  const std::vector<uint8_t> source = pattern(100, 2);
  // destMax overstates the buffer: the registry knows better.
  EXPECT_EQ(aclrtMemcpy(block, 100, source.data(), 41, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  std::string message = takeErrors();
  EXPECT_NE(message.find("expected at most 40 bytes"), std::string::npos) << message;
  EXPECT_EQ(
      aclrtMemcpy(static_cast<char*>(block) + 8, 100, source.data(), 33, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("expected at most 32 bytes"), std::string::npos);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(static_cast<uint8_t*>(block)[i], 0x11) << i;

  std::vector<uint8_t> destination(100);
  EXPECT_EQ(aclrtMemcpy(destination.data(), 100, block, 41, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("argument src"), std::string::npos);
  EXPECT_EQ(aclrtMemset(block, 100, 0, 41), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(
      aclrtMemcpy(static_cast<char*>(block) + 8, 32, source.data(), 32, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_SUCCESS)
      << "exactly to the end is fine";
  EXPECT_EQ(aclrtFree(block), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemsetWritesTheLowByteOfValue) {
  std::vector<uint8_t> bytes(32, 0);
  ASSERT_EQ(aclrtMemset(bytes.data(), 32, 0x1AB, 20), ACL_SUCCESS);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(bytes[i], i < 20 ? 0xAB : 0) << i;
  EXPECT_EQ(aclrtMemset(bytes.data(), 8, 0, 9), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("count (9) exceeds maxCount (8)"), std::string::npos);
  EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("devPtr is null"), std::string::npos);
  EXPECT_EQ(bytes[20], 0);
}

TEST_F(MemoryTest, AsyncCopiesRunInStreamOrder) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const std::vector<uint8_t> source = pattern(256, 4);
  std::vector<uint8_t> result(256, 0);
  ASSERT_EQ(aclrtMemsetAsync(device, 256, 0x5A, 256, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(device, 256, source.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(static_cast<char*>(device) + 50, 206, 0x01, 10, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(result.data(), 256, device, 256, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  for (size_t i = 0; i < 256; ++i) {
    const uint8_t expected = (i >= 50 && i < 60) ? 0x01 : (i < 100 ? source[i] : 0x5A);
    EXPECT_EQ(result[i], expected) << i;
  }
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(MemoryTest, AsyncArgumentsAreCheckedAtOnce) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::vector<uint8_t> bytes(16, 0x77);
  EXPECT_EQ(aclrtMemcpyAsync(bytes.data(), 8, bytes.data() + 8, 9, ACL_MEMCPY_HOST_TO_HOST, stream),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("aclrtMemcpyAsync: argument count"), std::string::npos);
  EXPECT_EQ(aclrtMemcpyAsync(bytes.data(), 8, bytes.data() + 8, 4, static_cast<aclrtMemcpyKind>(9),
                             stream),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(bytes.data(), 4, 0, 5, stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(nullptr, 4, 0, 1, stream), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << "nothing was enqueued";
  for (uint8_t byte : bytes) EXPECT_EQ(byte, 0x77);

  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemsetAsync(bytes.data(), 4, 0, 4, stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_NE(takeErrors().find("aclrtMemsetAsync: argument stream"), std::string::npos);
  EXPECT_EQ(aclrtMemcpyAsync(bytes.data(), 8, bytes.data() + 8, 4, ACL_MEMCPY_HOST_TO_HOST, stream),
            ACL_ERROR_INVALID_RESOURCE_HANDLE);
  for (uint8_t byte : bytes) EXPECT_EQ(byte, 0x77);
}

TEST_F(MemoryTest, AsyncOnTheDefaultStream) {
  std::vector<uint8_t> bytes(64, 0);
  const std::vector<uint8_t> source = pattern(64, 8);
  ASSERT_EQ(aclrtMemcpyAsync(bytes.data(), 64, source.data(), 64, ACL_MEMCPY_HOST_TO_HOST, nullptr),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(bytes.data(), 64, 0xCD, 4, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(bytes[i], i < 4 ? 0xCD : source[i]) << i;
}

}  // namespace
}  // namespace aclcpu_test

namespace aclcpu_test {
namespace {

// Issue #7 finding 7: memset on a block just freed wrote freed memory.
TEST_F(MemoryTest, FreedBlocksAreRejectedByMemsetAndMemcpy) {
  void* block = nullptr;
  void* live = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&live, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(block), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(block, 256, 0, 256), ACL_ERROR_INVALID_PARAM);
  std::string message = takeErrors();
  EXPECT_NE(message.find("was freed"), std::string::npos) << message;
  EXPECT_EQ(aclrtMemset(static_cast<char*>(block) + 100, 16, 0, 16), ACL_ERROR_INVALID_PARAM)
      << "interior addresses too";
  EXPECT_EQ(aclrtMemcpy(live, 256, block, 256, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(block, 256, live, 256, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(block, 256, 0, 256, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(block), ACL_ERROR_INVALID_PARAM) << "double free";
  takeErrors();
  EXPECT_EQ(aclrtMemset(live, 256, 7, 256), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(live), ACL_SUCCESS);
}

TEST_F(MemoryTest, TheFreedBlockQuarantineIsBounded) {
  // The oldest of more blocks than the quarantine holds goes back to the
  // heap and is no longer recognised; the newest still are.
  std::vector<void*> blocks(aclcpu::AllocationRegistry::kQuarantineBlocks + 8);
  for (void*& b : blocks) ASSERT_EQ(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  for (void* b : blocks) ASSERT_EQ(aclrtFree(b), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(blocks.back(), 64, 0, 64), ACL_ERROR_INVALID_PARAM);
  takeErrors();
}

}  // namespace
}  // namespace aclcpu_test
