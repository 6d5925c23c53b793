"""The distribution as a user installs it: both programs, one version."""

import importlib.metadata

import laura
import luxe


def test_both_packages_share_the_distribution_version() -> None:
    version = importlib.metadata.version("luxe-laura")
    assert luxe.__version__ == version
    assert laura.__version__ == version
