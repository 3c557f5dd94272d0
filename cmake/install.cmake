# Install layout (spec acl-api.md, project decision 1; docs/install.md):
#   <prefix>/include/{acl,aclnn,aclnnop}/...     CANN's header names and include chain
#   <prefix>/lib64/lib{ascendcl,nnopbase,opapi,opapi_nn,opapi_math}.so   (RUNPATH $ORIGIN)
#   <prefix>/bin/aclnn-conv, aclnn-conv-backward  the tool (ACLNN_CPU_TOOLS)
#   <prefix>/set_env.sh                           `source` it, as CANN's set_env.sh
#   <prefix>/share/cmake/aclnn-cpu/               find_package(aclnn-cpu CONFIG)
#   <prefix>/lib64/pkgconfig/aclnn-cpu.pc         pkg-config aclnn-cpu (set_env.sh adds it)
#   <prefix>/share/pkgconfig/aclnn-cpu.pc         the same file where Debian's pkg-config
#                                                 looks for /usr and /usr/local prefixes
#   <prefix>/lib/python3/dist-packages/aclnn_cpu/ the Python package (set_env.sh adds it)
# Everything is relocatable: `cmake --install <build> --prefix <anywhere>` works.

include(CMakePackageConfigHelpers)

set(ACLNN_CPU_INSTALL_INCLUDEDIR include)
set(ACLNN_CPU_INSTALL_LIBDIR lib64)
# Not lib64/cmake: find_package does not search lib64 on Debian-like systems
# (FIND_LIBRARY_USE_LIB64_PATHS is off there); share/cmake is searched everywhere.
set(ACLNN_CPU_INSTALL_CMAKEDIR share/cmake/aclnn-cpu)
set(ACLNN_CPU_INSTALL_BINDIR bin)
set(ACLNN_CPU_INSTALL_PKGCONFIGDIR ${ACLNN_CPU_INSTALL_LIBDIR}/pkgconfig)
# pkg-config on Debian searches <prefix>/lib/<triplet>/pkgconfig, lib/pkgconfig
# and share/pkgconfig for /usr/local and /usr, never lib64/pkgconfig.
set(ACLNN_CPU_INSTALL_PKGCONFIGDIR_SEARCHED share/pkgconfig)
set(ACLNN_CPU_SHARED_LIBRARIES ascendcl nnopbase opapi opapi_nn opapi_math)

# The companions carry DT_NEEDED libascendcl.so; RUNPATH $ORIGIN lets them
# find it next to themselves when a program is linked with only an rpath.
set_target_properties(${ACLNN_CPU_SHARED_LIBRARIES} PROPERTIES INSTALL_RPATH "\$ORIGIN")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
  DESTINATION ${ACLNN_CPU_INSTALL_INCLUDEDIR}
  COMPONENT aclnn-cpu
  FILES_MATCHING PATTERN "*.h")

install(TARGETS ${ACLNN_CPU_SHARED_LIBRARIES}
  EXPORT aclnn-cpu-targets
  LIBRARY DESTINATION ${ACLNN_CPU_INSTALL_LIBDIR} COMPONENT aclnn-cpu
  INCLUDES DESTINATION ${ACLNN_CPU_INSTALL_INCLUDEDIR} ${ACLNN_CPU_INSTALL_INCLUDEDIR}/aclnn)

install(EXPORT aclnn-cpu-targets
  NAMESPACE aclnn-cpu::
  DESTINATION ${ACLNN_CPU_INSTALL_CMAKEDIR}
  COMPONENT aclnn-cpu)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/aclnn-cpu-config.cmake.in
  ${PROJECT_BINARY_DIR}/aclnn-cpu-config.cmake
  INSTALL_DESTINATION ${ACLNN_CPU_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/aclnn-cpu-config-version.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
configure_file(${CMAKE_CURRENT_LIST_DIR}/aclnn-cpu.pc.in ${PROJECT_BINARY_DIR}/aclnn-cpu.pc @ONLY)

install(FILES
  ${PROJECT_BINARY_DIR}/aclnn-cpu-config.cmake
  ${PROJECT_BINARY_DIR}/aclnn-cpu-config-version.cmake
  DESTINATION ${ACLNN_CPU_INSTALL_CMAKEDIR}
  COMPONENT aclnn-cpu)
# The .pc file finds the prefix from its own place (${pcfiledir}/../..),
# which is the same for both directories.
foreach(pkgconfig_dir ${ACLNN_CPU_INSTALL_PKGCONFIGDIR} ${ACLNN_CPU_INSTALL_PKGCONFIGDIR_SEARCHED})
  install(FILES ${PROJECT_BINARY_DIR}/aclnn-cpu.pc
    DESTINATION ${pkgconfig_dir}
    COMPONENT aclnn-cpu)
endforeach()

# set_env.sh: the install paths now; at install time the prefix it was
# installed to, its fallback for shells that cannot say where it is. Each
# prefix gets its own generated copy in the build tree: with one shared
# file, two `cmake --install` runs into different prefixes at once (the
# install tests under ctest -j) could each ship the other's prefix.
set(ACLNN_CPU_PREFIX_AT_INSTALL "@CMAKE_INSTALL_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/set_env.sh.in ${PROJECT_BINARY_DIR}/set_env.sh.in @ONLY)
install(CODE "
  string(MD5 _aclnn_cpu_prefix_key \"\${CMAKE_INSTALL_PREFIX}\")
  set(_aclnn_cpu_env \"${PROJECT_BINARY_DIR}/set_env/\${_aclnn_cpu_prefix_key}/set_env.sh\")
  configure_file(\"${PROJECT_BINARY_DIR}/set_env.sh.in\" \"\${_aclnn_cpu_env}\" @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}\" TYPE FILE FILES \"\${_aclnn_cpu_env}\")
" COMPONENT aclnn-cpu)

# Python package aclnn_cpu (python/aclnn_cpu), in Debian's layout next to the
# libraries: <prefix>/lib/python3/dist-packages/aclnn_cpu finds <prefix>/lib64.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/aclnn_cpu
  DESTINATION lib/python3/dist-packages COMPONENT aclnn-cpu
  PATTERN "__pycache__" EXCLUDE)
