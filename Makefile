# importer: build, demo, tests and benchmarks.
#   make run    installs missing system packages (as root), builds in release mode and imports the
#               sample feeds into a fresh store under .demo/, printing the reports
#   make test   same dependency step, then the whole test suite
#   make bench  end-to-end benchmark beside a raw-SQLite baseline (RECORDS=1000000 by default)

SWIFT      ?= swift
PREFIX     ?= /usr/local
RECORDS    ?= 1000000
DEMO       := .demo
APT_PACKAGES := libsqlite3-dev libxml2-dev libyajl-dev

.PHONY: deps build run test bench install clean

# Installs the system libraries the package links, when missing (needs root; prints the command otherwise).
deps:
	@missing=""; for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  else \
	    echo "missing system packages:$$missing -- run: sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi

build: deps
	$(SWIFT) build -c release --product importer

run: build
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== importer run SampleData/fireball-2024.json (first snapshot)"
	.build/release/importer run --store $(DEMO)/fireballs.sqlite --author demo SampleData/fireball-2024.json
	@echo "== importer run --sync SampleData/fireball-2026.json (revised snapshot)"
	.build/release/importer run --store $(DEMO)/fireballs.sqlite --author demo --sync SampleData/fireball-2026.json
	@echo "== importer history"
	.build/release/importer history --store $(DEMO)/fireballs.sqlite
	@echo "== importer views show fireball_by_year"
	.build/release/importer views show fireball_by_year --store $(DEMO)/fireballs.sqlite

test: deps
	$(SWIFT) build
	$(SWIFT) test

bench: deps
	$(SWIFT) build -c release --product importer
	$(SWIFT) build -c release --product importer-bench
	.build/release/importer-bench --records $(RECORDS) --dir .build/bench --importer .build/release/importer

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 .build/release/importer $(DESTDIR)$(PREFIX)/bin/importer

clean:
	rm -rf .build $(DEMO)
