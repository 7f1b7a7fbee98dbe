import DBusBinding

/// A signal MPRIS clients get: its interface, name and arguments.
public struct MPRISSignal: Sendable, Equatable {
    public let interface: String
    public let name: String
    public let arguments: [DBusValue]
}

extension MPRISSignal {
    /// What clients are told when what the node shows goes from `old` to `new`: one `PropertiesChanged` per
    /// interface with the properties whose values changed (or, for `Tracks`, that changed), then
    /// `TrackListReplaced` for another queue, or `TrackMetadataChanged` for new metadata of the same entry
    /// (a radio's new song).
    static func changes(from old: MPRISInputs, to new: MPRISInputs, members: [MPRISMember] = MPRISMember.all) -> [MPRISSignal] {
        var changed: [String: [String: DBusValue]] = [:]
        var invalidated: [String: [String]] = [:]
        var order: [String] = []
        for member in members {
            guard let property = member.property, property.change != .never else { continue }
            let value = property.read(new, 0)
            guard value != property.read(old, 0) else { continue }
            if changed[member.interface] == nil, invalidated[member.interface] == nil { order.append(member.interface) }
            switch property.change {
            case .emits: changed[member.interface, default: [:]][member.name] = value
            case .invalidates: invalidated[member.interface, default: []].append(member.name)
            case .never: break
            }
        }
        var signals = order.map { interface in
            MPRISSignal(interface: MPRISNames.properties, name: "PropertiesChanged", arguments: [
                .string(interface), .vardict(changed[interface] ?? [:]), .strings(invalidated[interface] ?? []),
            ])
        }
        let tracks = new.trackIDs
        if tracks != old.trackIDs {
            signals.append(MPRISSignal(interface: MPRISNames.trackList, name: "TrackListReplaced", arguments: [
                .array(elementSignature: "o", tracks.map(DBusValue.objectPath)), .objectPath(new.currentTrackID),
            ]))
        } else if new.currentTrackID != MPRISNames.noTrack, new.currentTrackID == old.currentTrackID {
            let metadata = MPRISMetadata.current(new)
            if metadata != MPRISMetadata.current(old) {
                signals.append(MPRISSignal(interface: MPRISNames.trackList, name: "TrackMetadataChanged", arguments: [
                    .objectPath(new.currentTrackID), .vardict(metadata),
                ]))
            }
        }
        return signals
    }

    /// `Seeked`, with the new position.
    static func seeked(toSeconds seconds: Double) -> MPRISSignal {
        MPRISSignal(interface: MPRISNames.player, name: "Seeked", arguments: [.int64(MPRISTime.microseconds(seconds))])
    }
}
