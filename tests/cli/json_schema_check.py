#!/usr/bin/env python3
"""tests/cli/json_schema_check.py SCHEMA FILE: validate one --json output against its schema in
docs/schema/ (JSON Schema 2020-12); prints each violation and exits 1 when there is one. The
document must be one JSON value (a second object on stdout is a failure too)."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
try:
    doc = json.loads(text)
except json.JSONDecodeError as e:
    print(f"{sys.argv[2]}: not one JSON document: {e}")
    sys.exit(1)
v = jsonschema.Draft202012Validator(schema)
v.check_schema(schema)
errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
for e in errs:
    print(f"{sys.argv[2]}: at {'/'.join(map(str, e.path)) or '(root)'}: {e.message}")
sys.exit(1 if errs else 0)
