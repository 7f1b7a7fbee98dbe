"""Checks a device discovery message the way Home Assistant's MQTT integration reads it.

Usage: homeassistant_discovery_check.py DISCOVERY_TOPIC PAYLOAD_FILE DISCOVERY_PREFIX
Runs in the Python environment deploy/install-homeassistant.sh makes. It uses Home Assistant's own code: the
discovery topic matcher, abbreviation expansion, the device discovery schema, the merge of shared options
into each component, and each platform's discovery schema, which Home Assistant validates an entity with
before it creates it. A key a platform schema silently drops (so Home Assistant ignores it) counts as an
error too. Prints one line per component and exits 1 if anything was refused.
"""
import asyncio
import importlib
import json
import sys
import tempfile

import voluptuous as vol

from homeassistant.components.mqtt import discovery
from homeassistant.components.mqtt.discovery import MQTTDiscoveryPayload

from homeassistant.components.mqtt.schemas import DEVICE_DISCOVERY_SCHEMA
from homeassistant.const import __version__
from homeassistant.core import HomeAssistant
from homeassistant.helpers import frame

# What the node publishes, to render each entity's templates with: what Home Assistant would show.
SAMPLES = {
    "nowplaying stopped": '{"state":"stopped"}',
    "nowplaying playing": '{"state":"playing","title":"Style","artist":"Taylor Swift","albumTitle":"1989"}',
    "nowplaying chapter": '{"state":"playing","title":"Voyage","chapterNumber":6,"chapterCount":23,'
    + '"chapterTitle":"The Crossing"}',
    "queue": '{"identifiers":[],"index":null,"repeatMode":"all","shuffleMode":"items"}',
    "volume": '{"volume":0.25,"isMuted":true}',
}
# What a person picks in each control with a command template, by component; the announce text has quotes
# and a letter outside ASCII, which the command must carry as JSON.
COMMAND_VALUES = {"repeat": "all", "shuffle": "items", "volume": 0.5, "announce": 'Next stop: "Harbour" Straße'}


async def main():
    topic, path, prefix = sys.argv[1:4]
    # Templates are compiled against a running Home Assistant, as in the integration.
    hass = HomeAssistant(tempfile.mkdtemp())
    frame.async_setup(hass)
    failures = []
    print("Home Assistant %s" % __version__)
    match = discovery.TOPIC_MATCHER.match(topic.replace(prefix + "/", "", 1))
    if not match or match.group("component") != "device":
        failures.append("topic %s is not a device discovery topic Home Assistant accepts" % topic)
    with open(path, encoding="utf-8") as file:
        device_payload = MQTTDiscoveryPayload(json.load(file))
    discovery._replace_all_abbreviations(device_payload)
    try:
        device_payload = MQTTDiscoveryPayload(DEVICE_DISCOVERY_SCHEMA(device_payload))
    except vol.Invalid as error:
        print("FAIL device: %s" % error)
        sys.exit(1)
    availability = device_payload.get("availability_topic")
    print("availability %s %s/%s" % (availability, device_payload.get("payload_available"),
                                     device_payload.get("payload_not_available")))
    for component_id, config in device_payload["components"].items():
        config = dict(config)
        platform = config.pop("platform")
        payload = MQTTDiscoveryPayload(config)
        payload["device"] = device_payload["device"]
        payload["origin"] = device_payload.get("origin")
        discovery._merge_common_device_options(payload, device_payload)
        module = importlib.import_module("homeassistant.components.mqtt." + platform)
        try:
            validated = module.DISCOVERY_SCHEMA(dict(payload))
        except vol.Invalid as error:
            failures.append("%s %s: %s" % (platform, component_id, error))
            print("FAIL %s %s: %s" % (platform, component_id, error))
            continue
        ignored = sorted(set(payload) - set(validated))
        if ignored:
            failures.append("%s %s: Home Assistant ignores %s" % (platform, component_id, ignored))
            print("FAIL %s %s: ignored keys %s" % (platform, component_id, ignored))
            continue
        unique_id = validated.get("unique_id")
        print("ok %s %s " % (platform, unique_id))
        if validated.get("availability_topic") != availability:
            failures.append("%s has no availability" % component_id)
        if platform == "button":
            print("button %s command_topic=%s payload=%r" % (unique_id, validated["command_topic"], validated["payload_press"]))
        template = validated.get("value_template")
        if template is not None:
            for sample, payload_text in SAMPLES.items():
                if sample.split()[0] in validated.get("state_topic", ""):
                    rendered = template.async_render_with_possible_json_value(payload_text, "")
                    print("render %s %s -> %s" % (unique_id, sample, rendered))
        command_template = validated.get("command_template")
        if command_template is not None:
            value = COMMAND_VALUES[component_id]
            print("command %s %s -> %s" % (unique_id, value, command_template.async_render({"value": value})))
        if platform == "switch":
            print("command %s on -> %s off -> %s" % (unique_id, validated["payload_on"], validated["payload_off"]))
        if platform == "text":
            print("text %s command_topic=%s min=%d max=%d mode=%s" % (
                unique_id, validated["command_topic"], validated["min"], validated["max"], validated["mode"]))
        if platform == "image":
            print("image %s image_topic=%s content_type=%s" % (unique_id, validated["image_topic"], validated["content_type"]))
    for failure in failures:
        print("FAIL " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    asyncio.run(main())
