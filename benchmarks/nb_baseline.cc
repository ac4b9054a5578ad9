// The floor: plain nanobind functions doing the same (nothing) with the same arguments.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

namespace nb = nanobind;

namespace {
/*! \brief The object of the "field access" row: one int field. */
struct Point {
  int64_t x = 0;
};
}  // namespace

NB_MODULE(nb_baseline, m) {
  m.def("nop", []() {});
  m.def("add3", [](int64_t a, int64_t b, int64_t c) { return a + b + c; });
  m.def("tensors3", [](nb::ndarray<>, nb::ndarray<>, nb::ndarray<>) {});
  nb::class_<Point>(m, "Point").def_rw("x", &Point::x);
  m.def("make_point", [](int64_t x) { return Point{x}; });
}
