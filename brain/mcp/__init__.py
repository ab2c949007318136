"""rlm-mem's memory as an MCP server (`rlm-mem mcp`): a thin shell over the library, like brain/cli and brain/web.
Only the command line imports it; the SDK it needs never loads in a hook."""
