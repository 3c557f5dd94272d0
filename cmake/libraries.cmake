# The CANN-named shared libraries.
#
# All of the implementation lives in libascendcl.so, which exports exactly the
# public API (acl*, Acl*, aclnn*) through a version script. libnnopbase,
# libopapi, libopapi_nn and libopapi_math exist so that both of CANN's link
# lines work unchanged; each depends on libascendcl (DT_NEEDED), which every
# CANN link line names anyway, so symbol resolution and dlopen()+dlsym() both
# find the API wherever a program looks for it.

add_library(ascendcl SHARED ${CMAKE_CURRENT_SOURCE_DIR}/cmake/empty_module.cpp)
set(ACLCPU_MODULES aclcpu_ops aclcpu_executor aclcpu_meta aclcpu_runtime aclcpu_kernels aclcpu_common)
# Whole archives by hand: CMake's WHOLE_ARCHIVE feature clashes with the
# modules' own transitive links.
set(whole_archive "-Wl,--whole-archive")
foreach(module IN LISTS ACLCPU_MODULES)
  list(APPEND whole_archive "$<TARGET_FILE:${module}>")
endforeach()
list(APPEND whole_archive "-Wl,--no-whole-archive")
add_dependencies(ascendcl ${ACLCPU_MODULES})
target_include_directories(ascendcl INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include/aclnn>)
target_link_libraries(ascendcl PRIVATE ${whole_archive} Threads::Threads)
target_link_options(ascendcl PRIVATE
  "-Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/cmake/exports.map")
# clang's sanitizer runtimes live in the executable (static), so a sanitized
# shared library leaves their symbols for the loader to resolve.
if(NOT (ACLNN_CPU_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang"))
  target_link_options(ascendcl PRIVATE "-Wl,--no-undefined")
endif()
set_target_properties(ascendcl PROPERTIES LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/exports.map)

foreach(lib nnopbase opapi opapi_nn opapi_math)
  add_library(${lib} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/cmake/companion_library.cpp)
  target_link_libraries(${lib} PUBLIC ascendcl)
  target_link_options(${lib} PRIVATE "-Wl,--no-as-needed")
endforeach()

if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/install.cmake)
  include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/install.cmake)
endif()
