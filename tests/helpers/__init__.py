"""Helpers shared by every test: one way to wait for a condition (wait.py),
one /proc scanner (procs.py), one git repository builder (gitrepo.py), the
real gh against the fake GitHub (github.py), a tree of folders deeper than
the recursion limit (deep_tree.py), a clone that plants bare repositories
in its folders (planted.py).
Test modules import from here (or from their folder's driver or helper
module, and take shared fixtures from its conftest.py), never from another
test module: tests/test_test_imports.py fails on one that does."""
