# Shared by slurm_test.sh and parallel_test.sh (sourced): messages, the CSV identity check and
# the fingerprint of the finished runs.
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 0; }

csvs=(runs.csv curves.csv init_grads.csv output_change.csv summary.txt)
same_results() {  # same_results DIR1 DIR2: byte-identical CSVs and summary
  local f
  for f in "${csvs[@]}"; do
    [ -s "$2/$f" ] || fail "$2/$f is missing"
    cmp "$1/$f" "$2/$f" || fail "$1/$f and $2/$f differ"
  done
}

# One line per finished run folder of the shards: inode and path. A run done again gets a new folder
# (written as .tmp-<id>, then renamed), hence a new inode.
finished_runs() {  # finished_runs SHARDS_DIR
  find "$1" -mindepth 3 -maxdepth 3 -path '*/runs/*' -type d ! -name '.tmp-*' -printf '%i %p\n' | sort -k2
}
count_finished() {  # count_finished SHARD_DIR
  find "$1/runs" -mindepth 1 -maxdepth 1 -type d ! -name '.tmp-*' 2> /dev/null | wc -l
}
# The runs finished before, still there, not redone: every line of $1 is in $2.
not_redone() {  # not_redone BEFORE_FILE AFTER_FILE
  local missing
  missing=$(comm -23 <(sort "$1") <(sort "$2"))
  [ -z "$missing" ] || fail "finished runs were redone or lost (inode changed or gone): $missing"
}
