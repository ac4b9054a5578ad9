// The standard global function ffi.ReprPrint: a value's text form, which the reference's Python
// package uses as `repr()` of its containers and objects.
//
// Forms: None/True/False, integers, floats as `%g` prints them (six significant digits, as the
// reference does: 0.0 -> "0", 100.0 -> "100", 1e10 -> "1e+10", 1234567.0 -> "1.23457e+06"), strings
// and bytes as Python literals (escaped, so that ast.literal_eval reads them back), arrays as
// tuples "(1, 2)" / "(1,)", lists as "[1, 2]", maps and dicts as "{k: v}", shapes as "Shape(5, 6)",
// tensors as "float32[3, 4]@cpu:0", devices as "cpu:0", data types by name, reflected objects as
// "type.key(field=value, ...)" (fields marked repr-off left out) or through their `__ffi_repr__`
// type attribute, enum singletons as "type.key.NAME"; an object met again inside itself prints
// as "...". With the environment variable TVM_FFI_REPR_WITH_ADDR set (and not "0"), objects show
// their address, as TVM-FFI's do: "type.key@0x...(fields)" ("type.key@0x..." without visible
// fields), "(1, 2)@0x...", "float32[3]@cpu:0@0x...", "...@0x..." for a cycle; a shared object
// prints in full each time.
#include <ffi/any.h>
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/device.h>
#include <ffi/dtype.h>
#include <ffi/enum.h>
#include <ffi/extra/dataclass.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>
#include <ffi/string.h>
#include <ffi/tensor.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_set>

#include "stack_guard.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief "type:id", the id always shown (also for the CPU). */
std::string FormatDevice(DLDevice d) {
  return DLDeviceTypeToString(d.device_type) + ":" + std::to_string(d.device_id);
}

/*! \brief `d` as `%g` prints it (six significant digits), as the reference's repr does. */
std::string FormatFloat(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", d);
  return buf;
}

/*! \brief `b"..."`: a Python bytes literal, printable bytes as themselves, others as \xNN. */
std::string BytesLiteral(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "b\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out + "\"";
}

/*! \brief Whether TVM_FFI_REPR_WITH_ADDR asks for addresses (read per call: tests set it). */
bool WithAddresses() {
  const char* flag = std::getenv("TVM_FFI_REPR_WITH_ADDR");
  return flag != nullptr && flag[0] != '\0' && std::string_view(flag) != "0";
}

class Printer {
 public:
  std::string Print(const AnyView& v) {
    CheckStackDepth("ffi.ReprPrint");
    switch (v.type_index()) {
      case kTVMFFINone:
        return "None";
      case kTVMFFIBool:
        return v.raw()->v_int64 ? "True" : "False";
      case kTVMFFIInt:
        return std::to_string(v.raw()->v_int64);
      case kTVMFFIBigInt:
        return v.cast<BigInt>().ToString();
      case kTVMFFIFloat:
        return FormatFloat(v.raw()->v_float64);
      case kTVMFFISmallStr:
      case kTVMFFIStr:
      case kTVMFFIRawStr:
        return std::string(EscapedStringPy(v.cast<String>()).view());
      case kTVMFFISmallBytes:
      case kTVMFFIBytes:
      case kTVMFFIByteArrayPtr:
        return BytesLiteral(v.cast<Bytes>().view());
      case kTVMFFIDataType:
        return DLDataTypeToString(v.raw()->v_dtype);
      case kTVMFFIDevice:
        return FormatDevice(v.raw()->v_device);
      case kTVMFFIOpaquePtr:
        return Address(v.raw()->v_ptr);
      default:
        break;
    }
    if (v.type_index() < kTVMFFIStaticObjectBegin) return "<" + TypeKey(v) + ">";
    const void* obj = v.raw()->v_obj;
    if (!open_.insert(obj).second) {  // met again inside itself
      return with_addresses_ ? "...@" + Address(obj) : "...";
    }
    std::string out = PrintObject(v);
    open_.erase(obj);
    return out;
  }

