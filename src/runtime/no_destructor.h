#pragma once
// Process-lifetime singletons that are never destroyed. The runtime's
// registries must stay usable from user static destructors that run after
// ours (a global std::unique_ptr<void, decltype(&aclrtFree)> is common), so
// their storage is never torn down; an empty registry owns no heap memory, so
// this leaks nothing.

#include <new>
#include <utility>

namespace aclcpu {

template <typename T>
class NoDestructor {
 public:
  template <typename... Args>
  explicit NoDestructor(Args&&... args) {
    new (storage_) T(std::forward<Args>(args)...);
  }
  NoDestructor(const NoDestructor&) = delete;
  NoDestructor& operator=(const NoDestructor&) = delete;

  T& get() { return *std::launder(reinterpret_cast<T*>(storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace aclcpu
