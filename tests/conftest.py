"""Test configuration: hypothesis runs derandomised, so every run explores the same cases."""

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile("ci")
