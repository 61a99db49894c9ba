#!/usr/bin/env bash
# The README's "Evaluation report" run: the embedded smoke model on a small paper-subset sample of every task,
# seeds 0 and 1, reasoning off, then `bediscover report` on the logs. Usage: bash scripts/eval_report_run.sh [LOG_DIR]
# Settings: Table 7's Qwen3 row (presets=qwen3: temperature 0.7, top-p 0.8), so the smoke model samples as the
# paper's Qwen3 runs; deviation: max_tokens 256 (SmolLM2 rarely stops by itself; 2048 makes the run ~8x longer
# without changing what it shows).
set -euo pipefail
cd "$(dirname "$0")/.."
LOG_DIR=${1:-logs/eval-report}
BIN=${BIN:-.venv/bin}
if compgen -G "$LOG_DIR/*.eval" > /dev/null; then
  echo "eval_report_run.sh: $LOG_DIR already holds logs; the report would mix runs. Move them away or pass another LOG_DIR." >&2
  exit 2
fi
COMMON=(--model gguf/smollm2-135m -T presets=qwen3 --max-tokens 256 --max-connections 1 --log-dir "$LOG_DIR" --display plain)
for seed in 0 1; do
  "$BIN/inspect" eval evals/discourse_markers.py "${COMMON[@]}" --seed "$seed" -T per_dataset=2
  "$BIN/inspect" eval evals/temporal_reasoning.py "${COMMON[@]}" --seed "$seed" -T per_dataset=2
  "$BIN/inspect" eval evals/discourse_relations.py "${COMMON[@]}" --seed "$seed" \
    -T dataset=deu.pdtb.pcc,eng.rst.oll,zho.dep.scidtb -T per_dataset=2
  "$BIN/inspect" eval evals/sentence_ordering.py "${COMMON[@]}" --seed "$seed" -T dataset=nips-abs -T per_dataset=4
  "$BIN/inspect" eval evals/dialogue_parsing.py "${COMMON[@]}" --seed "$seed" -T dataset=stac \
    -T mode=incremental -T per_dataset=1
done
"$BIN/bediscover" report --log-dir "$LOG_DIR" --out reports/eval-report