 private:
  static std::string TypeKey(const AnyView& v) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(v.type_index());
    return info ? std::string(detail::ByteView(info->type_key)) : std::string("?");
  }

  static std::string Address(const void* p) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%p", p);
    return buf;
  }

  template <typename Seq>
  std::string Items(const Seq& seq, const char* open, const char* close, bool tuple) {
    std::string out = open;
    size_t n = 0;
    for (const Any& item : seq) {
      if (n++) out += ", ";
      out += Print(item);
    }
    if (tuple && n == 1) out += ",";
    return out + close;
  }

  template <typename M>
  std::string Entries(const M& map) {
    std::string out = "{";
    size_t n = 0;
    for (const auto& kv : map) {
      if (n++) out += ", ";
      out += Print(kv.first) + ": " + Print(kv.second);
    }
    return out + "}";
  }

  /*! \brief A container's or tensor's form, with "@address" in address mode. */
  std::string PrintObject(const AnyView& v) {
    std::string out = PrintObjectBody(v);
    switch (v.type_index()) {
      case kTVMFFIArray:
      case kTVMFFIList:
      case kTVMFFIMap:
      case kTVMFFIDict:
      case kTVMFFIShape:
      case kTVMFFITensor:
        if (with_addresses_) out += "@" + Address(v.raw()->v_obj);
        break;
      default:  // reflected objects place their address after the type key
        break;
    }
    return out;
  }

  std::string PrintObjectBody(const AnyView& v) {
    switch (v.type_index()) {
      case kTVMFFIArray:
        return Items(v.cast<Array<Any>>(), "(", ")", true);
      case kTVMFFIList:
        return Items(v.cast<List<Any>>(), "[", "]", false);
      case kTVMFFIMap:
        return Entries(v.cast<Map<Any, Any>>());
      case kTVMFFIDict:
        return Entries(v.cast<Dict<Any, Any>>());
      case kTVMFFIShape: {
        std::string out = "Shape(";
        size_t n = 0;
        for (int64_t d : v.cast<Shape>()) out += (n++ ? ", " : "") + std::to_string(d);
        return out + ")";
      }
      case kTVMFFITensor: {
        TensorView t = v.cast<TensorView>();
        std::string out = DLDataTypeToString(t.dtype()) + "[";
        for (int32_t i = 0; i < t.ndim(); ++i) {
          out += (i ? ", " : "") + std::to_string(t.shape()[i]);
        }
        return out + "]@" + FormatDevice(t.device());
      }
      default:
        return PrintReflected(v);
    }
  }

  std::string PrintReflected(const AnyView& v) {
    int32_t type_index = v.type_index();
    AnyView hook = reflection::TypeAttrColumn(type_attr::kRepr)[type_index];
    if (hook != nullptr) {
      Function recurse = Function::FromTyped([this](AnyView x) { return String(Print(x)); });
      return std::string(hook.cast<Function>()(v, recurse).cast<String>().view());
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    const auto* obj = reinterpret_cast<const Object*>(v.raw()->v_obj);
    // An enum singleton is known by its name: "type.key.NAME".
    if (obj->IsInstance<EnumObj>()) {
      return TypeKey(v) + "." +
             std::string(static_cast<const EnumObj*>(obj)->_str_index.get().view());
    }
    std::string fields;
    bool any_field = false;
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskReprOff) return;
      if (any_field) fields += ", ";
      any_field = true;
      Any value = reflection::FieldGetter(field)(obj);
      fields += std::string(detail::ByteView(field->name)) + "=" + Print(value);
    });
    if (with_addresses_) {
      return TypeKey(v) + "@" + Address(obj) + (any_field ? "(" + fields + ")" : "");
    }
    if (!any_field && info->num_fields == 0 && info->type_depth <= 1) {
      return TypeKey(v) + "(" + Address(obj) + ")";  // opaque: its identity is all there is
    }
    return TypeKey(v) + "(" + fields + ")";
  }

  bool with_addresses_ = WithAddresses();
  std::unordered_set<const void*> open_;
};

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef().def(
      "ffi.ReprPrint", [](AnyView v) { return String(Printer().Print(v)); },
      "The value's text form: containers in Python's notation, objects as type(field=value).");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
