"""The LiveHud: slider and mode state, the slider commands typed in prompts, and the 80-column box.
"""
