#!/usr/bin/env bash
# make codesize: per package, its non-test files, lines and exported names
# (largest first) and the face (every package under cmd) as one figure;
# then the longest functions of cmd/tune and of tuner, and every function
# over 60 lines in the module. The limits (40 files and 6,000 lines a
# package, 80 exported names in tuner) are checked by
# internal/architecture's TestPackageSizes.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./scripts/pkgsize $(go list -f '{{.Dir}}' ./...)
echo "longest functions in cmd/tune:"
go run ./scripts/funclen cmd/tune
echo "longest functions in tuner, tuner/sampler, tuner/promote:"
go run ./scripts/funclen tuner tuner/sampler tuner/promote
echo "functions over 60 lines in the module (non-test, go list ./...):"
go run ./scripts/funclen -over 60 $(go list -f '{{.Dir}}' ./... | sed "s|^$PWD/||")
