"""Keeping memory true and small: gardening runs (resolve, consolidate, archive), their schedule, reflection.
"""
