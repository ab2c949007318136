"""Changes read from what the tools did: edits and commands, whatever words went with them.

`pairs` gives the value pairs one turn's tool calls changed in any file (numbers, durations, names, options,
packages: `edits`, `options`, `commands`, `packages`), which currency.session_changes takes with what was said.
"""
