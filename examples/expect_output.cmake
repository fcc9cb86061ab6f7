# Runs PROGRAM (its one argument: a scratch directory under WORK) and compares its standard output
# with the file EXPECTED, line by line (ctest's example_NAME tests).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${PROGRAM} ${WORK}/trace RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "${PROGRAM} failed (${rc}): ${err}")
endif()
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  file(WRITE ${WORK}/actual.out "${out}")
  message(FATAL_ERROR "${PROGRAM}: output differs from ${EXPECTED} (actual: ${WORK}/actual.out)\n${out}")
endif()
file(REMOVE_RECURSE ${WORK})
