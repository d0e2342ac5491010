"""The agent's side, with nothing of Django: the API client a memory system or a script uses, the
Claude Code hook (`poimen-hook`), and which files an agent loads are artifacts. It installs and
runs where poimen's server is not.

May import: poimen.readers.
"""
