import ServiceLifecycle

// MARK: - Inbound: two lanes, filled in arrival order on the transport's thread

/// Answers commands: last in the group, so it is the first to stop, and no command starts once the node
/// has begun to shut down. What was queued before is still answered.
struct InboundService: Service {
    let lanes: InboundLanes
    let answering: any CommandAnswering
    /// Where the playback lane prefers to run: the audio engine's thread.
    let playbackExecutor: (any TaskExecutor)?

    func run() async throws {
        let (lanes, answering, executor) = (lanes, answering, playbackExecutor)
        await withDiscardingTaskGroup { group in
            group.addTask { await lanes.run(answering: answering, playbackExecutor: executor) }
            // Cancelled instead: the lanes' tasks are cancelled with this one.
            try? await gracefulShutdown()
            lanes.close()
        }
    }
}
