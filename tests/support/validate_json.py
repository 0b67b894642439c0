#!/usr/bin/env python3
"""Validates a JSON document against one of rocm-perf's schemas (schemas/*.schema.json).

usage: validate_json.py SCHEMA_DIR SCHEMA_NAME DOCUMENT
Exit 0 when valid; 1 with the errors on stderr when not.
"""
import json
import pathlib
import sys

import jsonschema


def main():
    schema_dir, name, document = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    store = {}
    for path in sorted(schema_dir.glob("*.schema.json")):
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    schema = json.loads((schema_dir / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    errors = sorted(validator.iter_errors(json.loads(pathlib.Path(document).read_text())), key=str)
    for error in errors:
        print(f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
