"""From Claude Code transcripts to memories: the capture queue, the transcript parser, the extractors, the
capture worker and the MEMORY_CANDIDATES fallback.
"""
