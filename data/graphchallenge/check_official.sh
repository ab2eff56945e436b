#!/usr/bin/env bash
# Checks the official SpDNN GraphChallenge files (1024 neurons) that the project reads from outside the
# repository: they must sit in ../shared/data/graphchallenge beside the repository root (or in the folder
# given as $1) and match their published SHA-256 sums. Exit status 0 when everything is present and intact.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:-$here/../../../shared/data/graphchallenge}"
if [ ! -d "$dir" ]; then
  echo "official GraphChallenge data not found at $dir" >&2
  echo "(the tests that need it skip; see data/README.md for what belongs there)" >&2
  exit 1
fi
dir="$(cd "$dir" && pwd)"
echo "checking $dir"
(cd "$dir" && sha256sum --quiet -c SHA256SUMS)
(cd "$dir/neuron1024" && sha256sum --quiet -c ../SHA256SUMS.neuron1024)
layers=$(ls "$dir/neuron1024" | grep -c '^n1024-l[0-9]*\.tsv$')
echo "ok: $layers weight layers, image subset and truth files match their checksums"
