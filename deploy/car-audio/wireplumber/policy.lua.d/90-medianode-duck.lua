-- Loads MediaNode's ducking policy into WirePlumber 0.4 (Debian 12). Copy to
-- /etc/wireplumber/policy.lua.d/ (or ~/.config/wireplumber/policy.lua.d/), and medianode-duck.lua to the
-- scripts folder beside it.
load_script("medianode-duck.lua", { ["duck.level"] = 0.1 })
