// A C++ host for kernels.cc: loads the library, makes tensors with Tensor::FromNDAlloc (a plain
// malloc/free allocator), calls the exported functions and prints the results.
// Usage: host <path to kernels.so>
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

constexpr DLDataType kFloat32{kDLFloat, 32, 1};
constexpr DLDevice kCPU{kDLCPU, 0};

ffi::Tensor Float32(ffi::ShapeView shape) {
  return ffi::Tensor::FromNDAlloc(MallocAlloc(), shape, kFloat32, kCPU);
}

float* Data(const ffi::Tensor& t) { return static_cast<float*>(t.data_ptr()); }

void Print(const char* label, const ffi::Tensor& t) {
  std::cout << label << ":";
  for (int64_t i = 0; i < t.numel(); ++i) std::cout << " " << Data(t)[i];
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <kernels library>\n";
    return 2;
  }
  try {
    ffi::Module mod = ffi::Module::LoadFromFile(argv[1]);
    ffi::Function scale_add = mod->GetFunction("scale_add").value();
    ffi::Function scale_add_alloc = mod->GetFunction("scale_add_alloc").value();

    ffi::Tensor x = Float32({2, 2});
    ffi::Tensor bias = Float32({2, 2});
    ffi::Tensor y = Float32({2, 2});
    ffi::Tensor workspace = Float32({4});
    for (int i = 0; i < 4; ++i) {
      Data(x)[i] = static_cast<float>(i + 1);
      Data(bias)[i] = 0.5f;
    }

    scale_add(x, nullptr, y, workspace);  // nullptr: an empty Optional<Tensor>
    Print("host scale_add", y);
    scale_add(x, bias, y, workspace);
    Print("host scale_add with bias", y);

    ffi::Tensor z = scale_add_alloc(x, bias).cast<ffi::Tensor>();
    std::cout << "host scale_add_alloc shape " << z.shape() << ",";
    Print(" values", z);

    try {
      scale_add(x, nullptr, Float32({3}), workspace);
    } catch (const ffi::Error& err) {
      std::cout << "host error: " << err.kind() << ": " << err.message() << "\n";
    }
  } catch (const ffi::Error& err) {
    std::cerr << err.kind() << ": " << err.message() << "\n" << err.backtrace() << "\n";
    return 1;
  }
  return 0;
}
