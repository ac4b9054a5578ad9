# ffi_configure_target(<target> [LINK_HEADERS ON|OFF] [LINK_RUNTIME ON|OFF] [PREFIX_MAP ON|OFF])
#
# Sets up an existing library or executable target for ffi in one call:
#   LINK_HEADERS (default ON)  links ffi::headers (include directory, C++17);
#   LINK_RUNTIME (default OFF; ON for libraries on Windows) links ffi::runtime. A kernel library
#                loaded by a host (Python, a C++ loader) needs no runtime link on ELF: the host has
#                loaded the runtime globally. A Windows DLL cannot leave symbols undefined, so it
#                links the runtime's import library. Executables and libraries used outside such
#                a host need it;
#   PREFIX_MAP   (default ON)  with GCC/Clang, -ffile-prefix-map=<current source dir>/= so that
#                C++ tracebacks and __FILE__ show paths relative to the source directory.
# Libraries also get position-independent code and hidden default visibility, so that only the
# functions exported with FFI_DLL_EXPORT_TYPED_FUNC (and TVM_FFI_DLL_EXPORT) are visible.
#
# ffi_add_kernel_library(<name> [SOURCES] <file>... [LINK_RUNTIME ON|OFF] [PREFIX_MAP ON|OFF]
#                        [OUTPUT_NAME <file name without extension>] [OUTPUT_DIRECTORY <dir>])
#
# Adds a shared library <name> built from the sources and configures it as above; load it with
# ffi.load_module(). OUTPUT_NAME replaces the file name's stem (default lib<name>), and
# OUTPUT_DIRECTORY (relative: to the current binary directory) where the file is written.
#
#   find_package(ffi CONFIG REQUIRED)     # -Dffi_DIR=$(python -m ffi.config --cmakedir)
#   ffi_add_kernel_library(my_kernels SOURCES kernels.cc)   # -> libmy_kernels.so (Windows: .dll)
function(ffi_configure_target target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "ffi_configure_target: `${target}` is not a target")
  endif()
  cmake_parse_arguments(ARG "" "LINK_HEADERS;LINK_RUNTIME;PREFIX_MAP" "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ffi_configure_target(${target}): unknown arguments `${ARG_UNPARSED_ARGUMENTS}`")
  endif()
  foreach(opt LINK_HEADERS PREFIX_MAP)
    if(NOT DEFINED ARG_${opt})
      set(ARG_${opt} ON)
    endif()
  endforeach()
  get_target_property(_type "${target}" TYPE)
  if(NOT DEFINED ARG_LINK_RUNTIME AND WIN32 AND _type MATCHES "SHARED_LIBRARY|MODULE_LIBRARY")
    set(ARG_LINK_RUNTIME ON)
  endif()
  if(ARG_LINK_HEADERS)
    target_link_libraries("${target}" PRIVATE ffi::headers)
  endif()
  if(ARG_LINK_RUNTIME)
    target_link_libraries("${target}" PRIVATE ffi::runtime)
  endif()
  if(ARG_PREFIX_MAP AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options("${target}" PRIVATE "-ffile-prefix-map=${CMAKE_CURRENT_SOURCE_DIR}/=")
  endif()
  if(_type MATCHES "SHARED_LIBRARY|MODULE_LIBRARY|STATIC_LIBRARY|OBJECT_LIBRARY")
    set_target_properties("${target}" PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      CXX_VISIBILITY_PRESET hidden
      CUDA_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
  endif()
endfunction()

function(ffi_add_kernel_library name)
  cmake_parse_arguments(ARG "" "LINK_RUNTIME;PREFIX_MAP;OUTPUT_NAME;OUTPUT_DIRECTORY" "SOURCES"
                        ${ARGN})
  # Sources may also come first without the SOURCES keyword.
  set(_sources ${ARG_UNPARSED_ARGUMENTS} ${ARG_SOURCES})
  if(NOT _sources)
    message(FATAL_ERROR "ffi_add_kernel_library(${name}): no SOURCES given")
  endif()
  add_library("${name}" SHARED ${_sources})
  set(_forward)
  foreach(opt LINK_RUNTIME PREFIX_MAP)
    if(DEFINED ARG_${opt})
      list(APPEND _forward ${opt} "${ARG_${opt}}")
    endif()
  endforeach()
  ffi_configure_target("${name}" ${_forward})
  if(ARG_OUTPUT_NAME)
    set_target_properties("${name}" PROPERTIES PREFIX "" OUTPUT_NAME "${ARG_OUTPUT_NAME}")
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    get_filename_component(_dir "${ARG_OUTPUT_DIRECTORY}" ABSOLUTE BASE_DIR
                           "${CMAKE_CURRENT_BINARY_DIR}")
    set_target_properties("${name}" PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${_dir}"
                                               RUNTIME_OUTPUT_DIRECTORY "${_dir}")
  endif()
endfunction()
