#!/usr/bin/env python3
"""Translates a SAM template into plain CloudFormation, offline, with aws-sam-translator.

    scripts/translate-template.py template.yaml out.json [Name=Value ...]

cfn-lint checks the result: plain cfn-lint reads AWS::Serverless::Function as an opaque
resource, so what SAM makes of it (roles and their policies, permissions, the event source
mapping, the API's routes and authorizer, the schedule) is only checked after translation.
Nothing here calls AWS: local code paths and nested templates become the placeholder S3
locations `sam package` would upload them to, and the template names no managed policy, so the policy loader (which
would ask IAM for the managed policies' ARNs) is a stub that knows none.

Name=Value arguments are the parameters' values, as a deployment passes them to the transform
(which resolves some of them, e.g. in the API's CORS configuration); the others keep their
defaults.
"""
import json
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse


class NoManagedPolicies:
    """Stands in for samtranslator's ManagedPolicyLoader, which would call IAM."""

    def load(self):
        return {}


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[3:]):
        sys.exit(f"usage: {sys.argv[0]} TEMPLATE OUT.json [Name=Value ...]")
    parameters = dict(a.split("=", 1) for a in sys.argv[3:])
    with open(sys.argv[1], encoding="utf-8") as f:
        sam = yaml_parse(f.read())
    for resource in sam.get("Resources", {}).values():
        props = resource.get("Properties") or {}
        if resource.get("Type") == "AWS::Serverless::Function" and isinstance(props.get("CodeUri"), str):
            if not props["CodeUri"].startswith("s3://"):
                props["CodeUri"] = "s3://placeholder-bucket/code.zip"
        # A nested template in a local file (monitoring.yaml) is linted on its own.
        if resource.get("Type") == "AWS::Serverless::Application" and isinstance(props.get("Location"), str):
            if not props["Location"].startswith("https://"):
                props["Location"] = "https://placeholder-bucket.s3.amazonaws.com/nested.yaml"
    unknown = set(parameters) - set(sam.get("Parameters", {}))
    if unknown:
        sys.exit(f"{sys.argv[1]} has no parameter {', '.join(sorted(unknown))}")
    cfn = transform(sam, parameters, NoManagedPolicies())
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(cfn, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
