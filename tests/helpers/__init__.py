"""Helpers shared by every test: one way to wait for a condition (wait.py),
one /proc scanner (procs.py), one git repository builder (gitrepo.py), the
real gh against the fake GitHub (github.py), a tree of folders deeper than
the recursion limit (deep_tree.py).
Test modules import from here (or from their folder's driver), never from
another test module."""
