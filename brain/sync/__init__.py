"""A person's memory on every machine: the store synced through a git remote they own (`rlm-mem sync`).

status (what the LiveHud and the background worker read: stdlib only) · git (rlm-mem's own bare repository) ·
tracked (what goes in, in which form; the scan) · merge (the conflict-free rules) · apply (a merge's result into
the store) · engine (one sync, end to end).
"""
