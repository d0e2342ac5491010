"""Request plumbing under every page and API call: the security headers and one-time-password
gate (middleware), a request id in every response and log line, and the per-request memo of values
a page reads again and again.

May import: nothing.
"""
