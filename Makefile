# nrikit build, test and code generation.
#
#   make test            vet (also of the nrikit_no_wasm and nri_no_wasm builds),
#                        cross-OS build and vet, race-enabled unit tests, the
#                        big-node and churn tests without -race, a short run of
#                        every fuzz target, the generated-code check
#   make cross           build and vet for every OS a runtime links nrikit on
#   make generate        regenerate api/*.pb.go with the pinned generators
#                        (protoc, protoc-gen-go, -go-ttrpc, -go-vtproto)
#   make check-generate  fail when the committed generated code is stale
#   make api-check       the exported API of adaptation against adaptation/testdata/api.txt
#   make docs-check      every link and anchor of README.md and docs/ resolves, and the
#                        sample outputs in docs/nritest.md are nritest's real output
#   make soak            pod lifecycles through healthy, misbehaving and hostile
#                        peers; prints its figures (SOAK_LIFECYCLES=N to change)

GO            ?= go
TOOLS_DIR     := $(CURDIR)/.tools
TOOLS_BIN     := $(TOOLS_DIR)/bin

# Pinned generator versions. protoc comes from Debian (bookworm ships 3.21.12);
# the Go plugins are built from the module proxy at these exact versions.
PROTOC_VERSION            := 3.21.12
PROTOC_GEN_GO_VERSION     := v1.36.11
PROTOC_GEN_GO_TTRPC_VERSION := v1.2.8
# vtprotobuf's newest release; its go.mod needs go 1.20, below ours.
PROTOC_GEN_GO_VTPROTO_VERSION := v0.6.1-0.20240319094008-0393e58bdf10

PROTOC              := protoc
PROTOC_GEN_GO       := $(TOOLS_BIN)/protoc-gen-go
PROTOC_GEN_GO_TTRPC := $(TOOLS_BIN)/protoc-gen-go-ttrpc
PROTOC_GEN_GO_VTPROTO := $(TOOLS_BIN)/protoc-gen-go-vtproto

TEST_FLAGS ?=

.PHONY: all build test vet api-check docs-check cross unit unit-norace bignode churn fuzz generate check-generate tools protoc clean

all: build

build:
	$(GO) build ./...

test: vet api-check docs-check cross unit unit-norace bignode churn fuzz check-generate

vet:
	$(GO) vet ./...
	$(GO) build -tags nrikit_no_wasm ./...
	$(GO) vet -tags nrikit_no_wasm ./adaptation
	$(GO) build -tags nri_no_wasm ./...
	$(GO) vet -tags nri_no_wasm ./adaptation
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^testdata/') ); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The later reorganisation of adaptation must keep its public API: the
# exported identifiers and their signatures are listed in testdata/api.txt
# (an intended change: go test -run TestPublicAPI ./adaptation -update).
api-check:
	$(GO) test -count=1 -run '^TestPublicAPI$$' ./adaptation

# Links and anchors in README.md and docs/, and the sample outputs of
# docs/nritest.md against real runs (-update rewrites them).
docs-check:
	$(GO) test -count=1 ./internal/doccheck
	$(GO) test -count=1 -run '^TestDocSamples$$' ./cmd/nritest

# Runtimes link nrikit on all of these; what an OS lacks must degrade at run
# time (an error or a log line), never break the build.
CROSS_OS := linux windows darwin freebsd

cross:
	@set -e; for os in $(CROSS_OS); do \
	  echo "cross $$os"; GOOS=$$os $(GO) build ./...; GOOS=$$os $(GO) vet ./...; \
	done

unit:
	$(GO) test -race -timeout 30m $(TEST_FLAGS) ./...

# The trunk's raw system calls are built only without the race detector
# (under it, they go through package syscall, which tells the detector of
# them): the packages that use them, and the tests of plugins that stall,
# freeze, flood or send garbage on real sockets, run here once more without it.
NORACE_ADAPTATION := Stall|Frozen|Hostile|Flood|Garbage|CallerDeadline
unit-norace:
	$(GO) test -count=1 -timeout 10m $(TEST_FLAGS) ./internal/mux ./internal/pluginconn
	$(GO) test -count=1 -timeout 10m -run '$(NORACE_ADAPTATION)' $(TEST_FLAGS) ./adaptation

