#!/usr/bin/env python
"""Django's command-line utility (the installed package calls the same main as `poimen`)."""

from poimen.cli import main

if __name__ == "__main__":
    main()
