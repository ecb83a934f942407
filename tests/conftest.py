"""Test configuration: hypothesis runs derandomised, so every run explores the same cases; and the endgame
databases that agents build for ``endgame='S'`` go to a cache of the test session, not the user's."""

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWALE_CACHE", str(tmp_path_factory.mktemp("awale-cache")))
        yield
