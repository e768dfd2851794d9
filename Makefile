# importer: build, demo, tests and benchmarks.
#   make run    installs missing system packages (as root), builds in release mode and imports the
#               sample feeds into a fresh store under .demo/, printing the reports
#   make pg-demo  (debug build) the sample import on a throwaway local PostgreSQL cluster (initdb + pg_ctl
#               under .demo/pg, started as the postgres user when run as root, stopped at the end)
#   make test   same dependency step, then the whole test suite
#   make torture  the fault campaign at full strength (200 kill -9 trials)
#   make fuzz   libFuzzer over the parsers (FUZZ_SECONDS per target)
#   make bench  end-to-end benchmark beside a raw-SQLite baseline, and the PostgreSQL store beside psql
#               alone on a throwaway cluster (RECORDS=1000000 by default)
#   make bench-5m  the rows that depend on size at 5,000,000 records: feed order (sorted against
#               shuffled), view replay (1 % and 6.5 % deltas against a rebuild) and the PostgreSQL
#               rows (with their view replay), one run each
#   make install PREFIX=/usr/local   the binary, shell completions (bash, zsh, fish) and the man page

SWIFT      ?= swift
PREFIX     ?= /usr/local
RECORDS    ?= 1000000
DEMO       := .demo
APT_PACKAGES := libsqlite3-dev libxml2-dev
# The HTML report's test renders it in a real headless browser; the PostgreSQL tests start a
# throwaway cluster of their own (initdb + pg_ctl) with the server binaries; the metrics tests check
# the metrics files with promtool (prometheus), and the documented alert in a real Prometheus
# scraping node_exporter (prometheus-node-exporter); feeds and webhooks go through a real HTTP
# proxy (tinyproxy); history is backfilled from the commits of a file in a git repository (git).
TEST_PACKAGES := chromium postgresql prometheus prometheus-node-exporter tinyproxy git

MANDIR     := .build/man

.PHONY: deps deps-test build run pg-demo test torture fuzz bench bench-5m man install clean

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

deps-test:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(TEST_PACKAGES)"

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

PG_BIN  ?= $(lastword $(sort $(wildcard /usr/lib/postgresql/*/bin)))
PG_PORT ?= 55433
PG_AS   := $(if $(filter 0,$(shell id -u)),runuser -u postgres --,)
PG_URL  := postgres://postgres@127.0.0.1:$(PG_PORT)/postgres

pg-demo: deps
	$(SWIFT) build --product importer
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) postgresql"
	rm -rf $(DEMO)/pg && mkdir -p $(DEMO)/pg
	$(if $(PG_AS),chown postgres $(DEMO)/pg)
	$(PG_AS) $(PG_BIN)/initdb -D $(DEMO)/pg/data -A trust -U postgres --no-sync >/dev/null
	$(PG_AS) $(PG_BIN)/pg_ctl -D $(DEMO)/pg/data -o "-p $(PG_PORT) -k $(abspath $(DEMO)/pg) -c listen_addresses=127.0.0.1" -l $(DEMO)/pg/log -w start >/dev/null
	@status=0; { \
	  echo "== importer run (PostgreSQL at $(PG_URL))" && \
	  .build/debug/importer run --store $(PG_URL) --author demo SampleData/fireball-2024.json && \
	  echo "== importer run --sync" && \
	  .build/debug/importer run --store $(PG_URL) --author demo --sync SampleData/fireball-2026.json && \
	  echo "== importer history" && .build/debug/importer history --store $(PG_URL) && \
	  echo "== importer views show fireball_by_year" && .build/debug/importer views show fireball_by_year --store $(PG_URL) && \
	  echo "== importer views verify" && .build/debug/importer views verify --store $(PG_URL) && \
	  echo "== importer status" && .build/debug/importer status --store $(PG_URL); \
	} || status=$$?; \
	$(PG_AS) $(PG_BIN)/pg_ctl -D $(DEMO)/pg/data -m fast -w stop >/dev/null; exit $$status

test: deps-test
	$(SWIFT) build
	$(SWIFT) test

# The fault campaign at full strength: 40 kill -9 trials per writing command (200 in all).
torture: deps-test
	$(SWIFT) build
	IMPORTER_FAULT_TRIALS=40 $(SWIFT) test --filter FaultCampaignTests

# libFuzzer over the feed readers, the model reader and the expression parser (FUZZ_SECONDS each).
FUZZ_SECONDS ?= 60
fuzz: deps
	Fuzz/run.sh all $(FUZZ_SECONDS)

# The PostgreSQL rows start a throwaway cluster of their own (BENCH_ARGS=--no-postgres skips them).
BENCH_ARGS ?=
bench: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) postgresql"
	$(SWIFT) build -c release --product importer
	$(SWIFT) build -c release --product importer-bench
	.build/release/importer-bench --records $(RECORDS) --dir .build/bench --importer .build/release/importer $(BENCH_ARGS)

# About 2 GB of feeds and stores under .build/bench-5m, and 10 to 15 minutes on 2 cores.
bench-5m: deps
	$(SWIFT) build -c release --product importer
	$(SWIFT) build -c release --product importer-bench
	.build/release/importer-bench --records 5000000 --dir .build/bench-5m --importer .build/release/importer --only-shuffled --repeats 1
	.build/release/importer-bench --records 5000000 --dir .build/bench-5m --importer .build/release/importer --only-views --repeats 1
	.build/release/importer-bench --records 5000000 --dir .build/bench-5m --importer .build/release/importer --only-postgres --repeats 1

# The man page is generated from the command definitions (swift-argument-parser's plugin).
man: deps
	mkdir -p $(MANDIR)
	$(SWIFT) package --allow-writing-to-directory $(MANDIR) generate-manual --output-directory $(MANDIR)

install: build man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 .build/release/importer $(DESTDIR)$(PREFIX)/bin/importer
	install -m 644 $(MANDIR)/importer.1 $(DESTDIR)$(PREFIX)/share/man/man1/importer.1
	.build/release/importer --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/importer
	.build/release/importer --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_importer
	.build/release/importer --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/importer.fish

clean:
	rm -rf .build $(DEMO)
