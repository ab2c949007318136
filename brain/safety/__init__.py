"""What keeps memory safe: secret redaction before anything is written, and the fence that marks recalled
memory as reference data when it is injected.
"""
