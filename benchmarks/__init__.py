"""The benchmarks and load clients, apart from the apps they measure: `python -m benchmarks.voting`,
`benchmarks.generation` and `benchmarks.streaming` (figures and how they are measured: docs/benchmarks.md).
"""
