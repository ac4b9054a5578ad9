// The floor: plain nanobind functions doing the same (nothing) with the same arguments.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
  // Containers through nanobind's STL casters, which copy into std::vector / std::map.
  m.def("sum_ints", [](const std::vector<int64_t>& v) {
    int64_t total = 0;
    for (int64_t x : v) total += x;
    return total;
  });
  m.def("map_len",
        [](const std::map<std::string, int64_t>& m) { return static_cast<int64_t>(m.size()); });
}
