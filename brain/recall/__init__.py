"""Bringing memory back: ranked recall for a prompt, depth levels, the session-start selection and CORE digest.
"""
