// A C++ host for add_one.cc: loads the library, makes two float32 tensors with
// Tensor::FromNDAlloc (a plain malloc/free allocator), calls add_one and prints the result, then
// shows a kernel error arriving as an ffi::Error. Usage: host <path to add_one.so>
#include <ffi/ffi.h>

#include <cstdlib>
#include <iostream>
#include <new>

namespace {

// An allocator for Tensor::FromNDAlloc: AllocData sets tensor->data, FreeData releases it when
// the last reference to the tensor goes away.
struct MallocAlloc {
  void AllocData(DLTensor* tensor) {
    tensor->data = std::malloc(ffi::GetDataSize(*tensor) + 1);  // +1: never malloc(0)
    if (tensor->data == nullptr) throw std::bad_alloc();
  }
  void FreeData(DLTensor* tensor) { std::free(tensor->data); }
};

constexpr DLDevice kCPU{kDLCPU, 0};

ffi::Tensor Empty(ffi::ShapeView shape, DLDataType dtype) {
  return ffi::Tensor::FromNDAlloc(MallocAlloc(), shape, dtype, kCPU);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <add_one library>\n";
    return 2;
  }
  try {
    ffi::Module mod = ffi::Module::LoadFromFile(argv[1]);
    ffi::Function add_one = mod->GetFunction("add_one").value();  // empty Optional if missing

    constexpr DLDataType kFloat32{kDLFloat, 32, 1};
    ffi::Tensor x = Empty({2, 3}, kFloat32);
    ffi::Tensor y = Empty({2, 3}, kFloat32);
    float* px = static_cast<float*>(x.data_ptr());
    float* py = static_cast<float*>(y.data_ptr());
    for (int64_t i = 0; i < x.numel(); ++i) px[i] = static_cast<float>(i);

    add_one(x, y);  // Tensor arguments reach the kernel as TensorView, no copies
    std::cout << "C++ host:";
    for (int64_t i = 0; i < y.numel(); ++i) std::cout << " " << py[i];
    std::cout << "\n";

    try {
      add_one(Empty({2, 3}, DLDataType{kDLFloat, 64, 1}), y);
    } catch (const ffi::Error& err) {
      std::cout << "C++ host error: " << err.kind() << ": " << err.message() << "\n";
    }
  } catch (const ffi::Error& err) {
    std::cerr << err.kind() << ": " << err.message() << "\n" << err.backtrace() << "\n";
    return 1;
  }
  return 0;
}
