import Foundation

// The benchmark: see Benchmark.swift. Kept tiny (top-level code is main-actor isolated).
exit(Benchmark.main(CommandLine.arguments))
