"""The wheel's layout, beside pyproject.toml (which holds everything else).

templates/ stays at the top of the repository, as the project's layout has it; the wheel carries
it inside the package as poimen/templates, where Django's app template loader finds it, so an
installed poimen needs nothing outside site-packages but its data folder (POIMEN_HOME).
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["poimen", "poimen.*", "filter", "filter.*"]),
        "poimen.templates",
    ],
    package_dir={"poimen.templates": "templates"},
    package_data={
        "poimen": ["demo_data/**/*", "static/**/*"],
        "poimen.templates": ["*.html", "**/*.html"],
    },
)
