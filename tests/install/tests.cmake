# Install and package tests (labels "install" and "package"; in scripts/test's release run, not the
# sanitizer runs): they need the whole build tree built, as `cmake --install` and cpack do.
#  - a staged install (cmake --install with DESTDIR) is the fixture of the example tests, which build
#    examples/primes against it with find_package and with pkg-config, run it, and read its trace
#    with the installed sparkscope-cli;
#  - the man pages are compared with the programs' --help;
#  - the Debian packages are made with cpack in this build tree (no second build), unpacked with
#    dpkg-deb into a scratch root, and their programs, man pages, desktop file and MIME type used.
# A tool a test needs that is missing makes it SKIPPED (exit 77) with a message saying which.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: the install and package tests are not registered")
  return()
endif()

set(_install_scratch ${PROJECT_BINARY_DIR}/test-scratch/install)
set(_install_args --build ${PROJECT_BINARY_DIR} --source ${PROJECT_SOURCE_DIR} --cmake ${CMAKE_COMMAND}
  --cxx ${CMAKE_CXX_COMPILER})

add_test(NAME "install: cmake --install stages headers, libraries, CMake and pkg-config files"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/install_test.py --case stage ${_install_args}
    --scratch ${_install_scratch})
set_tests_properties("install: cmake --install stages headers, libraries, CMake and pkg-config files" PROPERTIES
  FIXTURES_SETUP sparkscope_staged_install LABELS install TIMEOUT 300)

foreach(_case cmake pkgconfig)
  set(_name "install: the example built with ${_case} against the staged install runs and its trace reads back")
  add_test(NAME "${_name}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/install_test.py --case example-${_case} ${_install_args}
      --scratch ${_install_scratch})
  set_tests_properties("${_name}" PROPERTIES
    FIXTURES_REQUIRED sparkscope_staged_install LABELS install TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()

# The man pages against the programs' --help: a command, option or workload they do not name fails.
set(_man_args --man ${PROJECT_SOURCE_DIR}/docs/man --cli $<TARGET_FILE:sparkscope-cli> --demo $<TARGET_FILE:sparkscope-demo>)
if(TARGET sparkscope)
  list(APPEND _man_args --app $<TARGET_FILE:sparkscope>)
endif()
add_test(NAME "install: the man pages name every command, option and workload the programs' --help lists"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/man_pages_test.py ${_man_args})
set_tests_properties("install: the man pages name every command, option and workload the programs' --help lists"
  PROPERTIES LABELS install TIMEOUT 120)

add_test(NAME "package: the Debian packages unpack and their programs, man pages and desktop files work"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/deb_test.py ${_install_args}
    --cpack ${CMAKE_CPACK_COMMAND} --scratch ${PROJECT_BINARY_DIR}/test-scratch/package)
set_tests_properties("package: the Debian packages unpack and their programs, man pages and desktop files work"
  PROPERTIES LABELS package TIMEOUT 900 SKIP_RETURN_CODE 77)
