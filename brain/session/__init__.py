"""What a session starts with: the session-start brief (LiveHud and memory) and the background work it starts.
"""
