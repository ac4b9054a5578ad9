# Cross build for 64-bit Windows with MinGW-w64 (Debian: g++-mingw-w64-x86-64), the compilers of
# the POSIX thread model (std::thread, std::mutex on winpthreads). tests/windows_cross.sh uses it:
#   cmake -S . -B build-windows -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
# Programs built here run under wine (CMAKE_CROSSCOMPILING_EMULATOR, so ctest runs them there).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_ffi_mingw x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${_ffi_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_ffi_mingw}-g++-posix)
set(CMAKE_RC_COMPILER ${_ffi_mingw}-windres)

# Headers and libraries come from the MinGW sysroot only; programs (python, ninja) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${_ffi_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(FFI_WINE_PROGRAM NAMES wine64 wine)
  if(FFI_WINE_PROGRAM)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${FFI_WINE_PROGRAM}")
  endif()
endif()
