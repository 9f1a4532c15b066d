"""Files to facts to store: discovery, tree-sitter extraction, chunking and the index stores.

Knows nothing of queries or of LSP.
"""
