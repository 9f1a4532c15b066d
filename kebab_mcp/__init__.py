"""The Model Context Protocol adapter: `kebab mcp`, code search for coding agents."""
