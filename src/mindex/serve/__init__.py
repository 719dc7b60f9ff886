"""Front doors: the CLI and the MCP server, thin over `Index`."""
