"""The package version: the single source read by CMakeLists.txt and pyproject.toml."""

__version__ = "0.1.0"

#: The version as a tuple of its numbers, ``(0, 1, 0)``, for comparisons.
__version_tuple__ = tuple(int(part) for part in __version__.split("."))
