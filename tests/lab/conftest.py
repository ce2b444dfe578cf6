"""Fixtures of the lab's tests: one torch thread, as the generation tests run."""

from tests.helpers.training import one_thread  # noqa: F401  (autouse)
