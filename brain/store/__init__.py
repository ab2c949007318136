"""The chunk store of seed 000 (chunk files are the source of truth) and what acts on stored memories:
validation, audit and episode logs, salience, supersede/pin/status, and doctor.
"""
