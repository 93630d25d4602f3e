# Issue 50: the faults of a real terminal, disk and second process, included from
# tests/CMakeLists.txt. None loses a trained model or a user's file, hangs, crashes or exits 0
# after failing. The faults CI cannot make as root come from a library put in front of the C
# library (fault_shim.cpp, LD_PRELOAD): built plain, without the sanitizers, so that it loads
# into any build.
add_library(tfm_fault_shim SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fault_shim.cpp)
target_link_libraries(tfm_fault_shim PRIVATE ${CMAKE_DL_LIBS})

# Chapter 11 for real (nothing_lost_test.sh: one case each, short runs of the copy task).
foreach(case hangup_and_pipe two_runs bad_tmpdir long_name trailing_slash durable_save
             file_size_limit full_output optimizer_missing average_runs corpus_read_error)
  add_test(NAME ch11_cli.${case}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/nothing_lost_test.sh $<TARGET_FILE:ch11_train_test>
            ${CMAKE_CURRENT_BINARY_DIR}/nothing_lost_${case} ${case} $<TARGET_FILE:tfm_fault_shim>)
  set_tests_properties(ch11_cli.${case} PROPERTIES
    ENVIRONMENT "OPENBLAS_NUM_THREADS=1" TIMEOUT 180 LABELS cli)
endforeach()

# translate: SIGTERM while testing ends the program; conflicting actions are refused; the
# direction a checkpoint was trained in cannot be contradicted; the export is checked to its end.
add_test(NAME translate_cli.term_while_testing
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/nothing_lost_test.sh $<TARGET_FILE:translate>
          ${CMAKE_CURRENT_BINARY_DIR}/nothing_lost_translate_term translate_term)
set_tests_properties(translate_cli.term_while_testing PROPERTIES
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1" TIMEOUT 900 LABELS cli)
tfm_translate_test(export_and_translate 2 ""
  "error: --export-test-set writes the test set and stops; --translate would be ignored: give one of them"
  "training step" --export-test-set x.tsv --translate hola)
tfm_translate_test(export_and_steps 2 ""
  "error: --export-test-set writes the test set and stops; --steps would be ignored" ""
  --export-test-set x.tsv --steps 3)
tfm_translate_test(direction_contradicts_checkpoint 2 ""
  "error: --direction en-es: the model of 'translate_cli.ckpt' was trained es-en and translates only that way"
  "training step" --load translate_cli.ckpt --direction en-es --translate hola)
set_tests_properties(translate_cli.direction_contradicts_checkpoint PROPERTIES
  FIXTURES_REQUIRED translate_checkpoint)
tfm_translate_test(export_to_full_disk 1 ""
  "error: could not write all of '/dev/full': No space left on device" "wrote /dev/full"
  --symbols 300 --export-test-set /dev/full)
set_tests_properties(translate_cli.export_to_full_disk PROPERTIES TIMEOUT 900)

# Every program checks its standard output to the last flush: > /dev/full is an error.
add_test(NAME ch01_cli.full_output
  COMMAND bash -c "code=0; \"$0\" >/dev/full 2>err.txt || code=$?; cat err.txt; [ $code -eq 1 ]"
          $<TARGET_FILE:ch01_params>
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(ch01_cli.full_output PROPERTIES LABELS cli
  PASS_REGULAR_EXPRESSION "error: standard output could not be written \\((No space left on device|a write failed: a full disk\\?)\\)")

# The bench's counts are checked like every program's: no wrap, no segfault, no silent 1.
if(TFM_BUILD_BENCH)
  tfm_cli_test(bench_transformer runs_huge 2 "^$"
    "error: option '--runs' needs a whole number from 1 to 1000000, got 2147483648" "" ""
    "--row;forward;--runs;2147483648")
  tfm_cli_test(bench_transformer steps_zero 2 "^$"
    "error: option '--steps' needs a whole number from 1 to 1000000, got 0" "" ""
    "--row;train;--steps;0")
  tfm_cli_test(bench_transformer runs_negative 2 "^$"
    "error: option '--runs' needs a whole number from 1 to 1000000, got -3" "" ""
    "--row;sgemm;--runs;-3")
endif()

# ./tutorial clean: --help deletes nothing; clean removes exactly the build folders, and says so.
add_test(NAME tutorial.clean
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tutorial_clean_test.sh ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/tutorial_clean)
set_tests_properties(tutorial.clean PROPERTIES LABELS tutorial TIMEOUT 60)

# The unclear cases of issue 50's probe, each with its message now.
tfm_ch11_cli_test(help_with_value 2 "error: option '--help' takes no value" --help=yes)
tfm_ch11_cli_test(minutes_underflow 2 "error: option '--minutes' needs a finite number > 0, got 1e-400"
  --minutes 1e-400)
tfm_ch11_cli_test(set_bad_value_is_usage 2 "error: config key 'd_model' needs a whole number >= 0, got 'eight'"
  --set d_model=eight)
tfm_cli_test(ch02_dataset held_out_one 2 "^$"
  "error: option '--held-out' needs a fraction from 0 to below 1, got 1" "" "" "--held-out;1")
tfm_cli_test(ch04_masks fill_nan 2 "^$"
  "error: option '--fill' needs a number or -inf \\(a blocked score must be below every other\\), got nan"
  "" "" "--fill;nan")
tfm_cli_test(ch04_masks fill_inf 2 "^$" "error: option '--fill' needs a number or -inf" "" "" "--fill;inf")
tfm_cli_test(ch04_masks fill_minus_inf 0 "filled with -inf" "" "error" "" "--fill;-inf")
