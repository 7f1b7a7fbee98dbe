import ServiceLifecycle

/// The broker connection and the retained state it carries. First in the group, so it stops last: by
/// the time it says `offline` and disconnects, nothing else publishes.
///
/// Before it starts the connection it makes what must come before the content tree (S19): the route
/// into the inbound lanes, the command subscriptions and the initial retained state, capabilities
/// included; then it opens `commandsReady`, which the other services wait for.
struct TransportService: Service {
    let session: any BrokerSession
    let retained: RetainedPublisher

    func run() async throws {
        let (session, retained) = (session, retained)
        // Here, not in a child task: the start's first messages wait for no other task to be scheduled.
        await session.startTransport()
        await withDiscardingTaskGroup { group in
            // The one path retained state takes to the broker (see RetainedPublisher); it ends with `finish`.
            group.addTask { await retained.run() }
            // Ends when the transport's events do, after its shutdown.
            group.addTask { await session.followTransport() }
            let isGraceful = await withDiscardingTaskGroup(returning: Bool.self) { updates in
                updates.addTask { await session.publishCapabilityChanges() }
                defer { updates.cancelAll() }
                do {
                    try await gracefulShutdown()
                    return true
                } catch {
                    return false
                }
            }
            // Cancelled: no goodbye; the broker's last will says it.
            if isGraceful { await session.sayOfflineAndDisconnect() } else { group.cancelAll() }
            retained.finish()
        }
    }
}
