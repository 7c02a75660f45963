"""Environment templates that ``silo-init`` copies (package data, never imported as code).

Contract: ``blank/`` is the empty skeleton; ``crm`` is the repository's own
``environments/crm`` mapped in by ``pyproject.toml`` (``package-dir``), so the template and the
example environment are one set of files. :func:`silo.scaffold.template_dir` finds a template
both in an editable install and in a wheel.
"""
