"""Helpers shared by the Python tests: paths, building test libraries, markers, mypy checks and
DLPack producers. Test files import from here and from nowhere else in the test tree (no test file
imports another), and conftest.py holds only fixtures and collection rules."""
