"""Test harnesses: playing Claude Code's part (firing hooks from hooks/hooks.json).
"""
