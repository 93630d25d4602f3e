# add_chapter(<dir> [ARGS <arg>...]) builds chapters/<dir>/main.cpp into build/bin/ch<dir>,
# e.g. add_chapter(03_positional_encoding) -> build/bin/ch03_positional_encoding.
# Every chapter links the one shared library and nothing else. ARGS are the arguments the
# tutorial, the tests and the book run it with.
function(add_chapter dir)
  cmake_parse_arguments(CHAPTER "" "" "ARGS" ${ARGN})
  set(target ch${dir})
  add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/main.cpp)
  target_link_libraries(${target} PRIVATE transformer::common)
  set_property(GLOBAL APPEND PROPERTY TFM_CHAPTERS ${dir})
  set_property(GLOBAL PROPERTY TFM_CHAPTER_ARGS_${dir} "${CHAPTER_ARGS}")
endfunction()
