// Object types registered with reflection (ObjectDef), built with this project's headers, for
// tests/python/objects/test_objects.py: a Point with read-only and writable fields, methods, a
// static method and a constructor; a Point3 deriving from it; a Bag nobody binds in Python (arrives
// as a generated class); a Square deriving from a Shape, neither bound in Python (generated classes
// that nest); a NoInit type without constructor; a Plain type without reflection; and global
// functions under the prefix "objtest" for init_ffi_api.
#include <ffi/container/array.h>
#include <ffi/function.h>
#include <ffi/object.h>
#include <ffi/reflection/registry.h>
#include <ffi/string.h>

#include <cstdint>
#include <utility>

namespace {

/*! \brief A point: x read-only, y and label writable. */
class PointObj : public ffi::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  ffi::String label;
  static constexpr bool _type_mutable = true;
  static constexpr uint32_t _type_child_slots = 2;

  PointObj() = default;
  PointObj(int64_t x, double y) : x(x), y(y), label("p") {}
  double Norm2() const { return static_cast<double>(x * x) + y * y; }

  FFI_DECLARE_OBJECT_INFO("objtest.Point", PointObj, ffi::Object);
};

class Point : public ffi::ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(Point, ffi::ObjectRef, PointObj);
};

/*! \brief A point with a third coordinate. */
class Point3Obj : public PointObj {
 public:
  int64_t z = 0;
  Point3Obj(int64_t x, double y, int64_t z) : PointObj(x, y), z(z) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("objtest.Point3", Point3Obj, PointObj);
};

/*! \brief A bag of items nobody registers a Python class for. */
class BagObj : public ffi::Object {
 public:
  int64_t count = 0;
  ffi::Array<int64_t> items;
  FFI_DECLARE_OBJECT_INFO_FINAL("objtest.Bag", BagObj, ffi::Object);
};

/*! \brief A shape with an area, and a square deriving from it: neither bound in Python. */
class ShapeObj : public ffi::Object {
 public:
  double area = 0.0;
  static constexpr uint32_t _type_child_slots = 1;
  FFI_DECLARE_OBJECT_INFO("objtest.Shape", ShapeObj, ffi::Object);
};
class SquareObj : public ShapeObj {
 public:
  double side = 0.0;
  FFI_DECLARE_OBJECT_INFO_FINAL("objtest.Square", SquareObj, ShapeObj);
};

ffi::ObjectRef MakeSquare(double side) {
  auto sq = ffi::make_object<SquareObj>();
  sq->side = side;
  sq->area = side * side;
  return ffi::ObjectRef(std::move(sq));
}

/*! \brief Fields but no constructor. */
class NoInitObj : public ffi::Object {
 public:
  int64_t value = 7;
  FFI_DECLARE_OBJECT_INFO_FINAL("objtest.NoInit", NoInitObj, ffi::Object);
};

/*! \brief No reflection at all. */
class PlainObj : public ffi::Object {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("objtest.Plain", PlainObj, ffi::Object);
};

ffi::ObjectRef MakePoint3(int64_t x, double y, int64_t z) {
  return ffi::ObjectRef(ffi::make_object<Point3Obj>(x, y, z));
}

ffi::ObjectRef MakeBag(int64_t n) {
  auto bag = ffi::make_object<BagObj>();
  bag->count = n;
  for (int64_t i = 0; i < n; ++i) bag->items.push_back(i);
  return ffi::ObjectRef(std::move(bag));
}

}  // namespace

FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::ObjectDef<PointObj>("A point.")
      .def(refl::init<int64_t, double>(), "Makes a point.")
      .def_ro("x", &PointObj::x, "The x coordinate.")
      .def_rw("y", &PointObj::y, "The y coordinate.")
      .def_rw("label", &PointObj::label)
      .def("norm2", &PointObj::Norm2, "x*x + y*y.")
      .def("shifted",
           [](const PointObj* self, int64_t k) {
             return Point(ffi::make_object<PointObj>(self->x + k, self->y + k));
           })
      .def_static("origin", []() { return Point(ffi::make_object<PointObj>(0, 0.0)); });
  refl::ObjectDef<Point3Obj>().def_ro("z", &Point3Obj::z).def("sum", [](const Point3Obj* p) {
    return static_cast<double>(p->x + p->z) + p->y;
  });
  refl::ObjectDef<BagObj>()
      .def_ro("count", &BagObj::count)
      .def_ro("items", &BagObj::items)
      .def("first", [](const BagObj* b) { return b->items.empty() ? -1 : b->items[0]; });
  refl::ObjectDef<ShapeObj>().def_ro("area", &ShapeObj::area);
  refl::ObjectDef<SquareObj>().def_ro("side", &SquareObj::side);
  // init(false): no constructor generated from the fields either.
  refl::ObjectDef<NoInitObj>(refl::init(false)).def_ro("value", &NoInitObj::value);
  refl::GlobalDef()
      .def("objtest.make_point3", MakePoint3, "Makes a Point3.")
      .def("objtest.make_bag", MakeBag)
      .def("objtest.make_square", MakeSquare)
      .def("objtest.make_shape",
           [](double area) {
             auto shape = ffi::make_object<ShapeObj>();
             shape->area = area;
             return ffi::ObjectRef(std::move(shape));
           })
      .def("objtest.make_plain", []() { return ffi::ObjectRef(ffi::make_object<PlainObj>()); })
      .def("objtest.make_noinit", []() { return ffi::ObjectRef(ffi::make_object<NoInitObj>()); })
      .def("objtest.point_x", [](const PointObj* p) { return p->x; })
      .def(
          "objtest.add", [](int64_t a, int64_t b) { return a + b; }, "Adds.",
          refl::Metadata{{"pure", true}})
      .def("objtest.nested.skipped", []() { return 0; });
}
