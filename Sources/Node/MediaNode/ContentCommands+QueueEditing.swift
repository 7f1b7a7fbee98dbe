import Playback
import RemoteCommands

// MARK: - addToQueue, removeFromQueue, moveQueueItem

extension ContentCommands {
    func handleQueueEditingCommands(playback: PlaybackController) {
        commandCenter.addHandler(for: .addToQueue) { [self] request in
            await addToQueue(request, content: content, playback: playback)
        }
        commandCenter.addHandler(for: .removeFromQueue) { index in
            CommandResult.result(await playback.removeFromQueue(at: index))
        }
        commandCenter.addHandler(for: .moveQueueItem) { move in
            CommandResult.result(await playback.moveQueueItem(from: move.from, to: move.to))
        }
    }

    /// Resolves every identifier before inserting anything: one unknown identifier and nothing changes.
    func addToQueue(_ request: QueueAddRequest, content: NodeContent, playback: PlaybackController) async -> CommandResult {
        var added: [QueueItem] = []
        do {
            for identifier in request.identifiers {
                guard let item = try await content.manager.item(identifier: identifier) else {
                    return CommandResult(.noSuchContent, message: "no item '\(identifier)'")
                }
                if item.isPlayable, item.uri != nil {
                    added.append(try await queueItem(item, container: item.containerIdentifier, resume: false))
                } else if item.isContainer {
                    let children = try await content.playableChildren(of: item)
                    guard !children.isEmpty else { return .failed("'\(identifier)' holds nothing playable") }
                    for child in children {
                        added.append(try await queueItem(child, container: item.identifier, resume: false))
                    }
                } else {
                    return .failed("'\(identifier)' is not playable")
                }
            }
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
        return CommandResult.result(await playback.addToQueue(added, request.position == .next ? .afterCurrent : .atEnd))
    }
}
