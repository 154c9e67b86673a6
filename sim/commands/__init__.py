"""The `sim` command line: one parser, and one module per sub-command."""