# Tests that move a big node's state are too slow under the race detector,
# which they skip; they run here without it.
bignode:
	$(GO) test -count=1 -timeout 10m -run 'BigNode' $(TEST_FLAGS) ./adaptation

# Thousands of pod cycles against runtime-shaped lock doubles while plugins
# join and leave; unit runs a short version of the same under -race.
churn:
	$(GO) test -count=1 -timeout 15m -run 'LongChurn' $(TEST_FLAGS) ./adaptation

# Each target runs for a fixed number of executions (about 8 s here), not for a
# wall-clock -fuzztime: with a duration, Go's fuzz coordinator can report a
# spurious "context deadline exceeded" failure at the deadline on a loaded
# machine (golang/go#75804, unfixed in Go 1.26). FUZZTIME=30s overrides every
# count with a duration for local exploration.
FUZZ_TARGETS := ./internal/mux:FuzzFrameReader:8000x \
	./internal/merge:FuzzMergeCreate:30000x \
	./internal/launch:FuzzSplitName:150000x \
	./api:FuzzParseEventMask:60000x \
	./api:FuzzValidatePluginIdentity:40000x \
	./api:FuzzMarshalVT:100000x \
	./adaptation/ocispec:FuzzApply:40000x \
	./adaptation/validator:FuzzValidate:6000x \
	./internal/pluginconn:FuzzPluginConnection:8000x \
	./internal/pluginconn:FuzzReplies:60000x \
	./internal/limits:FuzzCPUList:20000x \
	./internal/wasmhost:FuzzLoad:5000x

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; budget=$${rest#*:}; \
	  budget=$${FUZZTIME:-$$budget}; \
	  echo "fuzz $$fn ($$budget)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $$budget $$pkg; \
	done

# ---- code generation ----

protoc:
	@if ! command -v $(PROTOC) >/dev/null 2>&1; then \
	  echo "installing Debian protobuf-compiler ($(PROTOC_VERSION))"; \
	  (apt-get update -qq && apt-get install -y -qq protobuf-compiler >/dev/null) || \
	    { echo "cannot install protobuf-compiler: run as root or install it yourself"; exit 1; }; \
	fi
	@v=$$($(PROTOC) --version); if [ "$$v" != "libprotoc $(PROTOC_VERSION)" ]; then \
	  echo "protoc is '$$v', want 'libprotoc $(PROTOC_VERSION)'"; exit 1; fi

$(PROTOC_GEN_GO):
	GOBIN=$(TOOLS_BIN) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(PROTOC_GEN_GO_TTRPC):
	GOBIN=$(TOOLS_BIN) $(GO) install github.com/containerd/ttrpc/cmd/protoc-gen-go-ttrpc@$(PROTOC_GEN_GO_TTRPC_VERSION)

$(PROTOC_GEN_GO_VTPROTO):
	GOBIN=$(TOOLS_BIN) $(GO) install github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto@$(PROTOC_GEN_GO_VTPROTO_VERSION)

tools: protoc $(PROTOC_GEN_GO) $(PROTOC_GEN_GO_TTRPC) $(PROTOC_GEN_GO_VTPROTO)

# gen-into DIR: messages get protobuf code and vtprotobuf's reflection-free
# marshal and size code (used to encode an event's request once for all
# plugins), services only ttrpc code (see api/services.proto).
# protoc-gen-go-ttrpc writes its "Code generated" header right above the package
# clause, which makes it part of the package doc: a blank line detaches it.
gen-into = mkdir -p $(1) && \
	$(PROTOC) -I api --plugin=protoc-gen-go=$(PROTOC_GEN_GO) \
	  --go_out=$(1) --go_opt=paths=source_relative api/nrikit.proto && \
	$(PROTOC) -I api --plugin=protoc-gen-go-vtproto=$(PROTOC_GEN_GO_VTPROTO) \
	  --go-vtproto_out=$(1) --go-vtproto_opt=paths=source_relative,features=marshal+size+unmarshal \
	  api/nrikit.proto && \
	$(PROTOC) -I api --plugin=protoc-gen-go-ttrpc=$(PROTOC_GEN_GO_TTRPC) \
	  --go-ttrpc_out=$(1) --go-ttrpc_opt=paths=source_relative api/services.proto \
	  api/v1beta1/services.proto && \
	for f in $(1)/services_ttrpc.pb.go $(1)/v1beta1/services_ttrpc.pb.go; do \
	  awk '/^package / && !done { print ""; done = 1 } 1' $$f > $$f.tmp && mv $$f.tmp $$f || exit 1; \
	done

generate: tools
	$(call gen-into,api)

check-generate: tools
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	$(call gen-into,$$tmp) && \
	for f in nrikit.pb.go nrikit_vtproto.pb.go services_ttrpc.pb.go v1beta1/services_ttrpc.pb.go; do \
	  if ! cmp -s $$tmp/$$f api/$$f; then \
	    echo "api/$$f is stale: run 'make generate' and commit the result"; \
	    diff -u api/$$f $$tmp/$$f | head -n 40; exit 1; fi; \
	done; echo "generated code is up to date"

clean:
	rm -rf $(TOOLS_DIR)

# ---- comparison with the reference runtime side ----

# bench-compare compares nrikit's adaptation with the reference one
# (github.com/containerd/nri v0.12.5 pkg/adaptation) and with a do-nothing
# runtime side on nrikit's mux (the floor) in one run on this machine, all
# against reference-stub plugins: CreateContainer through 1 and 3 plugins,
# the 11-event pod lifecycle, the throughput of 16 concurrent callers,
# CreateContainer through 2 plugins of which nrikit scopes one out of the
# pod (plugin calls per creation counted), and big-node sync (10,000 pods, 50,000 containers); latency, the runtime
# process's CPU time and allocations, medians of 3 rounds with the order
# rotated round by round; about six minutes on a loaded 2-core machine. Not
# part of `make test`. BENCH_FLAGS=-json prints JSON with every run; see
# testdata/interop/bench/main.go for the other flags.
BENCH_FLAGS ?=

.PHONY: bench-compare
bench-compare:
	cd testdata/interop/bench && $(GO) run . $(BENCH_FLAGS)

# bench-compare-bin builds the comparison and its plugin as static binaries
# into bin/bench, to run on another machine with no Go toolchain:
#   bin/bench/bench-compare -plugin bin/bench/plugin [flags]
.PHONY: bench-compare-bin
bench-compare-bin:
	mkdir -p bin/bench
	cd testdata/interop/bench && CGO_ENABLED=0 $(GO) build -o ../../../bin/bench/bench-compare .
	cd testdata/interop/modern && CGO_ENABLED=0 $(GO) build -o ../../../bin/bench/plugin .

# ---- soak ----

# soak drives SOAK_LIFECYCLES pod lifecycles of two containers each (default
# 2,000, about two minutes on a loaded 2-core machine; SOAK_LIFECYCLES=10000
# for the full soak, about ten) through two healthy plugins and a misbehaving
# one that is restarted, while an attacker process loops through hostile
# connections. It prints its figures and fails on a lost, duplicated or
# reordered event, on growth beyond its tolerance, or on a runtime call beyond
# its bound. Not part of `make test`. See adaptation/soak_linux_test.go.
SOAK_LIFECYCLES ?=

.PHONY: soak
soak:
	NRIKIT_SOAK=1 SOAK_LIFECYCLES=$(SOAK_LIFECYCLES) $(GO) test -count=1 -timeout 60m -run '^TestSoak$$' -v ./adaptation
