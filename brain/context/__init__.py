"""Where memory lives (the memory root) and which project a session belongs to, with its off switch.
"""
