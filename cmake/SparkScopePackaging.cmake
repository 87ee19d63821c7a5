# The Debian packages, made by CPack from the install rules (scripts/package runs it in build/release):
#   sparkscope      the components "Runtime": sparkscope, sparkscope-cli, sparkscope-demo, the shared
#                   libraries, the desktop file, icon, MIME type and man pages
#   sparkscope-dev  the component "Development": headers, CMake package, pkg-config files; it
#                   depends on sparkscope of the same version and on libboost-dev (core's headers
#                   use Boost.Container; the runtime's use nothing)
# Dependencies on Debian's libraries (Qt, Boost, TBB, zstd, ...) come from dpkg-shlibdeps, so they
# name the versions this build linked against. Maintainer scripts: only the ldconfig call CPack
# writes itself for libraries in /usr/lib; the MIME database, the desktop database and the icon
# cache are updated by the triggers of shared-mime-info, desktop-file-utils and the icon theme.
set(CPACK_PACKAGE_NAME sparkscope)
set(CPACK_PACKAGE_VENDOR SparkScope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "profiler for parallel programs: traced runtime, eventlog viewer, metrics")
set(SPARKSCOPE_PACKAGE_MAINTAINER "SparkScope developers <sparkscope@example.org>" CACHE STRING
  "The Maintainer field of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${SPARKSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL Runtime Development)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps must find libsparkscope-core (which libsparkscope-runtime needs) in this build tree:
# it is in the package itself, not in an installed one.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/core ${PROJECT_BINARY_DIR}/runtime)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME sparkscope)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME sparkscope-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "libboost-dev (>= 1.74)")

include(CPack)
cpack_add_component(Runtime DISPLAY_NAME "SparkScope"
  DESCRIPTION "SparkScope shows and measures how a parallel program used its CPUs.\n\
It reads GHC-format eventlogs (GHC's and Mercury's runtimes, and SparkScope's own) and shows them\n\
as a timeline with the metrics that explain the run (sparkscope), computes the metrics and the\n\
scalability analysis on the command line (sparkscope-cli), and ships a traced work-stealing runtime\n\
for C++ with parallel conjunctions and futures (libsparkscope-runtime) and demo workloads\n\
(sparkscope-demo).")
cpack_add_component(Development DISPLAY_NAME "SparkScope development files" DEPENDS Runtime
  DESCRIPTION "Headers, CMake package (find_package(SparkScope): SparkScope::runtime,\n\
SparkScope::core) and pkg-config files (sparkscope-runtime, sparkscope-core) for building C++20\n\
programs with SparkScope's traced runtime, or tools that read eventlogs with its core library.")
