# fusiontune — run `make help` for the targets.
GO      ?= go
BIN     ?= bin/tune
FUZZTIME ?= 30s

.PHONY: help build install docs test check-leaderboards faults codesize demo bench bench-eval bench-samplers bench-workers bench-load bench-scale bench-query bench-replay bench-overhead bench-postgres bench-study-replay judge-recovery traffic lint fuzz clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/tune (the first build downloads the Go modules and compiles them: a few minutes)
	@[ -x $(BIN) ] || echo "building $(BIN) for the first time: go downloads about 100 MB of modules and compiles them (1-5 minutes on 2 cores; later builds take seconds)" >&2
	$(GO) build -o $(BIN) ./cmd/tune

install: build ## copy bin/tune to $(go env GOBIN), else $(go env GOPATH)/bin (usually ~/go/bin), and say whether that is on PATH
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
	mkdir -p "$$dir" && install -m 0755 $(BIN) "$$dir/tune" && echo "installed $$dir/tune"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "$$dir is not on PATH: add  export PATH=\"\$$PATH:$$dir\"  to your shell profile" ;; esac

docs: ## regenerate docs/reference from the code's tables (go test ./cmd/tune/internal/refdoc checks they are current)
	$(GO) run ./cmd/tune/internal/refdoc/gendocs

test: ## run every test (tests needing ../shared/data skip without it)
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...
	$(MAKE) check-leaderboards
	$(MAKE) faults

faults: ## the fault matrix: one line per fault scenario tune must survive (exit 1 when one fails or skips)
	./scripts/faults.sh

check-leaderboards: build ## the demo shortlist (live, replay) and sampled study must write the recorded leaderboard.json bytes
	./scripts/check-leaderboards.sh

codesize: ## per package: non-test files, lines and exported names, the face (cmd) as one figure; the longest functions and all over 60 lines
	./scripts/codesize.sh

demo: build ## run the main job on the embedded engine and the demo dataset
	./scripts/demo.sh

bench: ## run the Go benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-eval: build ## time `tune eval` on a generated 5,000-query run
	./scripts/bench-eval.sh

bench-samplers: ## trials random/TPE/CMA-ES need to reach the 55-point grid's optimum (demo, SciFact)
	./scripts/bench-samplers.sh

bench-workers: ## wall time of a shared 30-trial TPE study with 1 and 2 workers, --parallel 1 and 2
	./scripts/bench-workers.sh

bench-load: build ## bounded load test of tune serve: 16 clients on 127.0.0.1 (LOAD_CLIENTS, LOAD_REQUESTS), demo corpus, p50/p95/p99, searches/s; exit 1 on any failed search
	go run ./scripts/querybench -tune $(BIN) -corpus experiments/demo/corpus.jsonl -queries experiments/demo/golden.json -model hash-384 -k 100 -clients $${LOAD_CLIENTS:-16} -requests $${LOAD_REQUESTS:-8000}

bench-scale: build ## tune serve (bm25 + lsa-128) on 20k and 100k generated documents (SIZES=1000000: a million): cold index time, peak RSS, warm restart (SIZES, RUNS)
	./scripts/bench-scale.sh

bench-query: build ## hybrid POST /search latency (p50/p95/p99) and searches/s with 1 and 4 clients on ../shared/data/scifact (bm25 + lsa-256; the demo without it)
	./scripts/bench-query.sh

bench-replay: build ## fusion replay vs live restart-per-config on ../shared/data/scifact (skips without it; QUERIES=809 repeats its queries to that many)
	./scripts/bench-replay.sh

bench-overhead: build ## the tuner's overhead on live demo sweeps, from their time: lines (RUNS; BASE=another tune for a before/after)
	./scripts/bench-overhead.sh

traffic: build ## query log -> harvest -> implicit judgments -> shadow + SPRT, end to end on the demo (REQUESTS=2000 SEED=1)
	@work=$$(mktemp -d) && go run ./scripts/traffic -tune $(BIN) -out $$work/traffic -requests $${REQUESTS:-2000} -seed $${SEED:-1}; rc=$$?; rm -rf $$work; exit $$rc

judge-recovery: build ## judge-as-you-tune recovery: hide half the judgments of the demo and SciFact (Kendall tau per round); hide 80% of the demo's and NFCorpus's (pairs until the decision is the full one, depth vs decision pooling)
	./scripts/judge-recovery.sh

bench-postgres: build ## the postgres kind on ../shared/data/scifact: live vs replay, promotion + rollback (skips without it)
	./scripts/bench-postgres.sh

bench-study-replay: build ## a 200-trial TPE study in replay mode vs live (20 trials, extrapolated) on ../shared/data/scifact
	./scripts/bench-study-replay.sh

lint: ## gofmt, go vet and go mod tidy -diff (fails when go.mod or go.sum is not tidy)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff

fuzz: ## run every fuzz target for FUZZTIME each, one at a time (FUZZ=regexp picks targets; not in CI)
	FUZZ='$(FUZZ)' ./scripts/fuzz.sh $(FUZZTIME)

clean: ## remove build output
	rm -rf bin
