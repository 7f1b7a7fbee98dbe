"""Validates MQTT messages against asyncapi.yaml, the contract as an AsyncAPI 3 document.

Usage: asyncapi_check.py ASYNCAPI_YAML MESSAGES_JSONL --prefix P [--discovery-prefix D]
       asyncapi_check.py ASYNCAPI_YAML --document
       asyncapi_check.py ASYNCAPI_YAML --command-requests

With --document it checks the document itself instead, for what no maintained AsyncAPI 3 validator installs
here to check (the official parser is JavaScript, from npm): the AsyncAPI 3.0 structure it uses, every $ref
resolving, every address parameter declared and every declared one used, every operation's messages and
reply belonging to its channels, and every schema a valid JSON Schema (draft 07, which AsyncAPI's schema
format extends).

With --command-requests it prints, as one JSON object, each command channel as a YAML reader sees it: its
address, description and request payload schema (what `medianode docs` wrote from the command table).

Each line of MESSAGES_JSONL is {"topic": ..., "payload": <base64>, "retain": bool}. Every message is matched to
the one channel whose address fits its topic and checked against that channel's payload schema. Prints a line
per message ("ok" or "FAIL ... why"), then the count per channel; exits 1 if any message failed or fitted no
channel. Uses Debian's python3-yaml and python3-jsonschema.
"""
import argparse
import base64
import json
import re
import sys

import jsonschema
import yaml

# What each address parameter stands for in a topic.
PARAMETER_PATTERNS = {
    "indexPath": r"\d+(?:/\d+)*",
    "key": r"[^/]+",
    "objectId": r"[A-Za-z0-9_-]+",
}
IMAGE_SIGNATURES = {"image/jpeg": b"\xff\xd8\xff", "image/png": b"\x89PNG"}


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/"):
        target = document
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def channel_patterns(document, prefix, discovery_prefix):
    values = {"prefix": re.escape(prefix), "discoveryPrefix": re.escape(discovery_prefix), **PARAMETER_PATTERNS}
    patterns = []
    for name, channel in document["channels"].items():
        address = channel["address"]
        regex = ""
        for literal, parameter in re.findall(r"([^{]*)(?:\{([^}]+)\})?", address):
            regex += re.escape(literal)
            if parameter:
                regex += "(?:%s)" % values[parameter]
        patterns.append((name, re.compile("^" + regex + "$")))
    return patterns


def retained_channels(document):
    """Channels the node publishes retained: an empty message there clears the topic."""
    names = set()
    for operation in document["operations"].values():
        if operation.get("bindings", {}).get("mqtt", {}).get("retain"):
            names.add(operation["channel"]["$ref"].split("/")[-1])
    return names


def check(document, validator_for, channel_name, payload, retained):
    channel = document["channels"][channel_name]
    problems = []
    for message in channel["messages"].values():
        message = resolve(document, message)
        content_type = message.get("contentType", document.get("defaultContentType"))
        # A cleared retained topic. The flag is not asked for: a broker forwards a live message without it.
        if not payload and channel_name in retained:
            return None
        if content_type.startswith("image/"):
            if any(payload.startswith(signature) for signature in IMAGE_SIGNATURES.values()):
                return None
            problems.append("not a JPEG or PNG picture (%d bytes)" % len(payload))
            continue
        if content_type == "text/plain":
            value = payload.decode("utf-8")
        else:
            try:
                value = json.loads(payload) if payload else None
            except ValueError as error:
                problems.append("not JSON: %s" % error)
                continue
        errors = sorted(validator_for(message["payload"]).iter_errors(value), key=lambda e: list(e.path))
        if not errors:
            return None
        problems.extend("%s at /%s" % (e.message[:300], "/".join(map(str, e.path))) for e in errors[:3])
    return "; ".join(problems)


