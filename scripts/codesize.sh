#!/usr/bin/env bash
# make codesize: the numbers the one-lifecycle issue tracks — non-test
# lines of cmd/tune, the longest functions of cmd/tune and of tuner
# (with its subpackages), and every function over 60 lines in the module.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "cmd/tune non-test lines: $(cat $(ls cmd/tune/*.go | grep -v _test.go) | wc -l)"
echo "longest functions in cmd/tune:"
go run ./scripts/funclen cmd/tune
echo "longest functions in tuner, tuner/sampler, tuner/promote:"
go run ./scripts/funclen tuner tuner/sampler tuner/promote
echo "functions over 60 lines in the module (non-test, go list ./...):"
go run ./scripts/funclen -over 60 $(go list -f '{{.Dir}}' ./... | sed "s|^$PWD/||")
