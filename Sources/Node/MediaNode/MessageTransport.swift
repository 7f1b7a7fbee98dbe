import MQTTTransport

/// What the node needs from a message transport; MQTT is one front (S11).
public protocol MessageTransport: Sendable {
    var events: AsyncStream<MQTTEvent> { get }
    var protocolVersion: MQTTProtocolVersion { get }
    func start()
    /// Hands inbound messages to `router` on the transport's thread as they arrive; those it returns
    /// false for go to `events`. Set before `start` and before subscribing.
    func route(_ router: @escaping @Sendable (MQTTMessage) -> Bool)
    func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool, properties: MQTTProperties) throws(MQTTError)
    func publishAndWait(topic: String, payload: [UInt8], retain: Bool, properties: MQTTProperties) async throws
    func subscribe(_ filter: String, qos: Int) throws(MQTTError)
    /// With `awaited` false, a subscription the node can do without: a connection is announced without
    /// waiting for its grant, and a broker that refuses it is not asked again.
    func subscribe(_ filter: String, qos: Int, awaited: Bool) throws(MQTTError)
    /// Sends what `publish` queued without waiting for the transport's own thread, where that is safe.
    func flush()
    func shutdown() async
}

extension MessageTransport {
    /// A transport that cannot refuse a subscription makes every one alike.
    public func subscribe(_ filter: String, qos: Int, awaited: Bool) throws(MQTTError) {
        try subscribe(filter, qos: qos)
    }
}

extension MQTTClient: MessageTransport {
    public var protocolVersion: MQTTProtocolVersion { configuration.protocolVersion }
}
