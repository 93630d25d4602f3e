# The translation program's command line (projects/translate), run for real, included from
# tests/CMakeLists.txt. Bad input ends with a clear message and exit code 2 (usage) or 1 before
# any training ("training step" never printed); a tiny run trains, saves a checkpoint with its
# tokenizer, and a second run loads it to translate a sentence typed by a user.
function(tfm_translate_test name code stdout_regex stderr_regex forbidden_regex)
  tfm_cli_test(translate ${name} ${code} "${stdout_regex}" "${stderr_regex}" "${forbidden_regex}" "" "${ARGN}")
endfunction()
# A tiny model and tokenizer, so that a run takes seconds.
set(TFM_TRANSLATE_TINY --preset tiny --symbols 300 --batch-tokens 2000 --eval-every 0)

tfm_translate_test(help 0 "--direction es-en.en-es.*--translate TEXT" "" "training step" --help)
tfm_translate_test(bad_direction 2 "" "error: --direction: the direction must be es-en or en-es, got 'es-fr'" "training step"
  --direction es-fr)
# (CMake may pass the spaces on as an empty argument: either message is right.)
tfm_translate_test(empty_text 2 "" "error: (--translate: the text is empty|option '--translate' needs a value TEXT, got an empty one)"
                   "training step" --translate "  ")
tfm_translate_test(one_average 2 "" "error: --average needs 2 or more checkpoints" "training step" --average x)
tfm_translate_test(data_key 2 "" "error: --set src_vocab_size: the translation takes it from the data" "training step"
  --set src_vocab_size=5)
tfm_translate_test(load_missing 1 "" "error: no checkpoint directory 'no_such_checkpoint'" "training step"
  --load no_such_checkpoint --translate hola)
tfm_translate_test(load_with_symbols 2 "" "error: --symbols learns a new tokenizer, but --load / --average use a saved one" ""
  --load x --symbols 500)
tfm_translate_test(no_greedy_greedy 2 "" "error: --no-greedy needs --beam K > 1" "" --no-greedy --beam 1)
# A batch that cannot hold the longest verse is refused before anything is read.
tfm_translate_test(batch_too_small 2 "" "error: --batch-tokens 50 cannot hold a verse of --longest 120 subwords" "training step"
  --batch-tokens 50 --steps 1)
# A whole run, tiny: the score table with the three baselines, the rankings by BLEU and by chrF
# with the bootstrap's interval, the side-by-side verses, both parts' translations, the heat
# map, and a checkpoint that keeps the tokenizer; the test set without its echoes.
tfm_translate_test(tiny_run 0
  "[0-9]+ of [0-9]+ test verses left out as echoes of training verses.*copy the source +[0-9.]+ / +[0-9.]+.*word by word.*Apertium spa-eng.*Apertium, modern spelling +[0-9.]+ / +[0-9.]+.*model, greedy.*model, beam 2.*test, ranked by BLEU: .*test, ranked by chrF: .*Ruth, ranked by chrF: .*95 % interval \\[[-+][0-9.]+, [-+][0-9.]+\\].*names kept / 4-gram repeats, %.*the reference +100.00 /.*reference .*wrote translations_test.tsv\nwrote translations_Ruth.tsv\nwrote cross_attention_translate.svg"
  "" "" ${TFM_TRANSLATE_TINY} --steps 2 --test-verses 20 --beam 2 --show 2 --save translate_cli.ckpt)
# --load translates what a user types with the saved tokenizer, and names the characters it never saw.
tfm_translate_test(translate_loaded 0
  "loaded translate_cli.ckpt \\(2 steps trained\\).*note: the tokenizer never saw 'Ж' 'ω' in training: they become <unk>\nЖω y la tierra\n  ->  "
  "" "training step" --load translate_cli.ckpt --translate "Жω y la tierra")
set_tests_properties(translate_cli.tiny_run PROPERTIES FIXTURES_SETUP translate_checkpoint)
set_tests_properties(translate_cli.translate_loaded PROPERTIES FIXTURES_REQUIRED translate_checkpoint)
# English -> Spanish by an option: Apertium's other mode beside it.
tfm_translate_test(english_to_spanish 0 "en-es.*Apertium eng-spa +[0-9.]+ /" "" ""
  ${TFM_TRANSLATE_TINY} --direction en-es --steps 1 --test-verses 10 --beam 1 --show 1)
# The test set for make_bleu_fixtures.py.
tfm_translate_test(export_test_set 0 "wrote translate_cli_test_set.tsv" "" "training step"
  --symbols 300 --export-test-set translate_cli_test_set.tsv)
# The runs that read both Bibles and train: seconds in a Release build, minutes under the
# sanitizers (AddressSanitizer makes SWORD's reading and the training several times slower).
set_tests_properties(translate_cli.tiny_run translate_cli.translate_loaded translate_cli.english_to_spanish
                     translate_cli.export_test_set translate_cli.load_missing PROPERTIES TIMEOUT 900)
