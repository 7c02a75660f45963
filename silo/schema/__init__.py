"""Tool-input validation against JSON Schema Draft 2020-12.

Contract: :func:`~silo.schema.validator.validator_for` returns a validator for a tool's input schema;
a valid input costs one fast check, an invalid one gets jsonschema's full list of problems.
Schemas are checked for being valid Draft 2020-12 object schemas when they are compiled.
"""