def document_problems(document):
    problems = []
    if document.get("asyncapi") != "3.0.0":
        problems.append("asyncapi is not 3.0.0")
    for key in ("title", "version"):
        if not isinstance(document.get("info", {}).get(key), str):
            problems.append("info.%s is missing" % key)

    def walk(node, path):
        if isinstance(node, dict):
            reference = node.get("$ref")
            if reference is not None:
                target = document
                for part in reference[2:].split("/") if reference.startswith("#/") else [None]:
                    if not isinstance(target, dict) or part not in target:
                        problems.append("%s: $ref %s does not resolve" % (path, reference))
                        break
                    target = target[part]
            for key, value in node.items():
                walk(value, path + "/" + key)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, "%s/%d" % (path, index))

    walk(document, "#")
    for name, channel in document.get("channels", {}).items():
        used = set(re.findall(r"\{([^}]+)\}", channel.get("address", "")))
        declared = set(channel.get("parameters", {}))
        if used != declared:
            problems.append("channel %s: address parameters %s, declared %s" % (name, sorted(used), sorted(declared)))
        if not channel.get("messages"):
            problems.append("channel %s has no message" % name)
    for name, operation in document.get("operations", {}).items():
        if operation.get("action") not in ("send", "receive"):
            problems.append("operation %s: action must be send or receive" % name)
        channel = operation.get("channel", {}).get("$ref", "")
        for message in operation.get("messages", []):
            if not message.get("$ref", "").startswith(channel + "/messages/"):
                problems.append("operation %s: message %s is not one of its channel's" % (name, message))
        reply = operation.get("reply")
        if reply:
            for message in reply.get("messages", []):
                if not message.get("$ref", "").startswith(reply["channel"]["$ref"] + "/messages/"):
                    problems.append("operation %s: reply message %s is not its reply channel's" % (name, message))
    schemas = list(document.get("components", {}).get("schemas", {}).items())
    schemas += [(name, message.get("payload")) for name, message in document.get("components", {}).get("messages", {}).items()]
    for name, schema in schemas:
        try:
            jsonschema.Draft7Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            problems.append("schema %s: %s" % (name, error.message))
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("asyncapi")
    parser.add_argument("messages", nargs="?")
    parser.add_argument("--document", action="store_true")
    parser.add_argument("--command-requests", action="store_true",
                        help="print each command channel's address, description and request schema as one JSON object")
    parser.add_argument("--prefix")
    parser.add_argument("--discovery-prefix", default="homeassistant")
    arguments = parser.parse_args()
    with open(arguments.asyncapi, encoding="utf-8") as file:
        document = yaml.safe_load(file)
    if arguments.command_requests:
        requests = {}
        for channel in document["channels"].values():
            command = re.fullmatch(r"\{prefix\}/cmd/(\w+)", channel["address"])
            if command:
                messages = [resolve(document, message) for message in channel.get("messages", {}).values()]
                requests[command.group(1)] = {"address": channel["address"], "description": channel.get("description"),
                                              "payloads": [message.get("payload") for message in messages]}
        print(json.dumps(requests, sort_keys=True))
        sys.exit(0)
    if arguments.document:
        problems = document_problems(document)
        for problem in problems:
            print("FAIL " + problem)
        print("%d channels, %d operations, %d problems" % (len(document.get("channels", {})),
                                                             len(document.get("operations", {})), len(problems)))
        sys.exit(1 if problems else 0)
    # AsyncAPI's schema format is a superset of JSON Schema draft 07; $refs point into the whole document.
    resolver = jsonschema.RefResolver.from_schema(document)

    def validator_for(schema):
        return jsonschema.Draft7Validator(schema, resolver=resolver, format_checker=jsonschema.FormatChecker())

    patterns = channel_patterns(document, arguments.prefix, arguments.discovery_prefix)
    retained = retained_channels(document)
    counts = {}
    failures = 0
    with open(arguments.messages, encoding="utf-8") as file:
        for line in file:
            record = json.loads(line)
            topic, payload = record["topic"], base64.b64decode(record["payload"])
            matches = [name for name, pattern in patterns if pattern.match(topic)]
            if len(matches) != 1:
                print("FAIL %s: fits %s" % (topic, matches or "no channel"))
                failures += 1
                continue
            problem = check(document, validator_for, matches[0], payload, retained)
            counts[matches[0]] = counts.get(matches[0], 0) + 1
            if problem:
                print("FAIL %s %s: %s | %s" % (matches[0], topic, problem, payload[:400]))
                failures += 1
            else:
                print("ok %s %s" % (matches[0], topic))
    for name in sorted(counts):
        print("channel %s %d" % (name, counts[name]))
    print("%d messages, %d failed" % (sum(counts.values()), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
