"""The protocol adapter: the language server and the `kebab` command line."""

__version__ = "0.1.0"
