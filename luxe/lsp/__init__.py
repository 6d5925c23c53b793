"""Language servers: diagnostics after every edit (docs/hooks.md, "Built-in")."""
