# find_package(clsort) for an installed clsort.h (make install or
# cmake --install): the INTERFACE target clsort::clsort adds the include
# directory and links OpenCL; clsort::clsort_dynamic defines
# CLSORT_DYNAMIC_OPENCL and links no OpenCL (the header opens it at run time).
# Define CLSORT_IMPLEMENTATION in one file.
# This file lies in <prefix>/lib/cmake/clsort, so the prefix is three levels up
# (the installed tree may be moved).
include(CMakeFindDependencyMacro)
find_dependency(OpenCL)
if(NOT TARGET clsort::clsort)
  get_filename_component(_clsort_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
  add_library(clsort::clsort INTERFACE IMPORTED)
  # dlopen (libcuda for NVIDIA's program cache entries): libdl before glibc 2.34
  set(_clsort_libs OpenCL::OpenCL ${CMAKE_DL_LIBS})
  if(NOT WIN32)
    list(APPEND _clsort_libs m)
  endif()
  set_target_properties(clsort::clsort PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_clsort_prefix}/include"
    INTERFACE_LINK_LIBRARIES "${_clsort_libs}")
  add_library(clsort::clsort_dynamic INTERFACE IMPORTED)
  set(_clsort_libs ${CMAKE_DL_LIBS})
  if(NOT WIN32)
    list(APPEND _clsort_libs m)
  endif()
  set(_clsort_includes "${_clsort_prefix}/include")
  if(OpenCL_INCLUDE_DIRS)
    list(APPEND _clsort_includes ${OpenCL_INCLUDE_DIRS})
  endif()
  set_target_properties(clsort::clsort_dynamic PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_clsort_includes}"
    INTERFACE_COMPILE_DEFINITIONS CLSORT_DYNAMIC_OPENCL
    INTERFACE_LINK_LIBRARIES "${_clsort_libs}")
  unset(_clsort_includes)
  unset(_clsort_libs)
  unset(_clsort_prefix)
endif()
