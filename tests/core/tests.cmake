# White-box tests of core's internal algorithms (core/src/*.h, e.g. the two descendant-pass variants).
target_include_directories(sparkscope-core-tests PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
