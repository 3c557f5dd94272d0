#pragma once
// A test buffer whose last element ends exactly where an inaccessible page
// begins, so that a kernel reading even one byte past the end faults instead
// of passing unnoticed (ASan does not see vector gathers, and valgrind does
// not run AVX-512 code). Linux / POSIX only.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace test_support {

template <typename T>
class FaultAfterBuffer {
 public:
  explicit FaultAfterBuffer(const std::vector<T>& values) : count_(values.size()) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = count_ * sizeof(T);
    dataPages_ = (bytes + page - 1) / page * page;
    mapped_ = dataPages_ + page;
    void* base = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return;
    base_ = static_cast<char*>(base);
    if (mprotect(base_ + dataPages_, page, PROT_NONE) != 0) return;
    data_ = reinterpret_cast<T*>(base_ + dataPages_ - bytes);
    if (bytes > 0) std::memcpy(data_, values.data(), bytes);
  }
  ~FaultAfterBuffer() {
    if (base_) munmap(base_, mapped_);
  }
  FaultAfterBuffer(const FaultAfterBuffer&) = delete;
  FaultAfterBuffer& operator=(const FaultAfterBuffer&) = delete;

  bool ok() const { return data_ != nullptr; }  // false: the mapping failed
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  size_t size() const { return count_; }

 private:
  size_t count_ = 0, dataPages_ = 0, mapped_ = 0;
  char* base_ = nullptr;
  T* data_ = nullptr;
};

}  // namespace test_support
