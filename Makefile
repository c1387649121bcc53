# Webtron: `make run` builds everything and starts a playable server on
# http://localhost:8080; `make test` runs the whole test suite.
GO       ?= go
BIN      := bin/webtron
WASMEXEC := $(shell $(GO) env GOROOT)/lib/wasm
# The packages whose code the browser runs: their tests also run under js/wasm.
WASM_PKGS := ./sim/ ./bot/

.PHONY: all build run test test-native test-amd64 test-wasm vet bench

all: build

build:
	$(GO) build -o $(BIN) ./cmd/webtron

run: build
	./$(BIN) serve

test: vet test-native test-amd64 test-wasm

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (gofmt -l . && echo "gofmt needed" && exit 1)
	$(GO) vet ./...

test-native:
	$(GO) test -count=1 ./...

# The golden hashes must not depend on the instruction set level.
test-amd64:
	GOAMD64=v1 $(GO) test -count=1 -run 'Golden' $(WASM_PKGS)
	GOAMD64=v3 $(GO) test -count=1 -run 'Golden' $(WASM_PKGS)

# The browser runs the simulation compiled to WebAssembly: same tests, same
# golden hashes, in Node; and `webtron sim` must print the same hash.
test-wasm:
	PATH="$(WASMEXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 $(WASM_PKGS)
	./scripts/sim-wasm-check.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/ ./bot/
