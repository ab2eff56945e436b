# cmake/capi.cmake (included from src/CMakeLists.txt): the C API's part of the build.
#
# - The shim's object library (snack_capi, from src/capi/*.cpp) compiles with SNACK_C_API, so that
#   <GraphBLAS.h> is snack's own header (in the source tree, code without it gets SuiteSparse's: see the
#   header's opening comment).
# - libsnack exports only the prefixed C symbols and the C++ snk:: API (cmake/snack.map).
# - snack_c_api: the target that C API programs in this build link (snack + SNACK_C_API).
# - Install rules: the library, GraphBLAS.h (a copy that always selects snack's API), the C++ headers,
#   a CMake package (find_package(snack) -> snack::snack) and a pkg-config file (snack.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(TARGET snack_capi)
  target_compile_definitions(snack_capi PRIVATE SNACK_C_API)
endif()

option(SNACK_EXPORT_MAP "Export only the snk_ C symbols and the snk:: C++ API from libsnack" ON)
if(SNACK_EXPORT_MAP AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  target_link_options(snack PRIVATE "LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/snack.map")
  set_property(TARGET snack APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/snack.map)
endif()

add_library(snack_c_api INTERFACE)
target_link_libraries(snack_c_api INTERFACE snack)
target_compile_definitions(snack_c_api INTERFACE SNACK_C_API)

# The installed GraphBLAS.h: the source header behind one line that selects snack's API unconditionally.
set(SNACK_GENERATED_INCLUDE ${PROJECT_BINARY_DIR}/generated/include)
file(READ ${PROJECT_SOURCE_DIR}/include/GraphBLAS.h SNACK_GRAPHBLAS_H_TEXT)
file(CONFIGURE OUTPUT ${SNACK_GENERATED_INCLUDE}/GraphBLAS.h
  CONTENT "/* Installed copy of snack's GraphBLAS.h: always snack's C API. */\n#ifndef SNACK_C_API_INSTALLED\n#define SNACK_C_API_INSTALLED 1\n#endif\n@SNACK_GRAPHBLAS_H_TEXT@" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/GraphBLAS.h)

install(TARGETS snack EXPORT snackTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${SNACK_GENERATED_INCLUDE}/GraphBLAS.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/snack DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT snackTargets NAMESPACE snack:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/snack)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/snackConfig.cmake.in
  ${PROJECT_BINARY_DIR}/generated/snackConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/snack)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/snackConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/generated/snackConfig.cmake
  ${PROJECT_BINARY_DIR}/generated/snackConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/snack)
configure_file(${PROJECT_SOURCE_DIR}/cmake/snack.pc.in ${PROJECT_BINARY_DIR}/generated/snack.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/snack.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
