#!/usr/bin/env bash
# Runs package-benchmark (ordo) after removing the release build folders of Net's own modules in
# Benchmarks/.build: SwiftPM's incremental build can keep a module built against a type's old
# layout after a change in Sources (seen twice; the binary then crashes or measures stale code).
#
#     NET_BENCH_SERVER=http://127.0.0.1:PORT taskset -c 0 \
#       bash Benchmarks/ordo-clean.sh baseline update NAME --filter "Pipeline.*|HTTP 100 MB.*"
set -euo pipefail
cd "$(dirname "$0")/.."
release=Benchmarks/.build/x86_64-unknown-linux-gnu/release
for module in Net NetAsyncHTTPClient NetCore NetLoad NetMultipart NetObservability NetOpenAPI NetReachability CNetlink NetTransport BenchmarkSupport CHeapProbe NetBenchmarks; do
    rm -rf "$release/$module.build"
done
touch Benchmarks/Package.swift
swift package --package-path Benchmarks benchmark "$@"
