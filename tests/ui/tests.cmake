# Screenshot test: the real app under Xvfb on a shared GHC eventlog and a demo trace; checks the
# images are not blank. Images are left in <build>/screenshots for people to look at.
if(SPARKSCOPE_BUILD_UI)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_FOUND)
    add_test(NAME "ui: screenshots of the real window under Xvfb are not blank"
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/screenshot_test.py
        --app $<TARGET_FILE:sparkscope> --demo $<TARGET_FILE:sparkscope-demo>
        --out ${PROJECT_BINARY_DIR}/screenshots --shared ${SPARKSCOPE_SHARED_DIR})
    set_tests_properties("ui: screenshots of the real window under Xvfb are not blank" PROPERTIES LABELS ui TIMEOUT 600)
    # The metric panels driven with xdotool in the real app under Xvfb (hover, menu, curve, summary);
    # NOT RUN (passes) without xvfb-run, xdotool or xwd. Images in <build>/screenshots/panels.
    add_test(NAME "ui: the hover menu, conjunction list and summary in the real app under Xvfb"
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/panels_xvfb_shots.py
        --app $<TARGET_FILE:sparkscope> --demo $<TARGET_FILE:sparkscope-demo>
        --out ${PROJECT_BINARY_DIR}/screenshots/panels)
    set_tests_properties("ui: the hover menu, conjunction list and summary in the real app under Xvfb"
      PROPERTIES LABELS ui TIMEOUT 900)
    # The Why dock driven with xdotool in the real app under Xvfb: its figures against
    # `sparkscope-cli analyze`, a finding clicked, the critical path toggled. NOT RUN (passes) without
    # xvfb-run, xdotool or xwd. Images in <build>/screenshots/why.
    add_test(NAME "ui: the Why dock in the real app under Xvfb shows the CLI's analysis"
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/why_xvfb_shots.py
        --app $<TARGET_FILE:sparkscope> --cli $<TARGET_FILE:sparkscope-cli> --demo $<TARGET_FILE:sparkscope-demo>
        --out ${PROJECT_BINARY_DIR}/screenshots/why --shared ${SPARKSCOPE_SHARED_DIR})
    set_tests_properties("ui: the Why dock in the real app under Xvfb shows the CLI's analysis"
      PROPERTIES LABELS ui TIMEOUT 1200)
    # File > Compare With… driven with xdotool in the real app under Xvfb: two demo traces stacked on
    # one axis, zoom shared, the docks' A / B / B − A against `sparkscope-cli compare`, a B that does
    # not read, a B of another program (its site a row of the Conjunctions list). NOT RUN (passes)
    # without xvfb-run, xdotool or xwd. Images in <build>/screenshots/compare.
    add_test(NAME "ui: Compare With in the real app under Xvfb stacks B under A and shows the CLI's differences"
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/compare_xvfb_shots.py
        --app $<TARGET_FILE:sparkscope> --cli $<TARGET_FILE:sparkscope-cli> --demo $<TARGET_FILE:sparkscope-demo>
        --out ${PROJECT_BINARY_DIR}/screenshots/compare)
    set_tests_properties("ui: Compare With in the real app under Xvfb stacks B under A and shows the CLI's differences"
      PROPERTIES LABELS ui TIMEOUT 1800)
  endif()
endif()
