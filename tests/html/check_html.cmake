# The HTML report rendered for real in headless Chromium (issue #12): every chart of the page is an
# SVG element of the DOM Chromium builds, each has its marks, and the figures the marks carry are the
# JSON report's. Run by ctest as:
#   cmake -DKVPLAN=<kvplan> -DCHROMIUM=<chromium> -DSCRATCH=<dir> -P check_html.cmake
# Chromium's flags are those this machine's notes give for a closed network, run as root
# (../.library env: --headless --no-sandbox --disable-gpu ... and an empty --user-data-dir).
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
set(plan --model llama3.1-8b --gpu H100 --seq-len 32k --batch 8)
execute_process(COMMAND "${KVPLAN}" ${plan} --format html OUTPUT_FILE "${SCRATCH}/page.html" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvplan --format html failed (${rc})")
endif()
execute_process(COMMAND "${KVPLAN}" ${plan} --format json OUTPUT_VARIABLE json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvplan --format json failed (${rc})")
endif()
set(flags --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
          --disable-component-update --disable-sync "--user-data-dir=${SCRATCH}/profile")
execute_process(COMMAND "${CHROMIUM}" ${flags} --dump-dom "file://${SCRATCH}/page.html"
                OUTPUT_VARIABLE dom ERROR_VARIABLE chromium_log RESULT_VARIABLE rc TIMEOUT 180)
if(NOT rc EQUAL 0 OR NOT dom MATCHES "</html>")
  message(FATAL_ERROR "chromium --dump-dom failed (${rc}): ${chromium_log}")
endif()

# Every chart: a figure holding an <svg> with at least two marks.
string(REGEX MATCHALL "<figure data-chart=\"[a-z_.]+\">" figures "${dom}")
list(LENGTH figures charts)
if(charts LESS 5)
  message(FATAL_ERROR "the page has ${charts} charts; expected memory, frontier and the three comparisons")
endif()
foreach(figure IN LISTS figures)
  string(REGEX REPLACE "<figure data-chart=\"([a-z_.]+)\">" "\\1" key "${figure}")
  string(FIND "${dom}" "${figure}" at)
  string(SUBSTRING "${dom}" ${at} -1 rest)
  string(FIND "${rest}" "</figure>" end)
  string(SUBSTRING "${rest}" 0 ${end} body)
  if(NOT body MATCHES "<svg[^>]*data-chart=\"${key}\"")
    message(FATAL_ERROR "chart ${key}: Chromium's DOM holds no <svg> for it")
  endif()
  string(REGEX MATCHALL "<rect[^>]*data-value=\"[0-9]+\"" marks "${body}")
  list(LENGTH marks n)
  if(n LESS 2)
    message(FATAL_ERROR "chart ${key}: ${n} marks drawn")
  endif()
endforeach()

# The frontier's bars are the JSON frontier's max_batch, row by row.
string(JSON rows LENGTH "${json}" frontier)
math(EXPR last "${rows} - 1")
foreach(i RANGE ${last})
  string(JSON want GET "${json}" frontier ${i} max_batch)
  if(NOT dom MATCHES "data-key=\"frontier\" data-row=\"${i}\" data-value=\"${want}\"")
    message(FATAL_ERROR "frontier row ${i}: the chart does not draw the JSON's max_batch ${want}")
  endif()
endforeach()
# The memory bar's parts are the JSON budget's bytes.
foreach(key weights_bytes reserved_bytes kv_budget_bytes)
  string(JSON want GET "${json}" budget ${key})
  if(NOT dom MATCHES "data-key=\"${key}\" data-value=\"${want}\"")
    message(FATAL_ERROR "memory chart: ${key} is not the JSON's ${want}")
  endif()
endforeach()
# Every number a chart draws is in the page as text too: the frontier's counts in its table.
string(JSON answer_batch GET "${json}" answer max_batch)
if(NOT dom MATCHES ">${answer_batch}<")
  message(FATAL_ERROR "the answer's max batch ${answer_batch} is not in the page's text")
endif()
message(STATUS "HTML report: ${charts} charts drawn in Chromium; figures equal the JSON report's")
