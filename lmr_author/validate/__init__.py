"""Static and dynamic checks of tasks and benchmarks, each a small named rule."""
