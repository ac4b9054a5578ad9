/*
 * src/runtime/extra/stack_guard.h - private to the runtime: how the functions that recurse through
 * a value (JSON parsing and writing, JSON graphs, deep copy, structural and recursive comparison
 * and hashing, repr, structural visits) refuse nesting deeper than the thread's stack can follow.
 *
 * Each level of nesting takes a few frames of a size that differs between builds (sanitizers make
 * them several times larger), so no fixed depth limit fits: the stack itself is the measure. A
 * walker calls CheckStackDepth once per level; past the floor it raises a RecursionError, which
 * unwinds through the walker's own frames and leaves every value intact.
 */
#ifndef FFI_SRC_RUNTIME_STACK_GUARD_H_
#define FFI_SRC_RUNTIME_STACK_GUARD_H_

#include <ffi/error.h>

#include <algorithm>
#include <cstdint>

#include "../platform/platform.h"

namespace tvm {
namespace ffi {
namespace runtime {

/*!
 * \brief The part of this thread's stack that walkers leave alone: from the stack's end up by a
 * reserve for raising the error (256 KiB, or half of a stack smaller than 512 KiB). Empty where
 * the stack's extent is unknown. Computed once per thread (the main thread's extent is slow to
 * read).
 */
struct StackReserve {
  uintptr_t end = 0;   ///< the stack's lowest address (it grows down towards it)
  uintptr_t size = 0;  ///< bytes above `end` kept free
};

/*! \brief This thread's StackReserve. */
inline const StackReserve& ThreadStackReserve() {
  static thread_local const StackReserve reserve = [] {
    StackReserve r;
    uintptr_t lowest = 0;
    size_t size = 0;
    if (platform::CurrentThreadStack(&lowest, &size)) {
      r.end = lowest;
      r.size = std::min<uintptr_t>(256 * 1024, size / 2);
    }
    return r;
  }();
  return reserve;
}

/*!
 * \brief CheckStackDepth for one walk on one thread: the thread's reserve is read once, when the
 * walk starts, so each check is a comparison (no thread-local lookup per level).
 */
class StackLimit {
 public:
  explicit StackLimit(const char* what) : what_(what) {
    const StackReserve& r = ThreadStackReserve();
    end_ = r.end;
    size_ = r.size;
  }
  /*! \brief Raises RecursionError when the caller's frame is within the reserve. */
  [[gnu::always_inline]] void Check() const {
    // Unsigned: a frame below `end` wraps around to a large offset and passes.
    if (FFI_UNLIKELY(reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) - end_ < size_)) {
      FFI_THROW(RecursionError) << what_ << ": the value nests deeper than the stack allows";
    }
  }

 private:
  const char* what_;
  uintptr_t end_;
  uintptr_t size_;
};

/*!
 * \brief Raises RecursionError ("<what>: the value nests deeper than the stack allows") when the
 * caller's frame is within this thread's StackReserve. A frame outside the thread's stack (a
 * coroutine's or fiber's own stack) is not judged. `what` names the operation, e.g.
 * "ffi.DeepCopy".
 */
[[gnu::always_inline]] inline void CheckStackDepth(const char* what) { StackLimit(what).Check(); }

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_STACK_GUARD_H_
