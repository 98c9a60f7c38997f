#!/usr/bin/env python3
"""Print one value from a `reprise replay --json` file: replay_json.py FILE KEY[.SUBKEY]."""
import json
import sys

value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split('.'):
    value = value[key]
print(value)
