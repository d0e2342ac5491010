"""The wheel's layout, beside pyproject.toml (which holds everything else).

templates/ stays at the top of the repository, as the project's layout has it; the wheel carries
it inside the package as poimen/templates, where Django's app template loader finds it, so an
installed poimen needs nothing outside site-packages but its data folder (POIMEN_HOME).

filter/_speedups.c is the matcher's hot path in C (filter/speedups.py; docs/architecture.md),
built with the wheel and by `pip install -e .`; the pure-Python code is the fallback. The
extension is optional: where it cannot be compiled (no compiler, no Python headers) setuptools
says so and the install goes on without it, and the matcher runs in pure Python with a warning
(.ci/run installs once with the compiler hidden to prove it).
"""

from setuptools import Extension, find_namespace_packages, setup

setup(
    # Namespace packages too: the folders of data files (demo_data/transcripts, static/poimen,
    # vendor/xxhash...) are packages as Python sees them, and setuptools carries a folder's
    # files only as a package's.
    packages=[
        *find_namespace_packages(
            include=["poimen", "poimen.*", "filter", "filter.*"], exclude=["*.__pycache__"]
        ),
        "poimen.templates",
        "poimen.templates.partials",
        "poimen.templates.jinja2",
        "poimen.templates.jinja2.partials",
    ],
    package_dir={"poimen.templates": "templates"},
    package_data={
        "poimen": ["demo_data/**/*", "static/**/*"],
        "poimen.templates": ["*.html", "**/*.html"],
        # xxHash's licence travels with the compiled module it is in
        "filter.vendor.xxhash": ["LICENSE"],
    },
    # the C sources are built into filter/_speedups.*.so; the wheel needs only that
    exclude_package_data={"filter": ["*.c"], "filter.vendor.xxhash": ["*.h"]},
    ext_modules=[
        Extension(
            "filter._speedups",
            sources=["filter/_speedups.c"],
            depends=["filter/vendor/xxhash/xxhash.h"],
            extra_compile_args=["-O3"],
            # a failed build is a warning, not a failed install: the pure-Python path decides alike
            optional=True,
        )
    ],
)
