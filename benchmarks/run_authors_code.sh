#!/usr/bin/env bash
# Run the authors' public VIB-GSL code (github.com/RingBDStack/VIB-GSL) on a
# TU dataset from our offline copies, to compare its figures with the paper's
# and with ours in the same environment. Nothing of that code is copied into
# this project: it is read from a checkout you supply.
#
# Usage:
#   benchmarks/run_authors_code.sh AUTHORS_CHECKOUT DATASET BACKBONE [OUT_DIR] [extra main.py args]
#   e.g. benchmarks/run_authors_code.sh ~/src/VIB-GSL IMDB-MULTI GIN
#
# The checkout is copied to a temporary folder and two unused imports are
# dropped, so that it runs under torch-geometric 2.x (the code targets 1.6.3):
#   - torch_geometric.utils.accuracy (imported, never used) no longer exists;
#   - texttable (imported, never used) is not a dependency of ours.
# (torch_geometric.data.DataLoader/DenseDataLoader still exist in 2.x as
# deprecated aliases of torch_geometric.loader's.)
# The model, the training loop, the seeds and every default are left as they are.
# Data: $SK_VIBGSL_SHARED/datasets/DATASET/DATASET.zip (default ../shared).
# Output: OUT_DIR/authors_DATASET_BACKBONE.log (default benchmarks/results/authors_code).
set -euo pipefail

checkout=$(cd "$1" && pwd)
dataset=$2
backbone=$3
here=$(cd "$(dirname "$0")/.." && pwd)
out=${4:-$here/benchmarks/results/authors_code}
shift $(( $# < 4 ? $# : 4 ))
shared=${SK_VIBGSL_SHARED:-$here/../shared}
python=${PYTHON:-python}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/code" "$work/data/$dataset/raw" "$out"
cp "$checkout"/*.py "$work/code/"
cd "$work/code"
sed -i 's/from torch_geometric.utils import accuracy, /from torch_geometric.utils import /' layers.py
sed -i 's/^from texttable import Texttable/# (texttable import dropped)/' utils.py
# main.py reads the dataset from <code>/../data/NAME with PyG's TUDataset.
unzip -q -o "$shared/datasets/$dataset/$dataset.zip" -d "$work/unzipped"
mv "$work/unzipped/$dataset"/* "$work/data/$dataset/raw/"

log="$out/authors_${dataset}_${backbone}.log"
{
  echo "# authors' code: $(git -C "$checkout" rev-parse HEAD 2>/dev/null || echo 'checkout without git')"
  echo "# command: main.py --dataset_name $dataset --backbone $backbone $*"
  echo "# $("$python" -c 'import torch, torch_geometric, platform; print("torch", torch.__version__, "torch_geometric", torch_geometric.__version__, "python", platform.python_version())')"
  echo "# started $(date -u +%FT%TZ) on $(getconf _NPROCESSORS_ONLN) cores, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
} > "$log"
start=$(date +%s)
"$python" -W ignore main.py --dataset_name "$dataset" --backbone "$backbone" "$@" 2>&1 | tee -a "$log"
echo "# wall $(( $(date +%s) - start )) s" >> "$log"
