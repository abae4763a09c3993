# Sourced by .ci/run and scripts/test.sh. `stage NAME COMMAND...` runs COMMAND and, when CI_TIMINGS names
# a file, appends NAME, its wall time and its outcome to it; it returns COMMAND's status unchanged.
# `stage_table` prints that file as the table .ci/run shows at its end (also after a failure).

stage() {
  local name=$1 started=$EPOCHREALTIME status=0
  shift
  "$@" || status=$?
  stage_record "$name" "$started" "$status"
  return "$status"
}

# Records a stage that ran elsewhere (a background job): NAME, its start ($EPOCHREALTIME) and status.
stage_record() {
  [ -n "${CI_TIMINGS:-}" ] || return 0
  local outcome=ok
  [ "$3" -eq 0 ] || outcome="FAILED (exit $3)"
  printf '%s\t%s\t%s\n' "$1" "$(stage_seconds "$2")" "$outcome" >>"$CI_TIMINGS"
}

stage_seconds() {
  local now=$EPOCHREALTIME
  awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

stage_table() {
  [ -s "${CI_TIMINGS:-}" ] || return 0
  awk -F '\t' '
    { name[NR] = $1; secs[NR] = $2; outcome[NR] = $3; if (length($1) > width) width = length($1) }
    END {
      printf "\n%-*s %9s  %s\n", width, "stage", "wall (s)", "outcome"
      for (i = 1; i <= NR; i++) printf "%-*s %9.1f  %s\n", width, name[i], secs[i], outcome[i]
    }' "$CI_TIMINGS"
}
