# What `cmake --install` puts in place, in two components (the Debian package's two packages):
#   Runtime      the executables, the shared libraries, the desktop file, icon, MIME type, man pages
#   Development  the public headers, the CMake package (SparkScope::runtime, SparkScope::core),
#                the pkg-config files and the libraries' unversioned .so links
#
# Why the installed libraries are shared while the project's own programs link static ones:
# the libraries use Boost.Context, Boost.Iostreams, TBB and zstd inside. A static
# libsparkscope-runtime.a would hand all of those to every program that links it, so a user would
# need libboost-context-dev, libboost-iostreams-dev and libtbb-dev installed (and the package config
# would have to find them) just to link a program that includes none of their headers. A shared
# library carries those dependencies itself, as plain run-time libraries the Debian package pulls in
# (dpkg-shlibdeps): a user's program links libsparkscope-runtime and needs nothing else. The tests,
# benchmarks and executables keep linking the static libraries, built and measured as before.
#
# The libraries' SONAME is major.minor: there is no stable ABI before 1.0, so every 0.x release is
# a new SONAME.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SPARKSCOPE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/SparkScope)

# sparkscope_installed_library(target name): installs a shared library as libsparkscope-<name>,
# exported as SparkScope::<name>.
function(sparkscope_installed_library target name)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME sparkscope-${name}
    EXPORT_NAME ${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  install(TARGETS ${target} EXPORT SparkScopeTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime NAMELINK_COMPONENT Development)
endfunction()

# sparkscope_install_package(): the CMake package, the pkg-config files, the desktop integration and
# the man pages. Called once every installed target exists.
function(sparkscope_install_package)
  install(EXPORT SparkScopeTargets NAMESPACE SparkScope:: DESTINATION ${SPARKSCOPE_INSTALL_CMAKEDIR}
    COMPONENT Development)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/SparkScopeConfig.cmake.in
    ${PROJECT_BINARY_DIR}/package/SparkScopeConfig.cmake INSTALL_DESTINATION ${SPARKSCOPE_INSTALL_CMAKEDIR})
  # 0.x: a consumer asking for 0.1 must get 0.1.y, not 0.2 (the ABI changes with the minor version).
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/SparkScopeConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/package/SparkScopeConfig.cmake
    ${PROJECT_BINARY_DIR}/package/SparkScopeConfigVersion.cmake
    DESTINATION ${SPARKSCOPE_INSTALL_CMAKEDIR} COMPONENT Development)

  # pkg-config: paths relative to the .pc file (${pcfiledir}), so the same files serve any prefix,
  # a DESTDIR staging and the Debian package (whose prefix is /usr, not this build's).
  set(pkgconfigdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  string(REGEX REPLACE "[^/]+" ".." SPARKSCOPE_PC_TO_PREFIX ${pkgconfigdir}) # lib/pkgconfig -> ../..
  foreach(name core runtime)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/sparkscope-${name}.pc.in
      ${PROJECT_BINARY_DIR}/package/sparkscope-${name}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/package/sparkscope-${name}.pc DESTINATION ${pkgconfigdir}
      COMPONENT Development)
  endforeach()

  # Desktop integration (with the app): its entry, its icon, and the eventlog MIME type
  # (*.eventlog, or the "hdrb" magic) that lets a file manager open eventlogs with SparkScope.
  set(pages sparkscope-cli.1 sparkscope-demo.1)
  if(SPARKSCOPE_BUILD_UI)
    set(res ${PROJECT_SOURCE_DIR}/resources)
    install(FILES ${res}/sparkscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT Runtime)
    install(FILES ${res}/sparkscope.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
      COMPONENT Runtime)
    install(FILES ${res}/sparkscope-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
      RENAME sparkscope.xml COMPONENT Runtime)
    list(APPEND pages sparkscope.1)
  endif()

  # Man pages (docs/man/, troff written by hand; the version filled in), gzipped as Debian has them.
  find_program(SPARKSCOPE_GZIP gzip REQUIRED)
  set(gzipped)
  foreach(page ${pages})
    configure_file(${PROJECT_SOURCE_DIR}/docs/man/${page} ${PROJECT_BINARY_DIR}/man/${page} @ONLY)
    set(out ${PROJECT_BINARY_DIR}/man/${page}.gz)
    add_custom_command(OUTPUT ${out}
      COMMAND ${SPARKSCOPE_GZIP} -9 -n -f -k ${PROJECT_BINARY_DIR}/man/${page}
      DEPENDS ${PROJECT_BINARY_DIR}/man/${page} VERBATIM)
    list(APPEND gzipped ${out})
  endforeach()
  add_custom_target(sparkscope_man_pages ALL DEPENDS ${gzipped})
  install(FILES ${gzipped} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT Runtime)
endfunction()
