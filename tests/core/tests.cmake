# White-box tests of core's internal algorithms (core/src/*.h, e.g. the two descendant-pass variants).
target_include_directories(sparkscope-core-tests PRIVATE ${PROJECT_SOURCE_DIR}/core/src)

# huge_pages_test.cpp runs this probe: it starts itself again as sparkscope-cli does.
add_executable(sparkscope-huge-pages-probe ${CMAKE_CURRENT_LIST_DIR}/probe/huge_pages_probe.cpp)
target_link_libraries(sparkscope-huge-pages-probe PRIVATE sparkscope_core)
sparkscope_warnings(sparkscope-huge-pages-probe)
sparkscope_sanitize(sparkscope-huge-pages-probe)
add_dependencies(sparkscope-core-tests sparkscope-huge-pages-probe)
target_compile_definitions(sparkscope-core-tests PRIVATE
  SPARKSCOPE_HUGE_PAGES_PROBE="$<TARGET_FILE:sparkscope-huge-pages-probe>")
