#!/usr/bin/env python3
"""Check Agones manifests against the schemas of Agones's own CRDs.

Usage: python3 deploy/agones/validate.py AGONES_INSTALL_YAML MANIFEST...

AGONES_INSTALL_YAML is install/yaml/install.yaml of the Agones release the
cluster runs (it holds the CustomResourceDefinitions). Every object of a kind
that has a CRD there is validated against its openAPIV3Schema, with unknown
fields refused wherever the schema lists the fields (a misspelt key is an
error, as it would be for kubectl apply --validate=strict). metadata,
apiVersion and kind are left to the API server. Objects of other kinds
(GameServerAllocation is not a CRD) are reported and skipped. Needs PyYAML
and jsonschema. Exit status 1 if any object has errors.
"""
import copy
import sys

import jsonschema
import yaml


def load_schemas(path):
    schemas = {}
    with open(path) as f:
        for doc in yaml.safe_load_all(f):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            for v in spec["versions"]:
                key = (spec["group"] + "/" + v["name"], spec["names"]["kind"])
                schemas[key] = v["schema"]["openAPIV3Schema"]
    return schemas


def refuse_unknown(schema):
    """Set additionalProperties false wherever properties are listed."""
    if isinstance(schema, dict):
        if ("properties" in schema
                and not schema.get("x-kubernetes-preserve-unknown-fields")
                and "additionalProperties" not in schema):
            schema["additionalProperties"] = False
        for v in schema.values():
            refuse_unknown(v)
    elif isinstance(schema, list):
        for v in schema:
            refuse_unknown(v)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    schemas = load_schemas(argv[1])
    failed = False
    for path in argv[2:]:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        for doc in docs:
            key = (doc.get("apiVersion"), doc.get("kind"))
            if key not in schemas:
                print(f"{path}: {key[1]}: no CRD schema, skipped")
                continue
            schema = copy.deepcopy(schemas[key])
            refuse_unknown(schema)
            schema.get("properties", {}).pop("metadata", None)
            body = {k: v for k, v in doc.items()
                    if k not in ("apiVersion", "kind", "metadata")}
            errors = list(jsonschema.Draft7Validator(schema).iter_errors(body))
            if not errors:
                print(f"{path}: {key[1]}: ok")
                continue
            failed = True
            for e in errors:
                where = ".".join(str(p) for p in e.absolute_path)
                print(f"{path}: {key[1]}: {where}: {e.message}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
