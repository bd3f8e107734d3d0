"""Hardening tests: the hypothesis profile shared by the fuzz tests."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# Registered, not loaded: the fuzz tests take it as their `parent`, so other test folders keep their own settings.
# No deadline (CI machines stall), no example database (nothing written to .hypothesis/ in CI), and a fresh random
# seed on every run (derandomize=False), so that each CI run explores new inputs. With HYPOTHESIS_PROFILE=
# hardening-long the fuzz tests run ten times as many examples, for a local soak.
settings.register_profile(
    "hardening",
    deadline=None,
    database=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
