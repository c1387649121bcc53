# Webtron: `make run` builds everything and starts a playable server on
# http://localhost:8080 (bots on); `make test` runs the whole test suite,
# installing what it needs (npm packages, Chromium, Firefox ESR and Xvfb,
# nats-server) on a fresh machine.
GO       ?= go
BIN      := bin/webtron
WASMEXEC := $(shell $(GO) env GOROOT)/lib/wasm
# The packages whose code the browser runs: their tests also run under js/wasm.
WASM_PKGS := ./sim/ ./bot/ ./history/ ./client/ ./proto/ ./clock/ ./replay/playback/ ./web/wasm/

.PHONY: all build web run test test-native test-amd64 test-wasm test-browser vet bench chromium firefox nats-server armagetron-maps

all: build

# The browser client (TypeScript + the client core compiled to wasm) is built
# into web/dist and embedded in the binary.
web:
	$(GO) run ./web/build

build: web
	$(GO) build -o $(BIN) ./cmd/webtron

run: build
	./$(BIN) serve

test: vet web test-native test-amd64 test-wasm test-browser

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go') && echo "gofmt needed" && exit 1)
	$(GO) vet ./...

# The cluster tests run three Debian nats-server processes (installed when
# missing) beside the embedded ones; the map tests Armagetron's stock maps.
test-native: nats-server armagetron-maps
	$(GO) test -count=1 ./...

# The golden hashes must not depend on the instruction set level.
test-amd64:
	GOAMD64=v1 $(GO) test -count=1 -run 'Golden' ./sim/ ./bot/
	GOAMD64=v3 $(GO) test -count=1 -run 'Golden' ./sim/ ./bot/

# The browser runs the simulation compiled to WebAssembly: same tests, same
# golden hashes, in Node; and `webtron sim` must print the same hash.
test-wasm: armagetron-maps
	PATH="$(WASMEXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 -short $(WASM_PKGS)
	./scripts/sim-wasm-check.sh

# End-to-end tests in headless Chromium, and TestBrowserFirefox in Firefox ESR
# under Xvfb (Debian's packages, installed when missing; e2e/README.md).
test-browser: chromium firefox
	WEBTRON_BROWSER_TESTS=1 $(GO) test -count=1 -timeout 30m -run 'Browser' ./e2e/...

chromium:
	@command -v chromium >/dev/null 2>&1 || ./scripts/install-chromium.sh

# Firefox ESR, Xvfb and Mesa from Debian; puppeteer-core (WebDriver BiDi)
# from e2e/firefox's lock file, installed again when the lock changes.
firefox: e2e/firefox/node_modules/.package-lock.json
	@./scripts/install-firefox.sh

e2e/firefox/node_modules/.package-lock.json: e2e/firefox/package-lock.json
	cd e2e/firefox && npm ci --no-audit --no-fund

# Armagetron's ten stock maps, from Debian's armagetronad-common, for the
# map tests (aamap, sim, bot); none is copied into the repository.
armagetron-maps:
	@./scripts/install-armagetron-maps.sh

nats-server:
	@command -v nats-server >/dev/null 2>&1 || ./scripts/install-nats-server.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/ ./bot/ ./history/ ./proto/ ./vnet/
