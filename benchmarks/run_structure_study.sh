#!/usr/bin/env bash
# The structure study (issue: learned structure that pays), fair protocol only:
# nested CV, beta in {1e-3, 1e-5} chosen by an inner 3-fold GridSearchCV on the
# training folds, early stopping on 10 % of each fit's own training graphs
# (patience 20, at most 200 epochs), 10 outer folds, seed 0. Each row is one
# setting of the structure options (--set); N/A is the same backbone on the
# observed graph (structure_mix=1). Resumable: finished units are skipped.
#
#   bash benchmarks/run_structure_study.sh [DATASET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA_HOME="${DATA_HOME:-../shared/datasets}"
OUT=benchmarks/results/structure_study
DATASETS=("${@:-MUTAG IMDB-BINARY}")
read -r -a DATASETS <<< "${DATASETS[*]}"
COMMON=(--protocols fair --fair-patience 20 --betas 1e-3 1e-5 --node-features given+degree
        --data-home "$DATA_HOME" --n-jobs "${N_JOBS:-2}" --threads 1
        --backbones gcn gin --datasets "${DATASETS[@]}")
run() {  # name, then reproduce_table1 arguments
  local name=$1; shift
  python benchmarks/reproduce_table1.py "${COMMON[@]}" --results-dir "$OUT/$name" "$@"
}
run observed --learners N/A
run paper --learners VIB-GSL
run cosine_top4 --learners VIB-GSL --set edge_score=cosine --set structure_k=4
run mix_cosine_top4 --learners VIB-GSL --set structure_mix=0.5 --set edge_score=cosine \
    --set structure_k=4
run hops2_cosine --learners VIB-GSL --set candidate_hops=2 --set edge_score=cosine
