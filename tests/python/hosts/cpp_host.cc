// A C++ host linked to the runtime: loads a kernel library and calls `<func>(a, b)` on two ints,
// printing the result, or the error's kind and message. Usage: cpp_host <library> <func> <a> <b>
#include <ffi/ffi.h>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: " << argv[0] << " <library> <func> <a> <b>\n";
    return 2;
  }
  try {
    ffi::Module mod = ffi::Module::LoadFromFile(argv[1]);
    ffi::Optional<ffi::Function> f = mod->GetFunction(argv[2]);
    if (!f.has_value()) {
      std::cerr << "no function " << argv[2] << "\n";
      return 1;
    }
    ffi::Any r = (*f)(std::atoll(argv[3]), std::atoll(argv[4]));
    std::cout << r.cast<int64_t>() << "\n";
  } catch (const ffi::Error& e) {
    std::cout << e.kind() << ": " << e.message() << "\n";
    return 3;
  }
  return 0;
}
