"""The Claude Code hook boundary: stdin JSON in, hook output out, failing open. A thin shell over the library.
"""
