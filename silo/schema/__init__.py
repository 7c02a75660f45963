"""Tool-input validation against JSON Schema Draft 2020-12.

Contract: :func:`~silo.schema.validator.validator_for` returns the process's compiled
:class:`~silo.schema.validator.InputValidator` for a tool's input schema. Valid input costs one
generated check (:mod:`silo.schema.codegen`); invalid input gets jsonschema's full list of
problems, and jsonschema is the authority on every verdict. This package does no I/O and
depends only on :mod:`silo.jsonio` and jsonschema.
"""
