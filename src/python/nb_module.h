// nanobind::module_, declared for the headers whose Add*Bindings functions take one: its
// definition (nanobind/nanobind.h) is needed only where the bindings are defined.
#ifndef FFI_PYTHON_NB_MODULE_H_
#define FFI_PYTHON_NB_MODULE_H_

namespace nanobind {
class module_;
}  // namespace nanobind

#endif  // FFI_PYTHON_NB_MODULE_H_
