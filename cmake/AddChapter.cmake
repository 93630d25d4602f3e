# add_chapter(<dir> [ARGS <arg>...] [TEST_ARGS <arg>...] [DOC_ARGS <arg>...]) builds
# chapters/<dir>/main.cpp into build/bin/ch<dir>, e.g. add_chapter(03_positional_encoding) ->
# build/bin/ch03_positional_encoding. Every chapter links the one shared library and nothing else.
# ARGS are the arguments `./tutorial run` runs it with (listed in build/chapter_runs.txt).
# TEST_ARGS (optional) are the ones ctest runs it with, and DOC_ARGS (optional) the ones the book
# runs it with to print the output its page shows; both default to ARGS. A chapter that takes
# minutes at its tutorial settings (training) gives the tests a shorter run this way.
function(add_chapter dir)
  cmake_parse_arguments(CHAPTER "" "" "ARGS;TEST_ARGS;DOC_ARGS" ${ARGN})
  set(target ch${dir})
  add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/main.cpp)
  target_link_libraries(${target} PRIVATE transformer::common)
  # `cmake --build build --target chapters` builds the library and every chapter, nothing else
  # (./tutorial run builds this first, so that the first chapter prints before the tests build).
  if(NOT TARGET chapters)
    add_custom_target(chapters)
  endif()
  add_dependencies(chapters ${target})
  set_property(GLOBAL APPEND PROPERTY TFM_CHAPTERS ${dir})
  set_property(GLOBAL PROPERTY TFM_CHAPTER_ARGS_${dir} "${CHAPTER_ARGS}")
  if(NOT DEFINED CHAPTER_TEST_ARGS AND NOT "TEST_ARGS" IN_LIST CHAPTER_KEYWORDS_MISSING_VALUES)
    set(CHAPTER_TEST_ARGS "${CHAPTER_ARGS}")
  endif()
  set_property(GLOBAL PROPERTY TFM_CHAPTER_TEST_ARGS_${dir} "${CHAPTER_TEST_ARGS}")
  string(REPLACE ";" " " run_line "${target} ${CHAPTER_ARGS}")
  file(APPEND ${CMAKE_BINARY_DIR}/chapter_runs.txt "${run_line}\n")
  # A bare DOC_ARGS (no values) means: run the book's copy without arguments.
  if(NOT DEFINED CHAPTER_DOC_ARGS AND NOT "DOC_ARGS" IN_LIST CHAPTER_KEYWORDS_MISSING_VALUES)
    set(CHAPTER_DOC_ARGS "${CHAPTER_ARGS}")
  endif()
  set_property(GLOBAL PROPERTY TFM_CHAPTER_DOC_ARGS_${dir} "${CHAPTER_DOC_ARGS}")
endfunction()

# add_book_run(<dir> <name> ARGS <arg>...) makes the book run chapter <dir> once more, with ARGS,
# after its own run, and keep what it printed as ch<dir>_<name>.txt in the book's output directory
# (e.g. add_book_run(11_train_test beam ARGS --task vowels --beam 4)). The
# cache variable TFM_BOOK_ARGS_<dir>_<name> replaces ARGS for one build directory.
function(add_book_run dir name)
  cmake_parse_arguments(RUN "" "" "ARGS" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY TFM_BOOK_RUNS "${dir}|${name}")
  set_property(GLOBAL PROPERTY TFM_BOOK_RUN_ARGS_${dir}_${name} "${RUN_ARGS}")
endfunction()
