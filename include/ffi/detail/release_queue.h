/*
 * ffi/detail/release_queue.h - how the last strong release of an object destroys it (internal to
 * object.h): the strong and weak counts in the header's combined count, and the per-thread queue
 * that keeps the destruction of deeply nested objects (an Array holding an Array holding ...)
 * within bounded stack.
 */
#ifndef FFI_DETAIL_RELEASE_QUEUE_H_
#define FFI_DETAIL_RELEASE_QUEUE_H_

#include <cstdint>
#include <cstdlib>

#include "../base.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief One strong reference in TVMFFIObject::combined_ref_count (low 32 bits). */
constexpr uint64_t kStrongOne = 1;
/*! \brief One weak reference in TVMFFIObject::combined_ref_count (high 32 bits). */
constexpr uint64_t kWeakOne = uint64_t{1} << 32;
/*! \brief Mask of the strong count. */
constexpr uint64_t kStrongMask = kWeakOne - 1;
/*!
 * \brief combined_ref_count of an object held by one strong reference and no weak pointer (the
 * weak count includes one for the strong references together): a new object's count.
 */
constexpr uint64_t kSoleReference = kStrongOne | kWeakOne;
/*! \brief Whether the caller's reference to `h` is its only one, strong or weak. */
inline bool HasSoleReference(const TVMFFIObject* h) {
  return __atomic_load_n(&h->combined_ref_count, __ATOMIC_ACQUIRE) == kSoleReference;
}
/*!
 * \brief Objects of this thread whose last strong reference went while kMaxReleaseDepth
 * releases were already running; the outermost release destroys them. Destroying a long chain
 * (an Array holding an Array holding ...) thus takes bounded stack, as CPython's "trashcan" does
 * for nested lists. Plain data, so that no constructor or destructor runs per thread.
 */
struct ReleaseQueue {
  TVMFFIObject** items;  ///< deferred objects (malloc'd, freed when the queue drains)
  uint32_t size;         ///< number of deferred objects
  uint32_t capacity;     ///< slots allocated in `items`
  uint32_t depth;        ///< releases running on this thread
};
/*! \brief Nested releases one thread runs before it defers further objects. */
constexpr uint32_t kMaxReleaseDepth = 32;
/*! \brief This thread's release queue. */
inline ReleaseQueue& ThreadReleaseQueue() {
  static thread_local ReleaseQueue queue;
  return queue;
}
/*!
 * \brief Runs the deleter of an object without strong references: destroys it, and frees it
 * unless weak references remain (the last of those frees it).
 */
inline void DestroyObject(TVMFFIObject* h) {
  if (__atomic_load_n(&h->combined_ref_count, __ATOMIC_ACQUIRE) == kWeakOne) {
    h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskBoth);
    return;
  }
  h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskStrong);
  if (__atomic_fetch_sub(&h->combined_ref_count, kWeakOne, __ATOMIC_ACQ_REL) == kWeakOne) {
    h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}
/*! \brief Appends `h` to the queue; false when it cannot grow (then the caller recurses). */
inline bool DeferRelease(ReleaseQueue& q, TVMFFIObject* h) {
  if (q.size == q.capacity) {
    if (q.capacity > UINT32_MAX / 2) return false;
    uint32_t capacity = q.capacity == 0 ? 64 : q.capacity * 2;
    void* grown = std::realloc(q.items, capacity * sizeof(TVMFFIObject*));
    if (grown == nullptr) return false;
    q.items = static_cast<TVMFFIObject**>(grown);
    q.capacity = capacity;
  }
  q.items[q.size++] = h;
  return true;
}
/*! \brief Destroys the deferred objects, at the end of the outermost release. */
[[gnu::noinline]] inline void DrainReleaseQueue(ReleaseQueue& q) {
  q.depth = 1;  // what they release in turn is nested in this release
  while (q.size != 0) DestroyObject(q.items[--q.size]);
  std::free(q.items);
  q.items = nullptr;
  q.capacity = 0;
  q.depth = 0;
}
/*! \brief Defers `h` (too deep to destroy now), or destroys it when the queue cannot grow. */
[[gnu::noinline]] inline void DeferOrDestroy(ReleaseQueue& q, TVMFFIObject* h) {
  if (DeferRelease(q, h)) return;
  ++q.depth;
  DestroyObject(h);
  --q.depth;
}
/*!
 * \brief Destroys an object whose last strong reference just went (`before`: the count the
 * release found), or defers it (ReleaseQueue). Out of line: every release site shares it.
 */
[[gnu::noinline]] inline void ReleaseDeadObject(TVMFFIObject* h, uint64_t before) {
  ReleaseQueue* queue = &ThreadReleaseQueue();
  // Keeps the address in a register: compilers otherwise look the thread-local up again after
  // the deleter call, and in a dlopen-ed library each lookup is a call.
  __asm__("" : "+r"(queue));
  ReleaseQueue& q = *queue;
  if (FFI_UNLIKELY(q.depth >= kMaxReleaseDepth)) return DeferOrDestroy(q, h);
  ++q.depth;
  if (before == kSoleReference) {  // no weak pointer: destroy and free in one step
    h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskBoth);
  } else {
    h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskStrong);
    if (__atomic_fetch_sub(&h->combined_ref_count, kWeakOne, __ATOMIC_ACQ_REL) == kWeakOne) {
      h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskWeak);
    }
  }
  if (--q.depth == 0 && FFI_UNLIKELY(q.items != nullptr)) DrainReleaseQueue(q);
}
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_RELEASE_QUEUE_H_
