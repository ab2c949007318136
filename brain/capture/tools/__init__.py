"""Changes read from what the tools did: edits, writes, reads and commands, whatever words went with them.

`observe` walks a session's tool calls and says which settings each set or showed (`files` keeps the texts the
transcript shows; brain/capture/settings reads them by format); `latest` finds the value a key had before, in
the session or in the project's earlier sessions (search.db `settings`), and which settings are changes;
`records` states each change as a typed memory "KEY = NEW (was OLD) in PATH" and gives the value pairs recall
marks replaced values by. `pairs` gives the value pairs one turn's tool calls changed in any file (numbers,
durations, names, options, packages: `edits`, `options`, `commands`, `packages`), which
currency.session_changes takes with what was said. `checklists` reads the open items of a TODO.md the session
read or edited: the session record's open work.
"""
