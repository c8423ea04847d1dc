# ReelFarm — two commands on a fresh Debian/Ubuntu machine:
#   make demo   installs missing system packages, builds, renders the bundled examples
#   make test   builds and runs the test suite
SHELL := /bin/bash
SYSTEM_PACKAGES := pkg-config libzmq3-dev libavformat-dev libavcodec-dev libavutil-dev \
	libswscale-dev libavfilter-dev libswresample-dev liblz4-dev libsqlite3-dev libpq-dev libheif-dev libcurl4-openssl-dev ffmpeg
# Only the tests need these: a browser for the dashboard test, an origin for media by URL,
# promtool (in Debian's prometheus package) for the metrics test.
TEST_PACKAGES := chromium chromium-driver nginx-light prometheus postgresql-15
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
REEL := .build/debug/reel
DEMO := .build/demo
TEST_POSTGRES_DIR := $(or $(TMPDIR),/tmp)/reelfarm-test-postgres

.PHONY: deps test-deps build demo test clean

# Installs the Debian packages of $(1) that are missing.
define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call install_missing,$(SYSTEM_PACKAGES))

test-deps: deps
	$(call install_missing,$(TEST_PACKAGES))
	@# The schema test reads docs/session.schema.json with python3's jsonschema.
	@python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
	@# The metrics test parses /metrics with the Prometheus project's own Python parser.
	@python3 -c 'import prometheus_client' 2>/dev/null || python3 -m pip install -q prometheus_client==0.23.1
	@# The HTTP API test fuzzes the API from docs/api.yaml with schemathesis.
	@command -v schemathesis >/dev/null || python3 -m pip install -q schemathesis==4.32.5
	@# ... and drives it through a client generated from docs/api.yaml by openapi-python-client.
	@command -v openapi-python-client >/dev/null || python3 -m pip install -q openapi-python-client==0.29.1
	@# The dashboard test drives Chromium through chromedriver.
	@python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium==4.27.1
	@# The Python client (clients/python) is checked with mypy --strict and against docs/api.yaml (PyYAML).
	@python3 -m mypy --version >/dev/null 2>&1 || python3 -m pip install -q mypy==1.13.0
	@python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml

build: deps
	swift build

demo: build
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	cp -r examples/*.json examples/looks $(DEMO)/
	REEL=$(REEL) examples/make-media.sh $(DEMO)
	$(REEL) validate $(DEMO)/multi-segment.json
	$(REEL) inspect $(DEMO)/multi-segment.json
	$(REEL) render $(DEMO)/multi-segment.json -o $(DEMO)/multi-segment.mp4
	$(REEL) render $(DEMO)/sdk-session.json -o $(DEMO)/sdk-session.mp4
	$(REEL) render $(DEMO)/phone-mix.json -o $(DEMO)/phone-mix.mp4
	$(REEL) render $(DEMO)/image.json -o $(DEMO)/image.jpg
	$(REEL) filters --contact-sheet $(DEMO)/filters.jpg
	$(REEL) thumbnails $(DEMO)/multi-segment.json --segment 1 --count 4 --size 160x90 -o $(DEMO)/filmstrip --cache-dir $(DEMO)/stills
	@echo "rendered $(DEMO)/multi-segment.mp4, $(DEMO)/sdk-session.mp4 and $(DEMO)/phone-mix.mp4 (+ .reel.json sidecars), $(DEMO)/image.jpg, $(DEMO)/filters.jpg and $(DEMO)/filmstrip/"

test: build test-deps
	@# The app client library links nothing of the engine (docs/api.md, "Clients").
	swift package describe --type json | python3 Tests/api/client-graph-check.py
	@# Every module imports only what Package.swift declares (docs/architecture.md, "Modules").
	swift package describe --type json | python3 Tests/api/import-check.py
	swift package describe --type json | python3 docs/images/modules.py --check docs/images/modules.svg
	@# The store suite runs against PostgreSQL too: a throwaway server on loopback, unless one is given.
	REELFARM_TEST_POSTGRES=$${REELFARM_TEST_POSTGRES:-$$(cluster/postgres-serve.sh $(TEST_POSTGRES_DIR))} swift test

clean:
	rm -rf .build
