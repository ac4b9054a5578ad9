"""The package version: the single source read by CMakeLists.txt and pyproject.toml."""

__version__ = "0.1.0"
