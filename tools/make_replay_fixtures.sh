#!/bin/sh
# Regenerates the PyTorch replay fixtures of the lab (tests/fixtures/replay/transformer/*, .../options/*, .../llama/*):
# each a `tapegrad-depth --dump` record plus the losses of the same run in PyTorch (torch_losses.npy),
# which the [lab] unit tests compare with tapegrad's replay (to 1e-9) without needing torch.
# Needs Debian's python3-torch; tests and CI never run this.
#   tools/make_replay_fixtures.sh [build/lab/tapegrad-depth]
set -eu
bin=${1:-build/lab/tapegrad-depth}
root=tests/fixtures/replay
small="--depths 2 --widths 8 --lrs 0.01 --warmups 3 --steps 12 --batch 4 --train-size 16 --eval-size 8"
record() {  # record FOLDER OPTIONS...
  dir=$1; shift
  rm -rf "$dir"
  "$bin" --dump "$dir" "$@" > /dev/null
  /usr/bin/python3 tools/replay_torch.py "$dir" --write
}
for p in post pre deepnorm rezero sandwich none; do
  # shellcheck disable=SC2086
  record "$root/transformer/$p" --arch transformer --heads 2 --seq-len 6 --placements "$p" $small
done
# shellcheck disable=SC2086
record "$root/options/transformer_xavier_rms_gelu" --arch transformer --heads 2 --seq-len 6 --placements post \
  --init xavier --norm rms --activation gelu --ffn-mult 2 $small
# shellcheck disable=SC2086
record "$root/options/transformer_batchnorm" --arch transformer --heads 4 --seq-len 5 --placements pre --norm batch $small
# shellcheck disable=SC2086
record "$root/options/ffn_xavier_batch_gelu" --placements sandwich --init xavier --norm batch --activation gelu \
  --ffn-mult 3 $small
# The LLaMA-style block (--preset llama's: RMSNorm, SwiGLU, RoPE, grouped-query attention), Pre- and Post-Norm,
# and Meta's interleaved RoPE with one key/value head (multi-query).
for p in post pre; do
  # shellcheck disable=SC2086
  record "$root/llama/$p" --preset llama --heads 4 --seq-len 6 --placements "$p" --seeds 0 $small
done
# shellcheck disable=SC2086
record "$root/llama/pre_interleaved_mqa" --arch transformer --heads 4 --seq-len 6 --placements pre --norm rms \
  --activation swiglu --positions rope-interleaved --kv-heads 1 --init xavier $small
