"""What a project's memory adds up to, read from the store and never on a hook's path: seed 002's chapters
(consecutive sessions on one topic) and wisdom (what held across them), and the causal chain behind a memory
(`why`). Chapters and wisdom are derived (index/narrative.json), brought up to date by the capture worker and by
the commands that show them, and rebuilt by `rlm-mem reindex`. Plain functions, each a command, a page and an MCP
tool in a few lines."""
