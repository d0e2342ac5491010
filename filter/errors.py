class ManifestError(ValueError):
    """A manifest line that cannot be read; the message names the source, the line and why."""

    def __init__(self, why: str, *, source: str = "<manifest>", lineno: int = 1):
        self.why = why
        self.source = source
        self.lineno = lineno
        super().__init__(f"{source}:{lineno}: {why}")


class ShinglingMismatch(ValueError):
    """Shingles made under other parameters, with no text to make them again from."""
