#!/usr/bin/env bash
# CTest fixture: builds evdump (the ghc-events reference reader in ../shared/tools/ghc-events-dump)
# into $1. When ghc or the ghc-events library cannot be had, says NOT RUN and succeeds: the tests
# that use evdump then report NOT RUN too.
set -uo pipefail
out=$1
shared=$2
if [ -x "$out" ]; then
  echo "evdump already built: $out"
  exit 0
fi
if [ ! -f "$shared/tools/ghc-events-dump/build.sh" ]; then
  echo "NOT RUN: $shared/tools/ghc-events-dump is missing"
  exit 0
fi
if ! bash "$shared/tools/ghc-events-dump/build.sh" "$out"; then
  rm -f "$out"
  echo "NOT RUN: evdump could not be built (needs ghc and libghc-ghc-events-dev)"
fi
exit 0
