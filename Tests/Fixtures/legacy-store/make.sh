#!/bin/sh
# Writes store.sqlite as the release before change tables had importer_-prefixed columns
# (schema 2, commit dc8c717; bc62c3e left the layout unchanged) wrote it:
#   git worktree add /tmp/oldmain dc8c717 && (cd /tmp/oldmain && swift build --product importer)
#   sh make.sh /tmp/oldmain/.build/debug/importer
# Two runs: four quakes, then a --sync day that updates B and D, deletes C and inserts E.
set -eu
importer=$1
cd "$(dirname "$0")"
rm -f store.sqlite store.sqlite-wal store.sqlite-shm
"$importer" run --store store.sqlite --model model.yaml --author day1 day1.csv
"$importer" run --store store.sqlite --model model.yaml --author day2 --sync day2.csv
rm -f store.sqlite-writer
