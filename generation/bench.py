"""`python -m generation.bench --preset ltx --random-weights` is the command the product's owners run on a GPU
machine; it stays where they type it. The benchmark itself is benchmarks/generation.py."""

from benchmarks.generation import main

if __name__ == "__main__":
    main()
