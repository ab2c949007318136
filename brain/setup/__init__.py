"""Wiring rlm-mem into Claude Code: settings-file install and uninstall.
"""
