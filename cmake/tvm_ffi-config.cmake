# The reference's CMake package, `tvm_ffi`, on top of this project's: CMake code written for the
# reference builds unchanged with
#   find_package(tvm_ffi CONFIG REQUIRED)   # -Dtvm_ffi_DIR=$(python -m ffi.config --cmakedir)
# Targets:
#   tvm_ffi::header  = ffi::headers (include directories, C++17)
#   tvm_ffi::shared  = ffi::runtime (the runtime library, which carries the SONAME libtvm_ffi.so)
# Functions, with the reference's arguments:
#   tvm_ffi_configure_target(<target> [LINK_SHARED ON|OFF] [LINK_HEADER ON|OFF]
#                            [DEBUG_SYMBOL ..] [MSVC_FLAGS ..] [STUB_* ..])
#       = ffi_configure_target(<target> LINK_HEADERS <LINK_HEADER> LINK_RUNTIME <LINK_SHARED>);
#       both default ON. DEBUG_SYMBOL and MSVC_FLAGS are accepted (nothing to do off Apple and
#       MSVC); stubs are written by `python -m ffi.stubgen`, so STUB_DIR only reports that.
#   tvm_ffi_install(<target> [DESTINATION <dir>])   nothing to install beside the target here.
#   add_tvm_ffi_cubin(<target> CUDA <file>) / add_tvm_ffi_fatbin(<target> CUDA <file>)
#       an object library compiling <file> to a cubin / fatbin ($<TARGET_OBJECTS:<target>>).
#   tvm_ffi_embed_bin_into(<target> SYMBOL <name> BIN <file>)
#       = ffi_embed_cubin(<target> NAME <name> CUBIN <file>), for TVM_FFI_EMBED_CUBIN(<name>).
include("${CMAKE_CURRENT_LIST_DIR}/ffiConfig.cmake")

if(NOT TARGET tvm_ffi::header)
  add_library(tvm_ffi::header INTERFACE IMPORTED)
  target_link_libraries(tvm_ffi::header INTERFACE ffi::headers)
  add_library(tvm_ffi::shared INTERFACE IMPORTED)
  target_link_libraries(tvm_ffi::shared INTERFACE ffi::runtime)
endif()

function(tvm_ffi_configure_target target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "tvm_ffi_configure_target: `${target}` is not a target")
  endif()
  cmake_parse_arguments(ARG ""
    "LINK_SHARED;LINK_HEADER;DEBUG_SYMBOL;MSVC_FLAGS;STUB_INIT;STUB_DIR;STUB_PKG;STUB_PREFIX;STUB_TARGET"
    "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "tvm_ffi_configure_target(${target}): unknown arguments `${ARG_UNPARSED_ARGUMENTS}`")
  endif()
  foreach(opt LINK_SHARED LINK_HEADER)
    if(NOT DEFINED ARG_${opt})
      set(ARG_${opt} ON)
    endif()
  endforeach()
  ffi_configure_target("${target}" LINK_HEADERS "${ARG_LINK_HEADER}"
                       LINK_RUNTIME "${ARG_LINK_SHARED}")
  if(ARG_STUB_DIR)
    message(STATUS "tvm_ffi_configure_target(${target}): STUB_DIR is not used here; write stubs "
                   "with `python -m ffi.stubgen` (see docs/stubgen.md)")
  endif()
endfunction()

function(tvm_ffi_install target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "tvm_ffi_install: `${target}` is not a target")
  endif()
endfunction()

# <target>: an object library whose one object is <file> compiled with nvcc's `--<kind>`.
function(_tvm_ffi_add_cuda_image target kind)
  cmake_parse_arguments(ARG "" "CUDA" "" ${ARGN})
  if(NOT ARG_CUDA)
    message(FATAL_ERROR "add_tvm_ffi_${kind}(${target}): CUDA <source file> is required")
  endif()
  add_library("${target}" OBJECT "${ARG_CUDA}")
  target_compile_options("${target}" PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--${kind}>")
endfunction()

function(add_tvm_ffi_cubin target)
  _tvm_ffi_add_cuda_image("${target}" cubin ${ARGN})
endfunction()

function(add_tvm_ffi_fatbin target)
  _tvm_ffi_add_cuda_image("${target}" fatbin ${ARGN})
endfunction()

function(tvm_ffi_embed_bin_into target)
  cmake_parse_arguments(ARG "" "SYMBOL;BIN" "" ${ARGN})
  if(NOT ARG_SYMBOL OR NOT ARG_BIN)
    message(FATAL_ERROR "tvm_ffi_embed_bin_into(${target}): SYMBOL <name> and BIN <file> are required")
  endif()
  ffi_embed_cubin("${target}" NAME "${ARG_SYMBOL}" CUBIN "${ARG_BIN}")
endfunction()
