import MediaJSON
import RemoteCommands

/// `P/commands`, marked dirty: the document is made once per flush, however many changes came before it.
struct CapabilitiesPublisher: Sendable {
    let retained: RetainedPublisher
    let topic: String
    let commandCenter: RemoteCommandCenter

    func mark() {
        retained.publish(topic, rendering: { [commandCenter] in commandCenter.capabilitiesDocumentBytes })
    }
}
