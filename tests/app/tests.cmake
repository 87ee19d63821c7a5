# Tests of how the executables start (app/huge_pages.h): huge_pages_test.cpp runs this probe, which
# starts itself again as sparkscope-cli does.
add_executable(sparkscope-huge-pages-probe ${CMAKE_CURRENT_LIST_DIR}/probe/huge_pages_probe.cpp)
target_link_libraries(sparkscope-huge-pages-probe PRIVATE sparkscope_startup)
sparkscope_warnings(sparkscope-huge-pages-probe)
sparkscope_sanitize(sparkscope-huge-pages-probe)
add_dependencies(sparkscope-app-tests sparkscope-huge-pages-probe)
target_compile_definitions(sparkscope-app-tests PRIVATE
  SPARKSCOPE_HUGE_PAGES_PROBE="$<TARGET_FILE:sparkscope-huge-pages-probe>")
