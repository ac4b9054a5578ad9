"""Where things are: the repository, the Python test tree and the sources its fixtures build."""

import os

#: The Python test tree (tests/python): kernels/, hosts/ and the data files beside the tests.
TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Kernel library sources the fixtures build (tests/python/kernels).
KERNELS_DIR = os.path.join(TESTS_DIR, "kernels")
#: The repository's root.
ROOT = os.path.dirname(os.path.dirname(TESTS_DIR))
