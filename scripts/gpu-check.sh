#!/usr/bin/env bash
# The GPU check, run on a CUDA machine whose python3 has PyTorch, in BUDGET seconds (default 510):
#  (a) the default model trained on at a size 2 CPU cores cannot afford: several times the clips (CPU workers
#      draw them while the GPU is busy with (b)) and the stage's GPU batch (128 rather than 8, in bfloat16),
#      at the shipped depth or at LAYERS blocks grown from it;
#  (b) the full-size ltx preset timed with random weights on a 10-second clip (benchmarks.generation).
# Everything lands in OUT (default var/gpu): the logs, the benchmark's tables and the run's trained parts
# (model.tar: transformer/, text_encoder/, training.json from the run's candidate folder, which the run
# also writes into generation/model where it beats the shipped model, as `make model` does), to be judged
# again on a CPU with `python -m lab.evaluation` before they are committed (docs/model.md).
#   [OUT=dir] [PYTHON=python3] [WHEELS=dir] [FONT=file] [CLIPS=6000] [WORKERS=12] [LAYERS=6] [BUDGET=510]
#   [BENCH="--compile --rounds 3"] scripts/gpu-check.sh
# WHEELS: Python packages the machine lacks (diffusers, Django), installed to /tmp/site. FONT: the emoji font
# where Debian's is not installed (the 24 subjects' glyphs are enough).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-var/gpu}
PY=${PYTHON:-python3}
CLIPS=${CLIPS:-6000}
WORKERS=${WORKERS:-12}
LAYERS=${LAYERS:-6}
BUDGET=${BUDGET:-510}
BENCH=${BENCH:---compile --rounds 3}
EMOJI=/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
export PYTHONUNBUFFERED=1
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
left() { echo $((BUDGET - SECONDS)); }
minutes() { $PY -c "print(max(0.1, $1 / 60))"; }

if [ -n "${WHEELS:-}" ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$WHEELS"/*.whl || exit 1
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
[ -f $EMOJI ] || install -D "${FONT:?$EMOJI is missing: name a copy in FONT}" $EMOJI
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

# The CPUs draw and the GPU encodes the training clips while the GPU times the ltx preset. The drawing stops
# 90 s before the benchmark's time is up, so that the encoding fits.
bench_time=$(($(left) * 45 / 100))
$PY -m lab.training clips --clips "$CLIPS" --workers "$WORKERS" --threads 2 \
  --minutes "$(minutes $((bench_time - 90)))" >"$OUT/clips.log" 2>&1 &
drawing=$!
# shellcheck disable=SC2086  # BENCH is a list of flags
timeout -k 10 "$bench_time" $PY -m benchmarks.generation --preset ltx --random-weights $BENCH --threads 4 \
  >"$OUT/bench.txt" 2>&1
wait $drawing
ls var/training/latents-*.pt >/dev/null || exit 1

# The transformer trains on the drawn clips from the shipped weights until the budget is nearly spent; a
# SIGTERM from timeout ends it early with its checkpoint and export.
minutes=$(minutes $(($(left) - 60)))  # from its first step: loading, growing and exporting take the rest
timeout -k 20 $(($(left) > 50 ? $(left) - 20 : 30)) $PY -m lab.training transformer \
  --layers "$LAYERS" --minutes "$minutes" --threads 2 >"$OUT/train.log" 2>&1 &&
  tar -C var/training/candidate -cf "$OUT/model.tar" transformer text_encoder training.json

for log in clips train; do
  echo "== $log"; tr '\r' '\n' <"$OUT/$log.log" | grep -v -e '^\s*$' -e 'float32: \[\]' -e shards | tail -n 4
done
echo "== ltx"; cat "$OUT/bench.txt"
echo "== $SECONDS s"
