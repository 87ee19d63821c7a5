# sparkscope_sanitize(target): adds the sanitizers chosen by SPARKSCOPE_SANITIZE to a target.
#   address -> ASan + UBSan (no recovery, so any report fails the test)
#   thread  -> TSan
function(sparkscope_sanitize target)
  if(SPARKSCOPE_SANITIZE STREQUAL "address")
    set(flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  elseif(SPARKSCOPE_SANITIZE STREQUAL "thread")
    set(flags -fsanitize=thread -fno-omit-frame-pointer)
  else()
    return()
  endif()
  target_compile_options(${target} PRIVATE ${flags})
  # PUBLIC: a static library built with a sanitizer needs its runtime in every executable that
  # links it (benchmarks and tools included), whether or not that executable asked for it.
  target_link_options(${target} PUBLIC ${flags})
endfunction()
