/// What the transport service asks of the rest of the node: the steps of one session with the broker,
/// in the order the service takes them.
protocol BrokerSession: Sendable {
    /// Routes inbound messages, subscribes to the commands, marks the initial state and opens
    /// `commandsReady`, then starts the connection.
    func startTransport() async
    /// Follows the transport's events until they end, after its shutdown.
    func followTransport() async
    /// Republishes `P/commands` whenever what the commands allow changed, until cancelled.
    func publishCapabilityChanges() async
    /// Says `offline` (retained), then disconnects.
    func sayOfflineAndDisconnect() async
}
