"""Retrieval over the index: query parsing, lexical and vector retrievers, fusion, priors and
the workspace-symbol matcher. Reads the store through `indexing`'s read API; never writes."""
