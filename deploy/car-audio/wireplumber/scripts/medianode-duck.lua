-- WirePlumber 0.4: lowers every music stream (media.role music) while an announcement plays, as
-- PulseAudio's module-role-ducking does. pipewire-pulse shows a PulseAudio client's role "event" (MediaNode's
-- default --announcement-role) as "Notification"; both count.
local config = ... or {}
-- A linear factor: 0.1 is 20 dB down.
local level = config["duck.level"] or 0.1
local announcements = { event = true, notification = true }

local mixer = Plugin.find("mixer-api")
local streams = ObjectManager {
  Interest { type = "node", Constraint { "media.class", "=", "Stream/Output/Audio" } },
}

local function role(node)
  local value = node.properties["media.role"]
  return value and string.lower(value)
end

local function apply()
  local announcing = false
  for node in streams:iterate() do
    if announcements[role(node)] then announcing = true end
  end
  for node in streams:iterate() do
    if role(node) == "music" then
      mixer:call("set-volume", node["bound-id"], { volume = announcing and level or 1.0 })
    end
  end
end

streams:connect("object-added", apply)
streams:connect("object-removed", apply)
streams:activate()
