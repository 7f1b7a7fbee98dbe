import DBusBinding
import Foundation
import MediaJSON
import RemoteCommands
import Synchronization

/// The `/org/mpris/MediaPlayer2` object: answers calls through the command center and properties from
/// what the node last showed, and tells clients what changed.
///
/// Threading: `handle` and `property` run on the bus loop's thread and never wait; `refresh` and `seeked`
/// may be called from any thread. What the properties show is replaced whole under one lock, and the
/// signals for a change are posted under it too, so clients see changes in the order they happened.
public final class MPRISPlayerObject: BusObjectHandler {
    let door: any MPRISCommandDoor
    let source: any MPRISStateSource
    let artwork: MPRISArtworkFiles
    /// Wakes `MPRISService` to refresh: a burst of changes is one refresh.
    let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Positions of seeks, for `Seeked`, in order.
    let seeks: AsyncStream<Double>
    private let seek: AsyncStream<Double>.Continuation
    private let shown = Mutex(MPRISInputs())
    private let presence = Mutex<BusPresence?>(nil)
    private let requests = Atomic<UInt64>(0)
    private let members: [String: MPRISMember]

    public init(door: any MPRISCommandDoor, source: any MPRISStateSource, artwork: MPRISArtworkFiles) {
        (self.door, self.source, self.artwork) = (door, source, artwork)
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (seeks, seek) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        members = Dictionary(MPRISMember.all.map { ($0.interface + "." + $0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: - What the node tells it

    /// Something MPRIS shows may have changed (a retained document was marked). Never waits.
    public func stateChanged() { wake.yield() }

    /// Playback jumped to `seconds` in the current item, whoever asked. Never waits.
    public func seeked(to seconds: Double) { seek.yield(seconds) }

    func finish() {
        wake.finish()
        seek.finish()
    }

    func attach(_ presence: BusPresence?) { self.presence.withLock { $0 = presence } }

    /// Reads what the node shows now and signals what changed since the last refresh.
    func refresh() {
        var inputs = source.inputs()
        if let picture = source.currentPicture() { inputs.artURL = artwork.url(for: picture.key, bytes: picture.bytes) }
        let presence = presence.withLock { $0 }
        shown.withLock { shown in
            let signals = MPRISSignal.changes(from: shown, to: inputs)
            shown = inputs
            for signal in signals { presence?.emit(interface: signal.interface, signal: signal.name, arguments: signal.arguments) }
        }
    }

    func emit(_ signal: MPRISSignal) {
        presence.withLock { $0 }?.emit(interface: signal.interface, signal: signal.name, arguments: signal.arguments)
    }

    // MARK: - BusObjectHandler (on the loop's thread)

    public func property(interface: String, name: String) -> DBusValue? {
        guard let property = members[interface + "." + name]?.property else { return nil }
        return property.read(shown.withLock { $0 }, Date().timeIntervalSince1970)
    }

    public func handle(_ call: BusMethodCall) {
        let reply = call.reply
        switch action(for: call) {
        case let .command(name, payload):
            let request = requests.add(1, ordering: .relaxed).newValue
            var payload = payload.objectValue ?? [:]
            payload["id"] = .string("mpris:\(request)")
            door.submit(command: name, payload: .object(payload)) { [self] answer in
                // Called on the lane that answered (the audio engine's thread, for a playback command): the
                // reading and signalling happen elsewhere, and what the command changed is signalled before its
                // answer, so a client that reads a property on the answer sees the new value.
                Task(executorPreference: globalConcurrentExecutor) { [self] in
                    refresh()
                    guard answer.result.status == .success else {
                        return reply.fail(name: MPRISNames.commandFailed,
                                          message: answer.result.message ?? "\(name): \(answer.result.status.rawValue)")
                    }
                    reply.succeed()
                }
            }
        case .nothing:
            reply.succeed()
        case let .refused(message):
            reply.fail(name: MPRISNames.commandFailed, message: message)
        case let .tracksMetadata(paths):
            Task { reply.succeed([.array(elementSignature: "a{sv}", await tracksMetadata(paths).map(DBusValue.vardict))]) }
        }
    }

    /// What a call or a property write does, from the member it names.
    func action(for call: BusMethodCall) -> MPRISAction {
        if call.interface == MPRISNames.properties {
            // GDBus checked that the property exists, is writable and gets a value of its type.
            guard call.member == "Set", call.arguments.count == 3, let interface = call.arguments[0].stringValue,
                  let name = call.arguments[1].stringValue, case let .variant(value) = call.arguments[2],
                  let write = members[interface + "." + name]?.property?.write
            else { return .refused("\(call.member) is not answered here") }
            return write(value)
        }
        guard let member = members[call.interface + "." + call.member], case let .method(_, _, act) = member.kind else {
            return .refused("\(call.interface).\(call.member) is not a method of this player")
        }
        return act(call.arguments)
    }

    /// The metadata of the queue entries named, in the order asked; a track id not in the queue is left out.
    func tracksMetadata(_ paths: [String]) async -> [[String: DBusValue]] {
        let current = shown.withLock { $0 }
        let entries = await source.queueEntries()
        let trackIDs = MPRISTrackID.paths(for: entries.map { $0.document["identifier"]?.stringValue ?? "" })
        let byTrack = Dictionary(zip(trackIDs, entries), uniquingKeysWith: { first, _ in first })
        var result: [[String: DBusValue]] = []
        for path in paths {
            if path == current.currentTrackID, path != MPRISNames.noTrack {
                result.append(MPRISMetadata.current(current))
                continue
            }
            guard let entry = byTrack[path] else { continue }
            var artURL: String?
            if let key = entry.artworkKey {
                artURL = artwork.knownURL(for: "catalog-" + key)
                if artURL == nil, let bytes = await source.catalogPicture(key: key) {
                    artURL = artwork.url(for: "catalog-" + key, bytes: bytes)
                }
            }
            result.append(MPRISMetadata.metadata(of: entry.document, trackID: path, url: entry.location, artURL: artURL))
        }
        return result
    }
}
